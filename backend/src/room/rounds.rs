//! The facilitator's controls of a room's rounds: start one (a fresh booking schema, and a
//! race that opens after a 3-2-1 countdown on the server's clock), finish it, reset the room to
//! its lobby, change the settings between rounds.

use super::settings::{Change, Settings};
use super::store::{self, schema_name, Room};
use super::{booking, RoomError, Rooms};

/// The countdown before a race opens, in seconds.
pub const COUNTDOWN: i64 = 3;

/// Starts the next round: fresh seats, the race opening `countdown_ms` from now.
pub async fn start(rooms: &Rooms, room: &Room, countdown_ms: i64) -> Result<i32, RoomError> {
    if room.settings.defence.starts_with("redis") {
        rooms
            .inner()
            .redis
            .check()
            .await
            .map_err(RoomError::Unavailable)?;
    }
    let pool = rooms.pool();
    let next = room.round + 1;
    let schema = schema_name(&room.code, next);
    booking::create_round(pool, &schema, room.settings.seats).await?;
    let s = &room.settings;
    let mut tx = pool.begin().await?;
    let updated = sqlx::query(
        "update lastseat_rooms.rooms set round = $2, phase = 'race', clock = 0, touched_at = now(),
                race_at = clock_timestamp() + $3 * interval '1 millisecond'
          where code = $1 and round = $4",
    )
    .bind(&room.code)
    .bind(next)
    .bind(countdown_ms as f64)
    .bind(room.round)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if updated == 0 {
        drop(tx);
        booking::drop_round(pool, &schema).await;
        return Err(RoomError::Conflict(
            "another round was started at the same moment".into(),
        ));
    }
    sqlx::query(
        "insert into lastseat_rooms.rounds (room, n, defence, gap_ms, hold_seconds, seats) values ($1, $2, $3, $4, $5, $6)",
    )
    .bind(&room.code)
    .bind(next)
    .bind(&s.defence)
    .bind(s.gap_ms)
    .bind(s.hold_seconds)
    .bind(s.seats)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "update lastseat_rooms.participants set pending = '[]', busy_until = null where room = $1",
    )
    .bind(&room.code)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    if room.round > 0 {
        drop_round(rooms, &room.code, room.round).await;
    }
    rooms.changed(&room.code);
    Ok(next)
}

async fn drop_round(rooms: &Rooms, code: &str, round: i32) {
    let keep = schema_name(code, round + 1);
    for pool in rooms.inner().pools.forget_room(code, Some(&keep)) {
        pool.close().await;
    }
    booking::drop_round(rooms.pool(), &schema_name(code, round)).await;
}

/// Ends the race: the results stay on every screen until the next round.
pub async fn finish(rooms: &Rooms, room: &Room) -> Result<(), RoomError> {
    if room.phase != "race" {
        return Err(RoomError::Conflict(
            "no round is racing: start one first".into(),
        ));
    }
    sqlx::query(
        "update lastseat_rooms.rooms set phase = 'results', touched_at = now() where code = $1",
    )
    .bind(&room.code)
    .execute(rooms.pool())
    .await?;
    rooms.changed(&room.code);
    Ok(())
}

/// Back to the lobby with every seat free: the round's seats are dropped.
pub async fn reset(rooms: &Rooms, room: &Room) -> Result<(), RoomError> {
    sqlx::query("update lastseat_rooms.rooms set phase = 'lobby', race_at = null, clock = 0, touched_at = now() where code = $1")
        .bind(&room.code)
        .execute(rooms.pool())
        .await?;
    sqlx::query(
        "update lastseat_rooms.participants set pending = '[]', busy_until = null where room = $1",
    )
    .bind(&room.code)
    .execute(rooms.pool())
    .await?;
    rooms.changed(&room.code);
    Ok(())
}

/// Changes the settings; only between races (a race keeps the rules it started with).
pub async fn change(rooms: &Rooms, room: &Room, change: Change) -> Result<Settings, RoomError> {
    if room.phase == "race" {
        return Err(RoomError::Conflict(
            "a round is racing: finish it first, then switch the defence or the gap for the next one".into(),
        ));
    }
    let settings = room.settings.with(change)?;
    store::save_settings(rooms.pool(), &room.code, &settings).await?;
    rooms.changed(&room.code);
    Ok(settings)
}
