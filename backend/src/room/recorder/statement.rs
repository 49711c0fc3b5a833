//! The one statement that writes a batch of records: every operation, each participant's told
//! seats, and their lease freed, bound as arrays.

use super::entry::{Entry, Told};

/// Every record of the batch, each participant's told seats and lease, in one statement.
/// Idempotent: an operation already recorded is not recorded again (the unique index of
/// migration 0003), so a batch can be sent again after a restart. A lease is freed, and the
/// payment left written, only by the record of the request that took it (a lease is its
/// `busy_until`, in microseconds since the epoch): a record that lands after a later request
/// took the participant's lease (the old one predated a restart, or ran out, or a new round
/// freed it) leaves that request's lease and payment alone.
const BATCH: &str = "
with recorded as (
    insert into lastseat_rooms.requests
           (room, round, actor, op_index, op, sql, result, seen, clock, sent_at, answered_at)
    select room, round, actor, i, op::jsonb, sql, result::jsonb, seen::jsonb, clock,
           to_timestamp(sent), to_timestamp(sent) + took * interval '1 millisecond'
      from unnest($1::text[], $2::int[], $3::text[], $4::int[], $5::text[], $6::text[],
                  $7::text[], $8::text[], $9::bigint[], $10::float8[], $11::float8[])
           as t(room, round, actor, i, op, sql, result, seen, clock, sent, took)
    on conflict (room, round, actor, op_index) do nothing
), holds as (
    insert into lastseat_rooms.told (room, round, n, seat, booked, until)
    select * from unnest($12::text[], $13::int[], $14::int[], $15::text[], $16::bool[],
                         $17::bigint[])
    on conflict (room, round, n, seat) do update set booked = excluded.booked, until = excluded.until
), paid as (
    update lastseat_rooms.told t set booked = true, until = null
      from unnest($18::text[], $19::int[], $20::int[]) as p(room, round, n)
     where t.room = p.room and t.round = p.round and t.n = p.n
), forgot as (
    delete from lastseat_rooms.told t
     using unnest($21::text[], $22::int[], $23::int[]) as f(room, round, n)
     where t.room = f.room and t.round = f.round and t.n = f.n
), freed as (
    update lastseat_rooms.participants q set busy_until = null, pending = f.pending::jsonb
      from unnest($24::text[], $25::int[], $26::text[], $27::int8[]) as f(room, n, pending, lease)
     where q.room = f.room and q.n = f.n
       and (extract(epoch from q.busy_until) * 1000000)::int8 = f.lease
)
select 1";

/// The arrays of one batch, bound in `BATCH`'s order.
#[derive(Default)]
struct Columns {
    op_room: Vec<String>,
    op_round: Vec<i32>,
    op_actor: Vec<String>,
    op_index: Vec<i32>,
    op: Vec<String>,
    sql: Vec<Option<String>>,
    result: Vec<String>,
    seen: Vec<String>,
    clock: Vec<i64>,
    sent: Vec<f64>,
    took: Vec<f64>,
    told: ToldRows,
    paid: (Vec<String>, Vec<i32>, Vec<i32>),
    forgot: (Vec<String>, Vec<i32>, Vec<i32>),
    freed: (Vec<String>, Vec<i32>, Vec<String>, Vec<i64>),
}

/// The told seats' rows: room, round, participant, seat, booked, held until.
#[derive(Default)]
struct ToldRows {
    room: Vec<String>,
    round: Vec<i32>,
    n: Vec<i32>,
    seat: Vec<String>,
    booked: Vec<bool>,
    until: Vec<Option<i64>>,
}

fn columns(entries: &[&Entry]) -> Columns {
    let mut c = Columns::default();
    for e in entries {
        for op in &e.ops {
            c.op_room.push(e.code.clone());
            c.op_round.push(e.round);
            c.op_actor.push(e.actor.clone());
            c.op_index.push(op.index);
            c.op.push(op.op.clone());
            c.sql.push(op.sql.clone());
            c.result.push(op.result.clone());
            c.seen.push(op.seen.clone());
            c.clock.push(op.clock);
            c.sent.push(op.sent);
            c.took.push(op.took_ms);
        }
        match &e.told {
            Told::Hold {
                seats,
                booked,
                until,
            } => {
                for seat in seats {
                    c.told.room.push(e.code.clone());
                    c.told.round.push(e.round);
                    c.told.n.push(e.n);
                    c.told.seat.push(seat.clone());
                    c.told.booked.push(*booked);
                    c.told.until.push(*until);
                }
            }
            Told::Paid | Told::Forget => {
                let to = if e.told == Told::Paid {
                    &mut c.paid
                } else {
                    &mut c.forgot
                };
                to.0.push(e.code.clone());
                to.1.push(e.round);
                to.2.push(e.n);
            }
            Told::Unchanged => {}
        }
        c.freed.0.push(e.code.clone());
        c.freed.1.push(e.n);
        c.freed.2.push(e.pending.clone());
        c.freed.3.push(e.lease);
    }
    c
}

pub(super) async fn statement(pool: &sqlx::PgPool, entries: &[&Entry]) -> Result<(), sqlx::Error> {
    let started = std::time::Instant::now();
    let c = columns(entries);
    let sent = sqlx::query(BATCH)
        .bind(c.op_room)
        .bind(c.op_round)
        .bind(c.op_actor)
        .bind(c.op_index)
        .bind(c.op)
        .bind(c.sql)
        .bind(c.result)
        .bind(c.seen)
        .bind(c.clock)
        .bind(c.sent)
        .bind(c.took)
        .bind(c.told.room)
        .bind(c.told.round)
        .bind(c.told.n)
        .bind(c.told.seat)
        .bind(c.told.booked)
        .bind(c.told.until)
        .bind(c.paid.0)
        .bind(c.paid.1)
        .bind(c.paid.2)
        .bind(c.forgot.0)
        .bind(c.forgot.1)
        .bind(c.forgot.2)
        .bind(c.freed.0)
        .bind(c.freed.1)
        .bind(c.freed.2)
        .bind(c.freed.3)
        .execute(pool)
        .await
        .map(|_| ());
    tracing::trace!(records = entries.len(), took = ?started.elapsed(), "a batch of records");
    sent
}
