//! The start of a participant's request, in one round trip: the participant their token names,
//! the room, the participant's one-request lease (taken only while the race is on and no other
//! request of theirs is being answered) with the payment they still have to make, and what they
//! did earlier in the round, from which their client is rebuilt. A lease taken before the
//! database last started is free: the request that took it lost its connection in the restart
//! and was answered 503, so it can release nothing.

use shared::outcome::{SeenRow, StepResult};

use super::{decode_op, Planned};
use crate::room::store::{self, Participant, Room};
use crate::room::RoomError;

/// An operation as recorded: the op with its `"if"`, its result, the rows it saw, the clock.
pub(super) type Recorded = (serde_json::Value, StepResult, Vec<SeenRow>, i64);

/// A request begun: who, in which room, the lease (the payment left) if it was taken, and the
/// participant's earlier operations this round.
pub(super) struct Begun {
    pub room: Room,
    pub who: Participant,
    pub pending: Option<Vec<Planned>>,
    pub history: Vec<Recorded>,
}

/// The participant named by `$2` (a token's hash) or `$3` (their number), in room `$1`. The
/// history is read in program order by a subquery of its own: that order is what makes the
/// planner take the index on (room, round, actor, op_index) even before the table's statistics
/// know the round (a fresh round, in its first minute). Left to the aggregate's own `order by`,
/// it could as well take another index on (room, round) and read every request of the round
/// for each request.
fn begin_sql(by_token: bool) -> String {
    let who = if by_token {
        "token_hash = $2"
    } else {
        "n = $3"
    };
    format!(
        "with r as (
    select {columns} from lastseat_rooms.rooms where code = $1
), p as (
    select n, name, actor from lastseat_rooms.participants where room = $1 and {who}
), leased as (
    update lastseat_rooms.participants q set busy_until = now() + interval '60 seconds'
      from p, r
     where q.room = $1 and q.n = p.n and r.phase = 'race' and r.race_at_ms <= r.now_ms
       and (q.busy_until is null or q.busy_until < now()
            or q.busy_until - interval '60 seconds' < pg_postmaster_start_time())
    returning q.pending
)
select r.*, p.n, p.name, p.actor, (select pending from leased) as pending,
       (select coalesce(jsonb_agg(s.step order by s.op_index), '[]')
          from (select h.op_index, jsonb_build_array(h.op, h.result, h.seen, h.clock) as step
                  from lastseat_rooms.requests h
                 where h.room = $1 and h.round = r.round and h.actor = p.actor
                 order by h.op_index) as s) as history
  from r join p on true",
        columns = store::ROOM_COLUMNS
    )
}

/// Begins a request of the participant whose token is `token`, in room `code`.
pub(super) async fn by_token(
    pool: &sqlx::PgPool,
    code: &str,
    token: &str,
) -> Result<Begun, RoomError> {
    let row = sqlx::query(&begin_sql(true))
        .bind(code)
        .bind(store::hash(token))
        .bind(None::<i32>)
        .fetch_optional(pool)
        .await?;
    read(row)
}

/// Begins a request of participant `n` (a bot) in room `code`.
pub(super) async fn by_number(pool: &sqlx::PgPool, code: &str, n: i32) -> Result<Begun, RoomError> {
    let row = sqlx::query(&begin_sql(false))
        .bind(code)
        .bind(None::<Vec<u8>>)
        .bind(n)
        .fetch_optional(pool)
        .await?;
    read(row)
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
    let pending = pending.map(|p| p.0.iter().filter_map(decode_op).collect());
    let history: sqlx::types::Json<Vec<Recorded>> = row.try_get("history")?;
    Ok(Begun {
        room,
        who,
        pending,
        history: history.0,
    })
}
