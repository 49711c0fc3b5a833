//! The records of this process's requests, batched (`batch.rs`): one task sends every record
//! handed to it since its last statement in one statement (one transaction, one synchronous
//! commit), and answers each request once that commit is done. While one batch is on its way
//! the records that arrive wait for the next, so that a busy process costs one commit per WAL
//! flush, not one per request, and a quiet one records at once.
//!
//! Each record was one statement of its own: 32 clients meant 32 transactions waiting for the
//! disk at once, each holding a key-share lock on its room's row (the requests' foreign key),
//! so that every new one made PostgreSQL write a new multixact of all the others. In a batch the
//! room's row is locked once per commit. Once a batch is in, this process's streams of its
//! rooms are marked for a rebuild at once (without waiting for a notification to come back),
//! and the other processes are notified by `notifier.rs`, off the requests' way: a NOTIFY in
//! the batch's own commit would make it wait for every notifying commit of the server.
//!
//! A batch that fails is sent again record by record, so that each request gets its own answer
//! (a fault for all of them while the database restarts; `record.rs` sends again). Two records
//! of one participant never share a batch: the second waits for the next one (`batch.rs`).

use std::collections::BTreeSet;

use futures::future::join_all;

use super::batch::{self, Batcher};
use super::{phases, Rooms};

/// One request's record: its operations, what its phone was told, and its participant freed.
#[derive(Clone, Debug)]
pub struct Entry {
    pub code: String,
    pub round: i32,
    pub n: i32,
    pub actor: String,
    pub ops: Vec<Op>,
    /// How the phone's told seats change (`record::told`): hold, paid, forget or none.
    pub mode: &'static str,
    pub seats: Vec<String>,
    pub booked: bool,
    pub until: Option<i64>,
    /// The payment left, as the JSON of its ops.
    pub pending: String,
    /// The lease the request took (`attempt/begin.rs`): freed, with the payment left, only if
    /// the participant still holds it.
    pub lease: i64,
}

/// One operation as recorded: its index, the op (JSON), the SQL sent, the result and the rows
/// seen (JSON), the clock, when it was sent (seconds since the epoch) and how long it took.
#[derive(Clone, Debug)]
pub struct Op {
    pub index: i32,
    pub op: String,
    pub sql: Option<String>,
    pub result: String,
    pub seen: String,
    pub clock: i64,
    pub sent: f64,
    pub took_ms: f64,
}

/// The handle requests give their records to.
pub struct Recorder(Batcher<Entry, Result<(), sqlx::Error>>);

/// The receiving end, for `start`.
pub struct Jobs(batch::Waiting<Entry, Result<(), sqlx::Error>>);

pub fn channel() -> (Recorder, Jobs) {
    let (batcher, waiting) = batch::channel();
    (Recorder(batcher), Jobs(waiting))
}

impl Recorder {
    /// Records `entry` with the next batch; done once its commit is.
    pub async fn record(&self, entry: Entry) -> Result<(), sqlx::Error> {
        self.0
            .call(entry)
            .await
            .unwrap_or(Err(sqlx::Error::PoolClosed))
    }
}

/// Starts the task that sends the batches on `rooms`' pool.
pub fn start(rooms: &Rooms, Jobs(waiting): Jobs) {
    let rooms = rooms.clone();
    waiting.start(
        |e: &Entry| Some((e.code.clone(), e.n)),
        move |batch| {
            let rooms = rooms.clone();
            async move { send(&rooms, batch).await }
        },
    );
}

/// Sends `batch` in one statement; a result for each entry.
async fn send(rooms: &Rooms, batch: Vec<Entry>) -> Vec<Result<(), sqlx::Error>> {
    phases::batch(&phases::RECORD_BATCH, batch.len());
    phases::ROUND_TRIPS.count(1);
    let entries: Vec<&Entry> = batch.iter().collect();
    match statement(rooms.pool(), &entries).await {
        Ok(()) => {
            changed(rooms, &entries);
            batch.iter().map(|_| Ok(())).collect()
        }
        Err(e) if batch.len() == 1 => vec![Err(e)],
        Err(_) => {
            // Each on its own, so that each request is answered for what it sent.
            phases::ROUND_TRIPS.count(batch.len() as u64);
            let results = join_all(
                entries
                    .iter()
                    .map(|e| async move { statement(rooms.pool(), &[e]).await }),
            )
            .await;
            for (entry, result) in entries.iter().zip(&results) {
                if result.is_ok() {
                    changed(rooms, &[entry]);
                }
            }
            results
        }
    }
}

/// The rooms of `entries` changed: this process's streams of them are marked for a rebuild
/// now, and the other processes are told by a NOTIFY (`notifier.rs`: coalesced, in a
/// transaction of its own, off the requests' way).
fn changed(rooms: &Rooms, entries: &[&Entry]) {
    let codes: BTreeSet<&str> = entries.iter().map(|e| e.code.as_str()).collect();
    for code in codes {
        rooms.inner().live.changed(code);
        rooms.changed(code);
    }
}

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
    told: Told,
    paid: (Vec<String>, Vec<i32>, Vec<i32>),
    forgot: (Vec<String>, Vec<i32>, Vec<i32>),
    freed: (Vec<String>, Vec<i32>, Vec<String>, Vec<i64>),
}

/// The told seats' rows: room, round, participant, seat, booked, held until.
#[derive(Default)]
struct Told {
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
        match e.mode {
            "hold" => {
                for seat in &e.seats {
                    c.told.room.push(e.code.clone());
                    c.told.round.push(e.round);
                    c.told.n.push(e.n);
                    c.told.seat.push(seat.clone());
                    c.told.booked.push(e.booked);
                    c.told.until.push(e.until);
                }
            }
            "paid" | "forget" => {
                let to = if e.mode == "paid" {
                    &mut c.paid
                } else {
                    &mut c.forgot
                };
                to.0.push(e.code.clone());
                to.1.push(e.round);
                to.2.push(e.n);
            }
            _ => {}
        }
        c.freed.0.push(e.code.clone());
        c.freed.1.push(e.n);
        c.freed.2.push(e.pending.clone());
        c.freed.3.push(e.lease);
    }
    c
}

async fn statement(pool: &sqlx::PgPool, entries: &[&Entry]) -> Result<(), sqlx::Error> {
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
