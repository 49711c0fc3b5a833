"""An independent driver for the replay bench: the bench schedule run with psycopg, not by Last
Seat's executor, so that the executor's figures have something outside the project to be
compared with.

Two buyers, each in a READ COMMITTED transaction that reads seat A7 and then books it; one
connection per buyer and one monitor, kept across runs. Each run re-creates the seat table and
seeds it, then sends the entries in order, each without waiting for its answer: a statement
that has not answered is polled with pg_isolation_test_session_is_blocked every 2 ms until it
answers or is blocked (as PostgreSQL's isolation tester does), and the table is read after the
last entry.

    python bench/psycopg_driver.py [RUNS] [--order wait|no-wait]

prints one line of JSON: the order, the runs, and the median, p90 and minimum of one run in ms.
DATABASE_URL names the database (the default is the local one the tests use).
"""

import asyncio
import json
import os
import statistics
import sys
import time

import psycopg

POLL = 0.002
TABLE = "lastseat_driver_seats"

ORDERS = {
    # The second buyer's write waits for the first buyer's commit.
    "wait": ["adam", "omar", "adam", "omar", "adam", "omar", "adam", "omar"],
    # The same entries, one buyer after the other: nothing waits.
    "no-wait": ["adam", "adam", "adam", "adam", "omar", "omar", "omar", "omar"],
}


def program(buyer):
    """The buyer's statements, as the executor sends them for the `transaction` defence."""
    return [
        ("begin isolation level read committed", None),
        (f"select seat_id, status, holder, held_until from {TABLE}"
         " where show_id = %s and seat_id = any(%s) order by seat_id", (1, ["A7"])),
        (f"update {TABLE} set status = %s, holder = %s, hold_id = %s, held_until = %s"
         " where show_id = %s and seat_id = any(%s)",
         ("BOOKED", buyer, f"{buyer}:3", None, 1, ["A7"])),
        ("commit", None),
    ]


async def run_once(monitor, buyers, pids, order):
    await monitor.execute(
        f"drop table if exists {TABLE};"
        f" create table {TABLE} (show_id bigint not null, seat_id text collate \"C\" not null,"
        " status text not null default 'AVAILABLE', holder text, hold_id text,"
        " held_until bigint, primary key (show_id, seat_id))")
    await monitor.execute(f"insert into {TABLE} (show_id, seat_id) values (1, 'A7')")
    programs = {name: program(name) for name in buyers}
    pending = {}
    for name in order:
        if name in pending:
            raise RuntimeError(f"{name} still waits")
        sql, params = programs[name].pop(0)
        pending[name] = asyncio.ensure_future(buyers[name].execute(sql, params))
        # Quiescence: every statement in flight answered or blocked.
        while True:
            done = [n for n, t in pending.items() if t.done()]
            for n in done:
                pending.pop(n).result()
            if not pending:
                break
            waiting = list(pending)
            await asyncio.wait(list(pending.values()), timeout=POLL)
            if any(pending[n].done() for n in waiting):
                continue
            others = list(pids.values())
            cur = await monitor.execute(
                "select bool_and(pg_isolation_test_session_is_blocked(p, %s))"
                " from unnest(%s::int4[]) as p",
                (others, [pids[n] for n in waiting]))
            (blocked,) = await cur.fetchone()
            if blocked:
                break
    cur = await monitor.execute(f"select seat_id, status, holder from {TABLE} order by seat_id")
    rows = await cur.fetchall()
    for task in pending.values():
        await task
    return rows


async def main():
    args = sys.argv[1:]
    order_name = "wait"
    if "--order" in args:
        i = args.index("--order")
        order_name = args[i + 1]
        del args[i:i + 2]
    runs = int(args[0]) if args else 200
    order = ORDERS[order_name]
    url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    monitor = await psycopg.AsyncConnection.connect(url, autocommit=True)
    await monitor.execute("set client_min_messages = warning")
    buyers = {n: await psycopg.AsyncConnection.connect(url, autocommit=True)
              for n in ("adam", "omar")}
    pids = {}
    for n, c in buyers.items():
        cur = await c.execute("select pg_backend_pid()")
        (pids[n],) = await cur.fetchone()
    for _ in range(10):
        await run_once(monitor, buyers, pids, order)
    ms = []
    for _ in range(runs):
        start = time.perf_counter()
        rows = await run_once(monitor, buyers, pids, order)
        ms.append((time.perf_counter() - start) * 1000)
        assert rows == [("A7", "BOOKED", "omar")], rows
    await monitor.execute(f"drop table if exists {TABLE}")
    ms.sort()
    print(json.dumps({
        "driver": "psycopg",
        "order": order_name,
        "runs": runs,
        "median_ms": round(statistics.median(ms), 2),
        "p90_ms": round(ms[round((len(ms) - 1) * 0.9)], 2),
        "min_ms": round(ms[0], 2),
    }))


asyncio.run(main())
