//! Live rooms: a workshop racing for real seats on the real database. A room lives in
//! PostgreSQL (`lastseat_rooms`, migration 0002); each round's seats in a booking schema of the
//! round's own, made from 0001 like a run's. A participant's tap runs the room's defence, the
//! program of `shared::defences`, statement by statement from `shared::sql`, driven by the same
//! `shared::client::Clients` as the simulator, and every statement is recorded with when it was
//! sent and answered, so that the round becomes a schedule the model replays.
//!
//! By concept: `settings` (what a facilitator chooses, validated), `store` (rooms, participants,
//! tokens), `booking` (the round's schema and its pool), `exec` (one statement and its answer),
//! `attempt` (a tap, a payment, a cancel), `redis` (the real Redis of the Redis hold), `state`
//! (what every screen shows), `live` (LISTEN/NOTIFY fan-out to the event streams), `notifier`
//! (this process's NOTIFYs, coalesced), `recorder` (the requests' records, batched), `batch`
//! (one statement for many requests), `joined` (who joined, counted again only when someone
//! did), `phases` (where a request's time goes), `ticker` (the round's clock, idle rooms
//! swept), `bots`, `schedule` (a round as a format v1 file).

pub mod attempt;
pub mod batch;
pub mod booking;
pub mod bots;
pub mod clock;
pub mod exec;
pub mod joined;
pub mod live;
pub mod notifier;
pub mod phases;
pub mod record;
pub mod recorder;
pub mod redis;
pub mod rounds;
pub mod schedule;
pub mod settings;
pub mod state;
pub mod store;
pub mod ticker;

use std::sync::Arc;

pub use settings::Settings;

/// Why a room request was refused: a message for a person, and the status it maps to.
#[derive(Debug, thiserror::Error)]
pub enum RoomError {
    /// Bad input: the field and what is wrong with it.
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
    #[error("no room has the code {0:?}: check the code on the projector")]
    NoRoom(String),
    /// A missing or wrong token or secret.
    #[error("{0}")]
    Unauthorized(String),
    /// The request does not fit the room's state (the race has not started, …).
    #[error("{0}")]
    Conflict(String),
    #[error("slow down: {0}")]
    TooMany(String),
    /// Redis is down or unreachable, for the Redis defence.
    #[error("{0}")]
    Unavailable(String),
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("internal: {0}")]
    Internal(String),
}

impl RoomError {
    pub fn invalid(field: &str, message: impl Into<String>) -> RoomError {
        RoomError::Invalid {
            field: field.to_string(),
            message: message.into(),
        }
    }
}

/// What the room handlers share: the main pool, the round pools, Redis and the fan-out.
#[derive(Clone)]
pub struct Rooms(Arc<Inner>);

pub struct Inner {
    pub pool: sqlx::PgPool,
    /// The pool a request begins on (`attempt/begin.rs`): its commits do not wait for the
    /// WAL to reach the disk (`synchronous_commit = off`). What it writes is the lease of one
    /// request at a time, which a crash may lose harmlessly (the participant is free again),
    /// and the NOTIFYs (`notifier.rs`); bookings and every record stay on synchronous commits.
    /// Its statements are planned once per connection (`force_generic_plan`): planning the
    /// start anew for each batch took as long as running it (0.7 ms against 0.6 ms by EXPLAIN
    /// ANALYZE), and its generic plan is the same index lookups whatever the tables hold (an
    /// ANALYZE makes PostgreSQL plan it again).
    pub leases: sqlx::PgPool,
    pub pools: booking::Pools,
    pub redis: redis::Redis,
    pub live: live::Live,
    /// This process's NOTIFYs, coalesced (`Rooms::changed`).
    notifier: notifier::Notifier,
    /// Who joined each room, as last counted here (`joined.rs`).
    pub joined: Arc<joined::Cache>,
    /// The requests' records, batched (`record.rs` hands them over).
    pub recorder: recorder::Recorder,
    /// The requests' starts, batched (`attempt/begin.rs`), on `leases`.
    pub starts: attempt::Starts,
    /// Bots of this process still racing (started and not yet answered for good).
    pub bots_running: std::sync::atomic::AtomicUsize,
    /// The participants whose last request's record this process is sending again after the
    /// database went away (`record.rs`): their lease is freed when it lands, and no request of
    /// theirs takes it meanwhile (`attempt/begin.rs`).
    settling: Arc<record::Settling>,
}

impl Rooms {
    /// Rooms on `pool`, with Redis at `REDIS_URL` (or 127.0.0.1:6379). Starts the listener, the
    /// clock ticker and the idle sweep in the background.
    pub fn new(pool: sqlx::PgPool) -> Rooms {
        let (recorder, records) = recorder::channel();
        let (starts, starting) = attempt::starts();
        let settling = Arc::new(record::Settling::default());
        let leases = sqlx::postgres::PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(std::time::Duration::from_secs(5))
            // No ping before each start: after a restart, `attempt/begin.rs` closes the dead
            // connections it meets and tries once more.
            .test_before_acquire(false)
            .connect_lazy_with(pool.connect_options().as_ref().clone().options([
                ("synchronous_commit", "off"),
                ("plan_cache_mode", "force_generic_plan"),
            ]));
        let rooms = Rooms(Arc::new(Inner {
            pools: booking::Pools::new(pool.clone()),
            redis: redis::Redis::from_env(),
            live: live::Live::default(),
            // On the pool whose commits do not wait for the disk: `notifier.rs` says why.
            notifier: notifier::Notifier::start(leases.clone()),
            leases,
            joined: Default::default(),
            recorder,
            starts,
            bots_running: Default::default(),
            settling: settling.clone(),
            pool,
        }));
        recorder::start(&rooms, records);
        attempt::start_starts(rooms.0.leases.clone(), settling, starting);
        live::start(&rooms);
        ticker::start(&rooms);
        static PHASES: std::sync::Once = std::sync::Once::new();
        PHASES.call_once(|| phases::start_logging(std::time::Duration::from_secs(5)));
        rooms
    }

    pub fn pool(&self) -> &sqlx::PgPool {
        &self.0.pool
    }
    pub fn inner(&self) -> &Inner {
        &self.0
    }

    /// Tells every backend process serving room `code` that its state changed (through
    /// PostgreSQL's NOTIFY, coalesced with this process's other changes: `notifier.rs`).
    pub fn changed(&self, code: &str) {
        self.0.notifier.changed(code);
    }

    /// The participants whose last request's record this process is still sending again.
    pub fn settling(&self) -> &Arc<record::Settling> {
        &self.0.settling
    }
}
