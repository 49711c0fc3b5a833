//! The facilitator's controls of a room's rounds: start one (a fresh booking schema, and a
//! race that opens after a 3-2-1 countdown on the server's clock), finish it, reset the room to
//! its lobby, change the settings between rounds.

use shared::protocol::room::{Change, Phase, Settings};

use super::booking::{self, Pools};
use super::error::RoomError;
use super::notifier::Notifier;
use super::redis::Redis;
use super::settings;
use super::store::{self, schema_name, Played, Room};

/// The countdown before a race opens, in seconds.
pub const COUNTDOWN: i64 = 3;

/// Every participant of room `$1` free, with nothing left to pay: a new round, or the lobby.
const FREE_EVERYONE: &str =
    "update lastseat_rooms.participants set pending = '[]', busy_until = null where room = $1";

/// What the controls need: the main pool, the rounds' pools (a round's is closed when it is
/// over), Redis (a round of the Redis hold starts only if it answers), and the NOTIFYs.
#[derive(Clone)]
pub struct Control {
    pub pool: sqlx::PgPool,
    pub pools: Pools,
    pub redis: Redis,
    pub notifier: Notifier,
}

impl Control {
    /// Starts the next round: fresh seats, the race opening `countdown_ms` from now.
    pub async fn start(&self, room: &Room, countdown_ms: i64) -> Result<i32, RoomError> {
        if room.settings.defence.needs_redis() {
            self.redis.check().await.map_err(RoomError::Unavailable)?;
        }
        let next = room.round + 1;
        let schema = schema_name(&room.code, next);
        booking::create_round(&self.pool, &schema, Played::of(&room.settings)).await?;
        if !self.open(room, next, countdown_ms).await? {
            booking::drop_round(&self.pool, &schema).await;
            return Err(RoomError::Conflict(
                "another round was started at the same moment".into(),
            ));
        }
        if room.round > 0 {
            self.drop_round(&room.code, room.round).await;
        }
        self.notifier.changed(&room.code);
        Ok(next)
    }

    /// Opens round `next` of `room` (its settings recorded, every lease freed), unless another
    /// round was started meanwhile: whether it did.
    async fn open(&self, room: &Room, next: i32, countdown_ms: i64) -> Result<bool, RoomError> {
        let s = &room.settings;
        let mut tx = self.pool.begin().await?;
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
            return Ok(false);
        }
        sqlx::query(
            "insert into lastseat_rooms.rounds (room, n, defence, gap_ms, hold_seconds, seats, kind, tickets)
             values ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(&room.code)
        .bind(next)
        .bind(s.defence.id())
        .bind(s.gap_ms)
        .bind(s.hold_seconds)
        .bind(s.seats)
        .bind(s.kind.id())
        .bind(s.kind.is_counter().then_some(s.tickets))
        .execute(&mut *tx)
        .await?;
        sqlx::query(FREE_EVERYONE)
            .bind(&room.code)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn drop_round(&self, code: &str, round: i32) {
        let keep = schema_name(code, round + 1);
        for pool in self.pools.forget_room(code, Some(&keep)) {
            pool.close().await;
        }
        booking::drop_round(&self.pool, &schema_name(code, round)).await;
    }

    /// Ends the race: the results stay on every screen until the next round.
    pub async fn finish(&self, room: &Room) -> Result<(), RoomError> {
        if room.phase != Phase::Race {
            return Err(RoomError::Conflict(
                "no round is racing: start one first".into(),
            ));
        }
        let finished =
            "update lastseat_rooms.rooms set phase = 'results', touched_at = now() where code = $1";
        self.of_room(finished, &room.code).await?;
        self.notifier.changed(&room.code);
        Ok(())
    }

    /// Back to the lobby with every seat free: the round's seats are dropped.
    pub async fn reset(&self, room: &Room) -> Result<(), RoomError> {
        self.of_room("update lastseat_rooms.rooms set phase = 'lobby', race_at = null, clock = 0, touched_at = now() where code = $1", &room.code).await?;
        self.of_room(FREE_EVERYONE, &room.code).await?;
        self.notifier.changed(&room.code);
        Ok(())
    }

    /// Runs `sql`, whose one parameter is the room's code.
    async fn of_room(&self, sql: &str, code: &str) -> Result<(), sqlx::Error> {
        sqlx::query(sql).bind(code).execute(&self.pool).await?;
        Ok(())
    }

    /// Changes the settings; only between races (a race keeps the rules it started with).
    pub async fn change(&self, room: &Room, change: Change) -> Result<Settings, RoomError> {
        if room.phase == Phase::Race {
            return Err(RoomError::Conflict(
                "a round is racing: finish it first, then switch the defence or the gap for the next one".into(),
            ));
        }
        let settings = settings::apply(&room.settings, change)?;
        store::save_settings(&self.pool, &room.code, &settings).await?;
        self.notifier.changed(&room.code);
        Ok(settings)
    }
}
