//! Bots: up to 1,000 participants of the server's own that race for the seats at once, each
//! through the same attempt as a phone's tap (and its payment, where the defence has one).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use rand::Rng;
use tokio::sync::Semaphore;

use super::attempt::{self, Kind};
use super::settings::seat_ids;
use super::store::{self, Room};
use super::{RoomError, Rooms};

pub const MAX_BOTS: i64 = 1000;
/// Bots in flight at once (the rest queue, as a waiting room would let them in): fewer than the
/// round's connections, so that the screens and the phones always find one.
const IN_FLIGHT: usize = super::booking::ROUND_CONNECTIONS as usize - 4;

/// Releases `count` bots into the racing round of `room`; they tap as soon as the race opens.
pub async fn release(rooms: &Rooms, room: &Room, count: i64) -> Result<usize, RoomError> {
    if !(1..=MAX_BOTS).contains(&count) {
        return Err(RoomError::invalid(
            "count",
            format!("{count} bots: release 1 to {MAX_BOTS}"),
        ));
    }
    if room.phase != "race" {
        return Err(RoomError::Conflict(
            "bots race in a round: start one first".into(),
        ));
    }
    let start: i64 = sqlx::query_scalar(
        "select count(*) from lastseat_rooms.participants where room = $1 and bot",
    )
    .bind(&room.code)
    .fetch_one(rooms.pool())
    .await?;
    let names: Vec<String> = (start + 1..=start + count)
        .map(|k| format!("bot{k}"))
        .collect();
    let joined = store::join(rooms.pool(), &room.code, &names, true).await?;
    let seats = seat_ids(room.settings.seats);
    let gate = Arc::new(Semaphore::new(IN_FLIGHT));
    let wait = room.race_at_ms.map_or(0, |at| (at - room.now_ms).max(0)) as u64;
    for (bot, _) in joined {
        let (rooms, mut room, gate) = (rooms.clone(), room.clone(), gate.clone());
        let seat = seats[rand::thread_rng().gen_range(0..seats.len())].clone();
        rooms.inner().bots_running.fetch_add(1, Ordering::SeqCst);
        tokio::spawn(async move {
            let _running = Running(rooms.clone());
            tokio::time::sleep(Duration::from_millis(wait)).await;
            let Ok(_permit) = gate.acquire().await else {
                return;
            };
            room.now_ms = super::clock::local_ms();
            match attempt::act(&rooms, &room, &bot, Kind::Tap(vec![seat])).await {
                Ok(reply) if reply.holding && room.settings.pays() => {
                    if let Err(e) = attempt::act(&rooms, &room, &bot, Kind::Pay).await {
                        tracing::debug!(error = %e, "a bot's payment failed");
                    }
                }
                Ok(_) => {}
                Err(e) => tracing::debug!(error = %e, "a bot's tap failed"),
            }
        });
    }
    Ok(names.len())
}

/// Counts a bot out when its task ends, however it ends.
struct Running(Rooms);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.inner().bots_running.fetch_sub(1, Ordering::SeqCst);
    }
}
