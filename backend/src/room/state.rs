//! What every screen shows: the room's phase and countdown, the seat map (read with
//! `shared::sql`'s snapshot statements), who joined, the feed of every request (who, the SQL,
//! what PostgreSQL answered, how long it took) and the scoreboard.

use std::collections::HashMap;

use serde_json::{json, Value};
use shared::sql;

use super::booking::SHOW;
use super::settings::seat_ids;
use super::store::{self, Room};
use super::{RoomError, Rooms};

/// A row of `shared::sql::SNAPSHOT_SEATS`: seat, status, holder, hold id, held until.
type SeatRow = (String, String, Option<String>, Option<String>, Option<i64>);

/// A request of the feed: actor, name, op, SQL, result, milliseconds it took.
type FeedRow = (
    String,
    Option<String>,
    String,
    Option<String>,
    sqlx::types::Json<shared::StepResult>,
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
    let pool = rooms.pool();
    // Read first: a screen that sees no bot racing sees every seat they took.
    let bots_racing = rooms
        .inner()
        .bots_running
        .load(std::sync::atomic::Ordering::SeqCst);
    let room = store::load(pool, code).await?;
    let clock = super::clock::clock_now(&room);
    // Every read below is independent of the others: sent at once, each on a connection of its
    // own, so the state costs about two round trips, not ten.
    let seat_map = seat_map(rooms, &room, clock);
    let counts = sqlx::query_as::<_, (i64, i64)>(
        "select count(*) filter (where not bot), count(*) filter (where bot) from lastseat_rooms.participants where room = $1",
    )
    .bind(code)
    .fetch_one(pool);
    let names = sqlx::query_as::<_, (i32, String)>(
        "select n, name from lastseat_rooms.participants where room = $1 and not bot order by n limit $2",
    )
    .bind(code)
    .bind(NAMES)
    .fetch_all(pool);
    let double = sqlx::query_scalar::<_, i64>(
        "select count(*) from (select seat from lastseat_rooms.told where room = $1 and round = $2
            and (booked or until >= $3) group by seat having count(*) > 1) as t",
    )
    .bind(code)
    .bind(room.round)
    .bind(clock)
    .fetch_one(pool);
    let refused = sqlx::query_scalar::<_, i64>(
        "select count(*) from lastseat_rooms.requests where room = $1 and round = $2 and result->>'code' = '23505'",
    )
    .bind(code)
    .bind(room.round)
    .fetch_one(pool);
    let feed = sqlx::query_as::<_, FeedRow>(
        "select r.actor, p.name, r.op->>'op', r.sql, r.result,
                extract(epoch from r.answered_at - r.sent_at)::float8 * 1000
           from lastseat_rooms.requests r
           left join lastseat_rooms.participants p on p.room = r.room and p.actor = r.actor
          where r.room = $1 and r.round = $2 order by r.id desc limit $3",
    )
    .bind(code)
    .bind(room.round)
    .bind(FEED)
    .fetch_all(pool);
    let (map, (people, bots), names, double, refused, feed) = futures::try_join!(
        seat_map,
        async { counts.await.map_err(RoomError::from) },
        async { names.await.map_err(RoomError::from) },
        async { double.await.map_err(RoomError::from) },
        async { refused.await.map_err(RoomError::from) },
        async { feed.await.map_err(RoomError::from) },
    )?;
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
            "answer": result.0.short(),
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

async fn seat_map(rooms: &Rooms, room: &Room, clock: i64) -> Result<SeatMap, RoomError> {
    let (pool, code) = (rooms.pool(), room.code.as_str());
    let mut seats: Vec<Value> = Vec::new();
    let (mut sold, mut never_released, mut refunds) = (0, 0, 0);
    if room.round > 0 {
        let round = rooms.inner().pools.of(&room.schema());
        let (rows, refund_rows, tickets) = futures::try_join!(
            sqlx::query_as::<_, SeatRow>(sql::SNAPSHOT_SEATS)
                .bind(SHOW)
                .fetch_all(&round),
            sqlx::query_as::<_, (String,)>(sql::SNAPSHOT_REFUNDS).fetch_all(&round),
            sqlx::query_as::<_, (String, String, String)>(sql::SNAPSHOT_BOOKINGS)
                .bind(SHOW)
                .fetch_all(&round),
        )?;
        let ticketed: std::collections::BTreeSet<&str> =
            tickets.iter().map(|t| t.0.as_str()).collect();
        refunds = refund_rows.len();
        let holders: Vec<String> = rows.iter().filter_map(|r| r.2.clone()).collect();
        let names: HashMap<String, String> = sqlx::query_as(
            "select actor, name from lastseat_rooms.participants where room = $1 and actor = any($2)",
        )
        .bind(code)
        .bind(&holders)
        .fetch_all(pool)
        .await?
        .into_iter()
        .collect();
        for (id, status, holder, _, until) in rows {
            sold += (status == "BOOKED" || ticketed.contains(id.as_str())) as usize;
            let expired = status == "HELD" && until.is_some_and(|u| u < clock);
            never_released += expired as usize;
            seats.push(json!({
                "id": id,
                "status": if expired { "EXPIRED" } else { status.as_str() },
                "holder": holder.as_ref().map(|h| names.get(h).cloned().unwrap_or_else(|| h.clone())),
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
