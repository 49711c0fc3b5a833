//! Bots: up to 1,000 participants of the server's own that race for the seats at once, each
//! through the same attempt as a phone's tap (and its payment, where the defence has one): a
//! random seat each, or in a general-admission round one ticket each.

use std::sync::Arc;
use std::time::Duration;

use rand::Rng;
use shared::protocol::room::Phase;
use tokio::sync::Semaphore;

use super::attempt::Attempts;
use super::error::RoomError;
use super::participants::{self, Participant};
use super::request::Kind;
use super::settings::{seat_ids, SECTION};
use super::state::Racing;
use super::store::Room;

pub const MAX_BOTS: i64 = 1000;
/// Bots in flight at once (the rest queue, as a waiting room would let them in): fewer than the
/// round's connections, so that the screens and the phones always find one.
const IN_FLIGHT: usize = super::booking::ROUND_CONNECTIONS as usize - 4;

/// What bots need: the main pool (to join), the attempts they race through, their count.
#[derive(Clone)]
pub struct Bots {
    pub pool: sqlx::PgPool,
    pub attempts: Attempts,
    pub racing: Racing,
}

impl Bots {
    /// Releases `count` bots into the racing round of `room`; they tap as soon as the race
    /// opens.
    pub async fn release(&self, room: &Room, count: i64) -> Result<usize, RoomError> {
        if !(1..=MAX_BOTS).contains(&count) {
            return Err(RoomError::invalid(
                "count",
                format!("{count} bots: release 1 to {MAX_BOTS}"),
            ));
        }
        if room.phase != Phase::Race {
            return Err(RoomError::Conflict(
                "bots race in a round: start one first".into(),
            ));
        }
        let start: i64 = sqlx::query_scalar(
            "select count(*) from lastseat_rooms.participants where room = $1 and bot",
        )
        .bind(&room.code)
        .fetch_one(&self.pool)
        .await?;
        let names: Vec<String> = (start + 1..=start + count)
            .map(|k| format!("bot{k}"))
            .collect();
        let joined = participants::join(&self.pool, &room.code, &names, true).await?;
        let seats = if room.played.kind.is_counter() {
            vec![SECTION.to_string()]
        } else {
            seat_ids(room.settings.seats)
        };
        let gate = Arc::new(Semaphore::new(IN_FLIGHT));
        for (bot, _) in joined {
            let seat = seats[rand::thread_rng().gen_range(0..seats.len())].clone();
            let running = self.racing.one();
            let (attempts, room, gate) = (self.attempts.clone(), room.clone(), gate.clone());
            tokio::spawn(async move {
                race(&attempts, room, &bot, seat, &gate).await;
                drop(running);
            });
        }
        Ok(names.len())
    }
}

/// One bot's race: it waits for the race to open and for its turn, taps `seat`, and pays if it
/// holds it under a defence that pays.
async fn race(
    attempts: &Attempts,
    mut room: Room,
    bot: &Participant,
    seat: String,
    gate: &Semaphore,
) {
    let wait = room.race_at_ms.map_or(0, |at| (at - room.now_ms).max(0)) as u64;
    tokio::time::sleep(Duration::from_millis(wait)).await;
    let Ok(_permit) = gate.acquire().await else {
        return;
    };
    room.now_ms = super::clock::local_ms();
    match attempts.act(&room, bot, Kind::Tap(vec![seat])).await {
        Ok(reply) if reply.holding && room.settings.defence.pays() => {
            if let Err(e) = attempts.act(&room, bot, Kind::Pay).await {
                tracing::debug!(error = %e, "a bot's payment failed");
            }
        }
        Ok(_) => {}
        Err(e) => tracing::debug!(error = %e, "a bot's tap failed"),
    }
}
