//! What every screen shows: the room's phase and countdown, the seat map (read with
//! `shared::sql`'s snapshot statements), who joined, the feed of every request (who, the SQL,
//! what PostgreSQL answered, how long it took) and the scoreboard.

use serde_json::{json, Value};
use shared::sql;

use super::booking::SHOW;
use super::joined::Joined;
use super::settings::seat_ids;
use super::store::{self, Room};
use super::{RoomError, Rooms};

/// A seat of the map: seat, status, holder, held until, the holder's name.
type SeatRow = (String, String, Option<String>, Option<i64>, Option<String>);

/// A request of the feed: actor, name, op, SQL, result, milliseconds it took.
type FeedRow = (
    String,
    Option<String>,
    String,
    Option<String>,
    shared::StepResult,
    f64,
);

/// How many of the latest requests the feed shows.
const FEED: i64 = 40;
/// How many participants' names the state lists (the rest are counted).
const NAMES: i64 = 200;

/// The phase as a screen shows it: lobby, countdown, race or results.
pub fn phase(room: &Room) -> &'static str {
    match room.phase.as_str() {
        "race" if !room.racing() => "countdown",
        "race" => "race",
        "results" => "results",
        _ => "lobby",
    }
}

/// The whole state of room `code`.
pub async fn build(rooms: &Rooms, code: &str) -> Result<Value, RoomError> {
    let started = std::time::Instant::now();
    let state = build_now(rooms, code).await;
    super::phases::REBUILD.since(started);
    state
}

async fn build_now(rooms: &Rooms, code: &str) -> Result<Value, RoomError> {
    let pool = rooms.pool();
    // Read first: a screen that sees no bot racing sees every seat they took.
    let bots_racing = rooms
        .inner()
        .bots_running
        .load(std::sync::atomic::Ordering::SeqCst);
    let room = store::load(pool, code).await?;
    let clock = super::clock::clock_now(&room);
    // Two statements, sent at once: the round's seats (on its pool) and the room's people,
    // scoreboard and feed (`ROOM_READS`), so that the state costs two round trips, not ten.
    let seat_map = seat_map(rooms, &room, clock);
    let reads = room_reads(rooms, &room, clock);
    let (map, (joined, double, refused, feed)) = futures::try_join!(seat_map, reads)?;
    let Joined {
        people,
        bots,
        names,
        ..
    } = joined;
    let SeatMap {
        seats,
        sold,
        never_released,
        refunds,
    } = map;
    let redis = if room.settings.defence.starts_with("redis") {
        rooms.inner().redis.check().await.err()
    } else {
        None
    };
    Ok(json!({
        "code": room.code,
        "round": room.round,
        "phase": phase(&room),
        "race_at_ms": room.race_at_ms,
        "now_ms": room.now_ms,
        "clock": clock,
        "settings": room.settings,
        "redis_unavailable": redis,
        "bots_racing": bots_racing,
        "participants": { "people": people, "bots": bots, "names": names.into_iter().map(|(n, name)| json!({"n": n, "name": name})).collect::<Vec<_>>() },
        "seats": seats,
        "scoreboard": {
            "sold": sold,
            "double_bookings": double,
            "unique_refusals": refused,
            "refunds_owed": refunds,
            "holds_never_released": never_released,
        },
        "feed": feed.into_iter().map(|(actor, name, op, sql, result, ms)| json!({
            "who": name.unwrap_or(actor),
            "op": op,
            "sql": sql,
            "answer": result.short(),
            "waited_ms": (ms * 10.0).round() / 10.0,
        })).collect::<Vec<_>>(),
    }))
}

/// The seat map and what it counts: seats sold, holds run out and never released, refunds.
struct SeatMap {
    seats: Vec<Value>,
    sold: usize,
    never_released: usize,
    refunds: usize,
}

/// The room's reads other than its seats, in one statement: the highest participant number
/// and, only if it is not `$6` (what this process counted last, `joined.rs`), the people and
/// bots and the first names; the double bookings (seats two participants are told they have at
/// once, at clock `$4`), the tickets the unique key refused, and the feed's latest requests.
/// Each is a subquery that keeps the index it had as a statement of its own (migration 0003's);
/// a subquery in a `case` branch not taken is never run.
const ROOM_READS: &str = "
select m.last_n,
       case when m.last_n is distinct from $6 then
           (select count(*) from lastseat_rooms.participants where room = $1 and not bot) end
           as people,
       case when m.last_n is distinct from $6 then
           (select count(*) from lastseat_rooms.participants where room = $1 and bot) end
           as bots,
       case when m.last_n is distinct from $6 then
           (select coalesce(jsonb_agg(jsonb_build_array(x.n, x.name) order by x.n), '[]')
              from (select n, name from lastseat_rooms.participants
                     where room = $1 and not bot order by n limit $2) as x) end as names,
       (select count(*) from (select seat from lastseat_rooms.told where room = $1 and round = $3
                                 and (booked or until >= $4) group by seat having count(*) > 1) as t)
           as double,
       (select count(*) from lastseat_rooms.requests
         where room = $1 and round = $3 and result->>'code' = '23505') as refused,
       (select coalesce(jsonb_agg(jsonb_build_array(f.actor, f.name, f.op, f.sql, f.result, f.ms)
                                  order by f.id desc), '[]')
          from (select r.id, r.actor, p.name, r.op->>'op' as op, r.sql, r.result,
                       extract(epoch from r.answered_at - r.sent_at)::float8 * 1000 as ms
                  from lastseat_rooms.requests r
                  left join lastseat_rooms.participants p on p.room = r.room and p.actor = r.actor
                 where r.room = $1 and r.round = $3 order by r.id desc limit $5) as f) as feed
  from (select coalesce(max(n), 0) as last_n from lastseat_rooms.participants where room = $1)
       as m";

/// `ROOM_READS`' row.
type RoomReads = (
    i32,
    Option<i64>,
    Option<i64>,
    Option<sqlx::types::Json<Vec<(i32, String)>>>,
    i64,
    i64,
    sqlx::types::Json<Vec<FeedRow>>,
);

/// Who joined, the double bookings, the unique key's refusals and the feed of `room` at `clock`.
async fn room_reads(
    rooms: &Rooms,
    room: &Room,
    clock: i64,
) -> Result<(Joined, i64, i64, Vec<FeedRow>), RoomError> {
    let cache = &rooms.inner().joined;
    let mut known = cache.last_n(&room.code);
    loop {
        let (last_n, people, bots, names, double, refused, feed) =
            sqlx::query_as::<_, RoomReads>(ROOM_READS)
                .bind(&room.code)
                .bind(NAMES)
                .bind(room.round)
                .bind(clock)
                .bind(FEED)
                .bind(known)
                .fetch_one(rooms.pool())
                .await?;
        let joined = match (people, bots, names) {
            (Some(people), Some(bots), Some(names)) => {
                let joined = Joined {
                    last_n,
                    people,
                    bots,
                    names: names.0,
                };
                cache.keep(&room.code, joined.clone());
                Some(joined)
            }
            _ => cache.at(&room.code, last_n),
        };
        match joined {
            Some(joined) => return Ok((joined, double, refused, feed.0)),
            // Another rebuild kept a later count meanwhile: count again.
            None if known.is_some() => known = None,
            None => {
                return Err(RoomError::Internal(
                    "the room's participants were not counted".into(),
                ))
            }
        }
    }
}

/// The round's seats with their holders' names (`shared::sql::SNAPSHOT_SEATS`), its tickets
/// (`SNAPSHOT_BOOKINGS`) and its refunds owed (`SNAPSHOT_REFUNDS`), in one statement on the
/// round's pool (`$1` the show, `$2` the room).
fn round_reads() -> String {
    format!(
        "select (select coalesce(jsonb_agg(jsonb_build_array(s.seat_id, s.status, s.holder,
                                                      s.held_until, p.name)
                                    order by s.seat_id), '[]')
           from ({seats}) as s
           left join lastseat_rooms.participants p on p.room = $2 and p.actor = s.holder) as seats,
        (select coalesce(jsonb_agg(b.seat_id), '[]') from ({bookings}) as b) as tickets,
        (select count(*) from ({refunds}) as f) as refunds",
        seats = sql::SNAPSHOT_SEATS,
        bookings = sql::SNAPSHOT_BOOKINGS,
        refunds = sql::SNAPSHOT_REFUNDS,
    )
}

async fn seat_map(rooms: &Rooms, room: &Room, clock: i64) -> Result<SeatMap, RoomError> {
    static ROUND_READS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let mut seats: Vec<Value> = Vec::new();
    let (mut sold, mut never_released, mut refunds) = (0, 0, 0);
    if room.round > 0 {
        let round = rooms.inner().pools.of(&room.schema());
        let (rows, tickets, refund_count): (
            sqlx::types::Json<Vec<SeatRow>>,
            sqlx::types::Json<Vec<String>>,
            i64,
        ) = sqlx::query_as(ROUND_READS.get_or_init(round_reads))
            .bind(SHOW)
            .bind(&room.code)
            .fetch_one(&round)
            .await?;
        let ticketed: std::collections::BTreeSet<&str> =
            tickets.0.iter().map(String::as_str).collect();
        refunds = refund_count as usize;
        for (id, status, holder, until, name) in rows.0 {
            sold += (status == "BOOKED" || ticketed.contains(id.as_str())) as usize;
            let expired = status == "HELD" && until.is_some_and(|u| u < clock);
            never_released += expired as usize;
            seats.push(json!({
                "id": id,
                "status": if expired { "EXPIRED" } else { status.as_str() },
                "holder": holder.as_ref().map(|h| name.unwrap_or_else(|| h.clone())),
                // The holder's actor name: a phone knows its own seats by it (names may repeat).
                "actor": holder,
                "until": until,
                "ticket": ticketed.contains(id.as_str()),
            }));
        }
    } else {
        seats = seat_ids(room.settings.seats)
            .into_iter()
            .map(|id| json!({ "id": id, "status": "AVAILABLE" }))
            .collect();
    }
    Ok(SeatMap {
        seats,
        sold,
        never_released,
        refunds,
    })
}
