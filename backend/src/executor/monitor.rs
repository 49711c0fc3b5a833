//! The monitor connection's queries: the committed tables after each entry, who is blocked by
//! whom, and cancelling what still waits at the end.

use std::sync::LazyLock;

use futures::future::BoxFuture;
use serde::Deserialize;
use shared::outcome::{BookingRow, SeatRow, Tables};
use shared::schedule::SeatStatus;
use shared::sql;
use sqlx::postgres::PgQueryResult;
use sqlx::{Executor, PgConnection};

use super::ExecError;

/// The four `SNAPSHOT_*` queries of `shared::sql` (the claimed usernames with the tickets) and
/// the counters' rows and the usernames' accounts
/// (`sql::counter::snapshot_all`) in one statement: one round trip, and one snapshot for all,
/// so the tables can never be read half-way through a commit.
static SNAPSHOT: LazyLock<String> = LazyLock::new(|| {
    format!(
        "select (select coalesce(json_agg(s), '[]')::text from ({}) s),
                (select coalesce(json_agg(b), '[]')::text
                   from (select * from ({}) t union all {}) b),
                (select coalesce(json_agg(r.holder), '[]')::text from ({}) r),
                ({}),
                (select coalesce(json_agg(c), '[]')::text from ({}) c)",
        sql::SNAPSHOT_SEATS,
        sql::SNAPSHOT_BOOKINGS,
        sql::username::SNAPSHOT_CLAIMS,
        sql::SNAPSHOT_REFUNDS,
        sql::SNAPSHOT_CLOCK,
        sql::counter::snapshot_all()
    )
});

/// `SNAPSHOT` and, in the same round trip, which of the sessions `$2` are gone (as `GONE`): the
/// last entry's snapshot and the end-of-run check at once.
static SNAPSHOT_AND_GONE: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{},
       array(select t.pid from unnest($2::int4[]) as t(pid)
              where not exists (select from pg_stat_activity a where a.pid = t.pid))",
        *SNAPSHOT
    )
});

/// Per session: blocked by one of `$2` (the run's actors), by whom, and the lock it waits for
/// (a tuple lock, a transaction's end…), which tells a new wait from the same one. The lock
/// table is read once for all of them (`pg_locks` copies the whole of it on every reading).
const BLOCKING: &str = "with w as materialized (
    select l.pid, string_agg(concat_ws(':', l.locktype, l.relation, l.page, l.tuple,
                                       l.transactionid, l.mode), ',') as awaiting
      from pg_locks l
     where not l.granted and l.pid = any($1)
     group by l.pid
)
select t.pid, pg_isolation_test_session_is_blocked(t.pid, $2), pg_blocking_pids(t.pid),
       coalesce(w.awaiting, '')
  from unnest($1::int4[]) as t(pid) left join w on w.pid = t.pid";

/// Of the sessions `$1`, those that are gone.
const GONE: &str = "select t.pid from unnest($1::int4[]) as t(pid)
  where not exists (select from pg_stat_activity a where a.pid = t.pid)";

const CANCEL: &str = "select pg_cancel_backend(pid) from unnest($1::int4[]) as t(pid)";

#[derive(Deserialize)]
struct SeatJson {
    seat_id: String,
    status: String,
    holder: Option<String>,
    hold_id: Option<String>,
    held_until: Option<i64>,
}

#[derive(Deserialize)]
struct CounterJson {
    id: String,
    value: i64,
}

#[derive(Deserialize)]
struct BookingJson {
    seat_id: String,
    holder: String,
    booking_id: String,
}

/// The committed tables, as a fresh transaction would read them.
pub(crate) async fn snapshot(conn: &mut PgConnection, show: i64) -> Result<Tables, ExecError> {
    let (seats, bookings, refunds, clock, counters): (String, String, String, i64, String) =
        sqlx::query_as(&SNAPSHOT).bind(show).fetch_one(conn).await?;
    tables(seats, bookings, refunds, clock, counters)
}

/// `snapshot`, and which of the sessions `pids` are gone (`gone`), in one round trip.
pub(crate) async fn snapshot_and_gone(
    conn: &mut PgConnection,
    show: i64,
    pids: &[i32],
) -> Result<(Tables, Vec<i32>), ExecError> {
    type Row = (String, String, String, i64, String, Vec<i32>);
    let (seats, bookings, refunds, clock, counters, gone): Row = sqlx::query_as(&SNAPSHOT_AND_GONE)
        .bind(show)
        .bind(pids)
        .fetch_one(conn)
        .await?;
    Ok((tables(seats, bookings, refunds, clock, counters)?, gone))
}

/// The tables, from the snapshot's JSON columns (a counter's rows are its seats).
fn tables(
    seats: String,
    bookings: String,
    refunds: String,
    clock: i64,
    counters: String,
) -> Result<Tables, ExecError> {
    let bad =
        |e: serde_json::Error| ExecError::Unexpected(format!("a snapshot did not parse: {e}"));
    let seats: Vec<SeatJson> = serde_json::from_str(&seats).map_err(bad)?;
    let bookings: Vec<BookingJson> = serde_json::from_str(&bookings).map_err(bad)?;
    let mut refunds: Vec<String> = serde_json::from_str(&refunds).map_err(bad)?;
    let mut seats = seats
        .into_iter()
        .map(|s| {
            let status = SeatStatus::from_sql(&s.status)
                .ok_or_else(|| ExecError::Unexpected(format!("seat status {:?}", s.status)))?;
            Ok(SeatRow {
                id: s.seat_id,
                status,
                holder: s.holder,
                hold_id: s.hold_id,
                until: s.held_until,
                value: None,
            })
        })
        .collect::<Result<Vec<_>, ExecError>>()?;
    let counters: Vec<CounterJson> = serde_json::from_str(&counters).map_err(bad)?;
    seats.extend(
        counters
            .into_iter()
            .map(|c| SeatRow::counter(c.id, c.value)),
    );
    let mut bookings: Vec<BookingRow> = bookings
        .into_iter()
        .map(|b| BookingRow {
            seat: b.seat_id,
            holder: b.holder,
            booking_id: b.booking_id,
        })
        .collect();
    // Sorted here, byte-wise as the model sorts, whatever the database's collation.
    seats.sort_by(|a, b| a.id.cmp(&b.id));
    bookings.sort_by(|a, b| (&a.seat, &a.booking_id).cmp(&(&b.seat, &b.booking_id)));
    refunds.sort();
    Ok(Tables {
        clock,
        seats,
        bookings,
        refunds,
    })
}

/// The tables with every name of a username scenario, those no account has included (value 0),
/// as the model writes them.
pub(crate) fn complete(schedule: &shared::schedule::Schedule, mut tables: Tables) -> Tables {
    sql::username::complete(schedule.scenario(), &mut tables.seats);
    tables
}

/// One session's lock state.
pub(crate) struct Blocking {
    pub pid: i32,
    /// Waiting for a lock that one of the run's actors holds or is queued for ahead of it.
    pub blocked: bool,
    pub by: Vec<i32>,
    /// The lock it waits for, if any.
    pub awaiting: String,
}

/// The lock state of the sessions `pids`, as blocked by any of `actors`.
pub(crate) async fn blocking(
    conn: &mut PgConnection,
    pids: &[i32],
    actors: &[i32],
) -> Result<Vec<Blocking>, sqlx::Error> {
    let rows: Vec<(i32, bool, Vec<i32>, String)> = sqlx::query_as(BLOCKING)
        .bind(pids)
        .bind(actors)
        .fetch_all(conn)
        .await?;
    Ok(rows
        .into_iter()
        .map(|(pid, blocked, by, awaiting)| Blocking {
            pid,
            blocked,
            by,
            awaiting,
        })
        .collect())
}

/// Of the sessions `pids`, those that are gone (ended from outside, or by a restart).
pub(crate) async fn gone(conn: &mut PgConnection, pids: &[i32]) -> Result<Vec<i32>, sqlx::Error> {
    sqlx::query_scalar(GONE).bind(pids).fetch_all(conn).await
}

/// Cancels the statements the sessions `pids` are running (a session that is idle ignores it).
pub(crate) fn cancel<'c>(
    conn: &'c mut PgConnection,
    pids: &'c [i32],
) -> BoxFuture<'c, Result<PgQueryResult, sqlx::Error>> {
    Box::pin(sqlx::query(CANCEL).bind(pids).execute(conn))
}

/// Runs `sql` as one simple query (several statements, no parameters). Boxed so that the
/// future's `Send` is checked at one lifetime: spawned clean-ups need it.
pub(crate) fn simple<'c>(
    conn: &'c mut PgConnection,
    sql: &'c str,
) -> BoxFuture<'c, Result<PgQueryResult, sqlx::Error>> {
    conn.execute(sqlx::raw_sql(sql))
}
