//! What every screen shows: the room's phase and countdown, the seat map (read with
//! `shared::sql`'s snapshot statements), who joined, the feed of every request (who, the SQL,
//! what PostgreSQL answered, how long it took) and the scoreboard.

mod room_reads;
mod seats;

use serde_json::{json, Value};

use super::store::{self, Room};
use super::{RoomError, Rooms};

/// A request of the feed: actor, name, op, SQL, result, milliseconds it took.
type FeedRow = (
    String,
    Option<String>,
    String,
    Option<String>,
    shared::StepResult,
    f64,
);

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
    // Sent at once: the round's seats (on its pool, `seats.rs`) and the room's people,
    // scoreboard and feed (`room_reads.rs`), so that the state costs two round trips, not ten.
    let (round, (joined, double, refused, feed)) = futures::try_join!(
        seats::read(rooms, &room),
        room_reads::read(rooms, &room, clock)
    )?;
    let seats::SeatMap {
        seats,
        sold,
        never_released,
        refunds,
    } = seats::map(&room, round, &joined.actors, clock);
    let (people, bots) = (joined.people, joined.bots);
    let names = &joined.names;
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
        "participants": { "people": people, "bots": bots, "names": names.iter().map(|(n, name)| json!({"n": n, "name": name})).collect::<Vec<_>>() },
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
