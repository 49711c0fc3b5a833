//! A round's clock: the whole seconds since its race opened, on this machine's clock, and a
//! wait until the stored clock (moved by `ticker.rs`) reaches a second.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::error::RoomError;
use super::store::Room;

/// The round's clock now: whole seconds since its race opened, on this machine's clock (the
/// database's, for a server on the same machine or one kept in time).
pub fn clock_now(room: &Room) -> i64 {
    room.race_at_ms
        .map_or(0, |at| ((local_ms() - at) / 1000).max(0))
}

/// Milliseconds since the epoch, now.
pub fn local_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Waits (at most a minute past the hold) until the round's clock has reached `target`.
pub async fn wait_for_clock(pool: &sqlx::PgPool, code: &str, target: i64) -> Result<(), RoomError> {
    let give_up = Instant::now() + Duration::from_secs(3600 + 60);
    loop {
        let clock: i64 =
            sqlx::query_scalar("select clock from lastseat_rooms.rooms where code = $1")
                .bind(code)
                .fetch_one(pool)
                .await?;
        if clock >= target || Instant::now() > give_up {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
