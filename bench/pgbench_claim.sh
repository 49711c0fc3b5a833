#!/usr/bin/env bash
# pgbench running the atomic defence's conditional UPDATE on the same database as the server,
# in a schema of its own made from migrations/0001 (dropped afterwards).
#
#   bench/pgbench_claim.sh losing 8      32 clients, 10 s, 8 seats all held: UPDATE 0
#   bench/pgbench_claim.sh winning 500   32 clients, 10 s, 500 free seats: claim, then release
#   bench/pgbench_claim.sh recorded 500  the same, each followed by an insert of a record row
#
# DATABASE_URL as for the server (default postgres://postgres@127.0.0.1:5432/postgres);
# CLIENTS (32), SECONDS_ (10) and JOBS (2) change the run.
set -euo pipefail
kind=${1:?losing or winning}
seats=${2:?how many seats}
url=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
schema=bench_claim_$$
trap 'psql -q "$url" -c "drop schema if exists $schema cascade" >/dev/null 2>&1' EXIT
{
    echo "set client_min_messages = warning; create schema $schema; set search_path to $schema;"
    cat "$here/../migrations/0001_booking.sql"
    echo "create table bench_records (at timestamptz not null default now(), client int, op text);"
    echo "insert into show_seats (show_id, seat_id, status, holder, hold_id, held_until)"
    if [ "$kind" = losing ]; then
        echo "select 501, 'A' || i, 'HELD', 'someone', 'someone:1', 60 from generate_series(1, $seats) i;"
    else
        echo "select 501, 'A' || i, 'AVAILABLE', null, null, null from generate_series(1, $seats) i;"
    fi
} | psql -q -v ON_ERROR_STOP=1 "$url" >/dev/null
case $kind in
    losing) script=$here/claim_losing.sql ;;
    recorded) script=$here/claim_release_recorded.sql ;;
    *) script=$here/claim_release.sql ;;
esac
PGOPTIONS="-c search_path=$schema" pgbench -n -M prepared -c "${CLIENTS:-32}" -j "${JOBS:-2}" \
    -T "${SECONDS_:-10}" -D seats="$seats" -f "$script" "$url" 2>&1 |
    grep -E 'tps|latency|transactions actually'
