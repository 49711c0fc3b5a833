//! What every screen shows (`shared::protocol::room::RoomState`): the room's phase and countdown,
//! the seat map (read with `shared::sql`'s snapshot statements) or a general-admission round's
//! section (`counter.rs`), who joined, the feed of every request (who, the SQL, what PostgreSQL
//! answered, how long it took) and the scoreboard.

mod counter;
mod room_reads;
mod seats;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use shared::protocol::room::{FeedRow, Participants, RoomState, Scoreboard};

use super::booking::Pools;
use super::error::RoomError;
use super::joined::Cache;
use super::redis::Redis;
use super::store;
use super::{clock, phases};
use room_reads::FeedRead;

/// What a rebuild of the state reads: the main pool and the rounds', Redis (under a defence that
/// needs it), who joined as last counted, and the bots still racing.
#[derive(Clone)]
pub struct Reader {
    pub pool: sqlx::PgPool,
    pub pools: Pools,
    pub redis: Redis,
    pub joined: Arc<Cache>,
    pub racing: Racing,
}

impl Reader {
    /// The whole state of room `code`.
    pub async fn build(&self, code: &str) -> Result<RoomState, RoomError> {
        let started = std::time::Instant::now();
        let state = self.build_now(code).await;
        phases::REBUILD.since(started);
        state
    }

    async fn build_now(&self, code: &str) -> Result<RoomState, RoomError> {
        // Read first: a screen that sees no bot racing sees every seat they took.
        let bots_racing = self.racing.now();
        let room = store::load(&self.pool, code).await?;
        let clock = clock::clock_now(&room);
        // Sent at once: the round's seats (on its pool, `seats.rs`) and the room's people,
        // scoreboard and feed (`room_reads.rs`), so that the state costs two round trips, not
        // ten.
        let (round, left, reads) = futures::try_join!(
            seats::read(&self.pools, &room),
            counter::read(&self.pools, &room),
            room_reads::read(&self.pool, &self.joined, &room, clock)
        )?;
        let map = seats::map(&room, round, &reads.joined.actors, clock);
        let counter = room
            .played
            .kind
            .is_counter()
            .then(|| counter::of(&room, left, reads.tickets_told));
        let redis_unavailable = if room.settings.defence.needs_redis() {
            self.redis.check().await.err()
        } else {
            None
        };
        Ok(RoomState {
            phase: room.phase_now(),
            race_at_ms: room.race_at_ms,
            now_ms: room.now_ms,
            clock,
            redis_unavailable,
            bots_racing,
            participants: Participants {
                people: reads.joined.people,
                bots: reads.joined.bots,
                names: reads.joined.names.clone(),
            },
            scoreboard: Scoreboard {
                // In a general-admission round: the buyers told yes, and those beyond the
                // tickets there were (the verdict's double booking on a counter).
                sold: counter.as_ref().map_or(map.sold, |c| c.sold),
                double_bookings: counter.as_ref().map_or(reads.double, |c| c.oversold),
                unique_refusals: reads.refused,
                refunds_owed: map.refunds,
                holds_never_released: map.never_released,
            },
            seats: map.seats,
            counter,
            feed: reads.feed.into_iter().map(feed_row).collect(),
            code: room.code,
            round: room.round,
            settings: room.settings,
        })
    }
}

fn feed_row((actor, name, op, sql, result, ms): FeedRead) -> FeedRow {
    FeedRow {
        who: name.unwrap_or(actor),
        op,
        sql,
        answer: result.short(),
        waited_ms: (ms * 10.0).round() / 10.0,
    }
}

/// How many bots of this process are still racing (started and not yet answered for good).
#[derive(Clone, Default)]
pub struct Racing(Arc<AtomicUsize>);

impl Racing {
    pub fn now(&self) -> u64 {
        self.0.load(Ordering::SeqCst) as u64
    }

    /// Counts one bot in until the guard is dropped, however its task ends.
    pub fn one(&self) -> Running {
        self.0.fetch_add(1, Ordering::SeqCst);
        Running(self.0.clone())
    }
}

/// A bot counted as racing (`Racing::one`), until dropped.
pub struct Running(Arc<AtomicUsize>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use shared::StepResult;

    use super::*;

    #[test]
    fn a_feed_row_names_its_participant_and_rounds_its_time_to_a_tenth() {
        let row = feed_row((
            "ana".into(),
            Some("Ana".into()),
            "claim".into(),
            None,
            StepResult::Ok { rows: Some(1) },
            1.26,
        ));
        assert_eq!(
            (row.who.as_str(), row.answer.as_str(), row.waited_ms),
            ("Ana", "ok:1", 1.3)
        );
        let clock = feed_row((
            "clock".into(),
            None,
            "advance".into(),
            None,
            StepResult::Skipped,
            0.0,
        ));
        assert_eq!(clock.who, "clock");
    }
}
