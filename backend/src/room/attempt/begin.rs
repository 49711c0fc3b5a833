//! The start of a participant's request, in one round trip: the participant their token names,
//! the room, the participant's one-request lease (taken only while the race is on and no other
//! request of theirs is being answered) with the payment they still have to make, and what they
//! did earlier in the round, from which their client is rebuilt. A lease taken before the
//! database last started is free: the request that took it lost its connection in the restart
//! and was answered 503, so it can release nothing — unless this process is still sending that
//! request's record (`record::Settling`): then the lease is left alone, and the request is a 503
//! until the record is in. Who is settling is read before the statement is sent and weighed in
//! it, with the lease: read after its answer, a record that landed in between would have left
//! the request refused with a 409, as if another request of its participant were in flight.
//! The starts of the requests that arrive together go in one statement (`room/batch.rs`).

use std::sync::Arc;
use std::time::Instant;

use futures::future::join_all;

use crate::db::Fault;
use crate::room::batch::{self, Batcher};
use crate::room::error::RoomError;
use crate::room::participants::Participant;
use crate::room::phases;
use crate::room::record::Settling;
use crate::room::request::{decode_op, Planned, Recorded};
use crate::room::store::{self, Room};

/// A request begun: who, in which room, the lease if it was taken (else whether the
/// participant's last request is still being recorded), and the participant's earlier
/// operations this round.
pub(super) struct Begun {
    pub room: Room,
    pub who: Participant,
    pub lease: Option<Lease>,
    pub settling: bool,
    pub history: Vec<Recorded>,
}

/// A participant's one-request lease: which (its `busy_until`, in microseconds since the
/// epoch), the only one its record frees (`recorder.rs`), and the payment left.
pub(super) struct Lease {
    pub id: i64,
    pub pending: Vec<Planned>,
}

/// The participants named by the arrays: request `k` (the arrays' `k`-th place, from 1) names
/// room `$1[k]` and, in it, the token whose hash is `$2[k]` or participant number `$3[k]`. One
/// row per request whose participant exists, with its `k`; the lease (its `busy_until` in
/// microseconds, and the payment left) only for those who can have it (of two requests of one
/// participant in one batch, one gets it), never for those settling in this process (`$4`,
/// `$5`, `$6`: room, round and number of each), whose row says so instead. The history is read
/// in program order by a subquery of its own: that order is what makes the planner take the
/// index on (room, round, actor, op_index) even before the table's statistics know the round (a
/// fresh round, in its first minute). Left to the aggregate's own `order by`, it could as well
/// take another index on (room, round) and read every request of the round for each request.
fn begin_sql() -> String {
    format!(
        "with req as (
    select t.k, t.code, p.n, p.name, p.actor
      from unnest($1::text[], $2::bytea[], $3::int[]) with ordinality as t(code, token_hash, num, k)
     cross join lateral (
           select n, name, actor from lastseat_rooms.participants
            where room = t.code and token_hash = t.token_hash
           union all
           select n, name, actor from lastseat_rooms.participants
            where room = t.code and n = t.num
           ) as p
), r as (
    select {columns} from lastseat_rooms.rooms r where r.code in (select code from req)
), settling as (
    select req.k from req join r on r.code = req.code
     where exists (select from unnest($4::text[], $5::int[], $6::int[]) as s(code, round, n)
                    where s.code = req.code and s.round = r.round and s.n = req.n)
), leased as (
    update lastseat_rooms.participants q set busy_until = now() + interval '60 seconds'
      from req, r
     where q.room = req.code and q.n = req.n and r.code = req.code
       and r.phase = 'race' and r.race_at_ms <= r.now_ms
       and (q.busy_until is null or q.busy_until < now()
            or q.busy_until - interval '60 seconds' < pg_postmaster_start_time())
       and req.k not in (select k from settling)
    returning req.k, q.pending, (extract(epoch from q.busy_until) * 1000000)::int8 as lease
)
select req.k, r.*, req.n, req.name, req.actor, l.pending, l.lease,
       req.k in (select k from settling) as settling,
       (select coalesce(jsonb_agg(s.step order by s.op_index), '[]')
          from (select h.op_index, jsonb_build_array(h.op, h.result, h.seen, h.clock) as step
                  from lastseat_rooms.requests h
                 where h.room = req.code and h.round = r.round and h.actor = req.actor
                 order by h.op_index) as s) as history
  from req join r on r.code = req.code
  left join leased l on l.k = req.k",
        columns = store::ROOM_COLUMNS
    )
}

/// Who a request is of: the room, and the hash of their token or their number (a bot).
pub(super) struct Who {
    code: String,
    token_hash: Option<Vec<u8>>,
    n: Option<i32>,
}

type Found = Result<Option<sqlx::postgres::PgRow>, sqlx::Error>;

/// The requests' starts, batched (`room/batch.rs`): one statement for every request that
/// began meanwhile, on the leases' pool.
#[derive(Clone)]
pub struct Starts(Batcher<Who, Found>);

/// The receiving end, for `start`.
pub struct StartsWaiting(batch::Waiting<Who, Found>);

pub fn starts() -> (Starts, StartsWaiting) {
    let (batcher, waiting) = batch::channel();
    (Starts(batcher), StartsWaiting(waiting))
}

/// Starts the task that sends the batches on `pool`, leaving alone the leases of those
/// `settling`.
pub fn start(pool: sqlx::PgPool, settling: Arc<Settling>, StartsWaiting(waiting): StartsWaiting) {
    static SQL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let sql = SQL.get_or_init(begin_sql).as_str();
    waiting.start(
        // Two requests of one participant may share a batch: the lease goes to one of them.
        |_: &Who| None::<()>,
        move |batch| {
            let (pool, settling) = (pool.clone(), settling.clone());
            async move { send(&pool, &settling, sql, batch).await }
        },
    );
}

async fn send(pool: &sqlx::PgPool, settling: &Settling, sql: &str, batch: Vec<Who>) -> Vec<Found> {
    phases::batch(&phases::BEGIN_BATCH, batch.len());
    phases::ROUND_TRIPS.count(1);
    let mut sent = statement(pool, settling, sql, &batch).await;
    if matches!(&sent, Err(e) if Fault::is_lost(e)) {
        phases::ROUND_TRIPS.count(1);
        // The pool hands out its connections unchecked (a ping before each would be a round
        // trip more): after a restart they are dead. Those idle are closed, and the batch
        // tried once more on fresh ones.
        crate::db::discard_dead(pool).await;
        sent = statement(pool, settling, sql, &batch).await;
    }
    match sent {
        Ok(rows) => rows.into_iter().map(Ok).collect(),
        Err(e) if batch.len() == 1 => vec![Err(e)],
        Err(_) => {
            // Each on its own, so that each request is answered for itself.
            phases::ROUND_TRIPS.count(batch.len() as u64);
            join_all(batch.iter().map(|who| async move {
                let mut rows = statement(pool, settling, sql, std::slice::from_ref(who)).await?;
                Ok(rows.pop().flatten())
            }))
            .await
        }
    }
}

/// The rows of `batch`'s statement, in `batch`'s order (none for a participant not found).
/// Those settling are read now, before the statement is sent: the record of a participant no
/// longer settling has been committed already (`record::settle`), so the statement sees the
/// lease it freed.
async fn statement(
    pool: &sqlx::PgPool,
    settling: &Settling,
    sql: &str,
    batch: &[Who],
) -> Result<Vec<Option<sqlx::postgres::PgRow>>, sqlx::Error> {
    use sqlx::Row;
    let (settling_codes, settling_rounds, settling_ns) = settling.now();
    let rows = sqlx::query(sql)
        .bind(batch.iter().map(|w| w.code.as_str()).collect::<Vec<_>>())
        .bind(
            batch
                .iter()
                .map(|w| w.token_hash.clone())
                .collect::<Vec<_>>(),
        )
        .bind(batch.iter().map(|w| w.n).collect::<Vec<_>>())
        .bind(settling_codes)
        .bind(settling_rounds)
        .bind(settling_ns)
        .fetch_all(pool)
        .await?;
    let mut out: Vec<Option<sqlx::postgres::PgRow>> = batch.iter().map(|_| None).collect();
    for row in rows {
        let k: i64 = row.try_get("k")?;
        if let Some(slot) = usize::try_from(k - 1).ok().and_then(|i| out.get_mut(i)) {
            *slot = Some(row);
        }
    }
    Ok(out)
}

/// Begins a request of the participant whose token is `token`, in room `code`.
pub(super) async fn by_token(starts: &Starts, code: &str, token: &str) -> Result<Begun, RoomError> {
    begin(
        starts,
        Who {
            code: code.to_string(),
            token_hash: Some(store::hash(token)),
            n: None,
        },
    )
    .await
}

/// Begins a request of participant `n` (a bot) in room `code`.
pub(super) async fn by_number(starts: &Starts, code: &str, n: i32) -> Result<Begun, RoomError> {
    begin(
        starts,
        Who {
            code: code.to_string(),
            token_hash: None,
            n: Some(n),
        },
    )
    .await
}

async fn begin(starts: &Starts, who: Who) -> Result<Begun, RoomError> {
    let started = Instant::now();
    let found = starts
        .0
        .call(who)
        .await
        .unwrap_or(Err(sqlx::Error::PoolClosed));
    phases::BEGIN.since(started);
    read(found?)
}

fn read(row: Option<sqlx::postgres::PgRow>) -> Result<Begun, RoomError> {
    use sqlx::Row;
    // No room has no participants either: the token is not one of its participants'.
    let row = row.ok_or_else(|| {
        RoomError::Unauthorized(
            "that token is not one of this room's participants: join again".into(),
        )
    })?;
    let room = store::room_of(&row)?;
    let who = Participant {
        n: row.try_get("n")?,
        name: row.try_get("name")?,
        actor: row.try_get("actor")?,
    };
    let pending: Option<sqlx::types::Json<Vec<serde_json::Value>>> = row.try_get("pending")?;
    let lease: Option<i64> = row.try_get("lease")?;
    let lease = lease.zip(pending).map(|(id, pending)| Lease {
        id,
        pending: pending.0.iter().filter_map(decode_op).collect(),
    });
    let history: sqlx::types::Json<Vec<Recorded>> = row.try_get("history")?;
    Ok(Begun {
        room,
        who,
        lease,
        settling: row.try_get("settling")?,
        history: history.0,
    })
}
