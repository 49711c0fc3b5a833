//! The live rooms of a server, put together: each part is made once here and handed only what
//! it uses (the main pool, the leases' pool, the rounds' pools, Redis, the event streams, the
//! NOTIFYs, who joined, the batched starts and records, the bots racing), and the background
//! tasks are started: the listener and the rebuilds (`live.rs`), the records' batches
//! (`recorder.rs`), the starts' batches (`attempt/begin.rs`), the clock (`ticker.rs`). Nothing
//! of the rooms imports this file; the HTTP side holds a `Rooms`.

use std::sync::Arc;
use std::time::Duration;

use super::attempt::{self, Attempts, Runner};
use super::booking::Pools;
use super::bots::Bots;
use super::live::{self, Live};
use super::notifier::Notifier;
use super::record::{Records, Settling};
use super::recorder::{self, Sent};
use super::redis::Redis;
use super::rounds::Control;
use super::state::{Racing, Reader};
use super::{phases, ticker};

/// What the room routes use.
pub struct Rooms {
    pub pool: sqlx::PgPool,
    /// Tap, pay, cancel.
    pub attempts: Attempts,
    /// The state every screen shows.
    pub state: Reader,
    /// This process's event streams.
    pub live: Arc<Live>,
    /// Start, finish, reset, change the settings.
    pub rounds: Control,
    pub bots: Bots,
    pub redis: Redis,
    /// This process's NOTIFYs, coalesced (`notifier.rs`).
    pub notifier: Notifier,
}

impl Rooms {
    /// Rooms on `pool`, with Redis at `REDIS_URL` (or 127.0.0.1:6379). Starts the listener, the
    /// clock ticker and the idle sweep in the background.
    pub fn new(pool: sqlx::PgPool) -> Rooms {
        let leases = leases_pool(&pool);
        let (pools, redis, live) = (Pools::new(pool.clone()), Redis::from_env(), Arc::default());
        // On the pool whose commits do not wait for the disk: `notifier.rs` says why.
        let notifier = Notifier::start(leases.clone());
        let runner = Runner {
            pool: pool.clone(),
            pools: pools.clone(),
            redis: redis.clone(),
            live: Arc::clone(&live),
        };
        let attempts = attempts(runner, leases, &notifier);
        let racing = Racing::default();
        let state = Reader {
            pool: pool.clone(),
            pools: pools.clone(),
            redis: redis.clone(),
            joined: Arc::default(),
            racing: racing.clone(),
        };
        live::start(pool.clone(), Arc::clone(&live), state.clone());
        ticker::start(pool.clone(), state.joined.clone());
        static PHASES: std::sync::Once = std::sync::Once::new();
        PHASES.call_once(|| phases::start_logging(Duration::from_secs(5)));
        Rooms {
            bots: Bots {
                pool: pool.clone(),
                attempts: attempts.clone(),
                racing,
            },
            rounds: Control {
                pool: pool.clone(),
                pools,
                redis: redis.clone(),
                notifier: notifier.clone(),
            },
            attempts,
            state,
            live,
            redis,
            notifier,
            pool,
        }
    }
}

/// The attempts, with `runner`, their starts batched on `leases` and their records batched on
/// the runner's pool (whose batches tell this process's streams and, through `notifier`, the
/// other processes); both batches' tasks are started.
fn attempts(runner: Runner, leases: sqlx::PgPool, notifier: &Notifier) -> Attempts {
    let (recorder, records) = recorder::channel();
    let sent = Sent {
        pool: runner.pool.clone(),
        live: Arc::clone(&runner.live),
        notifier: notifier.clone(),
    };
    recorder::start(sent, records);
    let settling = Arc::new(Settling::default());
    let (starts, starting) = attempt::starts();
    attempt::start_starts(leases, settling.clone(), starting);
    Attempts {
        starts,
        records: Records {
            pool: runner.pool.clone(),
            recorder,
            settling,
        },
        runner,
    }
}

/// The pool a request begins on (`attempt/begin.rs`): its commits do not wait for the WAL to
/// reach the disk (`synchronous_commit = off`). What it writes is the lease of one request at a
/// time, which a crash may lose harmlessly (the participant is free again), and the NOTIFYs
/// (`notifier.rs`); bookings and every record stay on synchronous commits. Its statements are
/// planned once per connection (`force_generic_plan`): planning the start anew for each batch
/// took as long as running it (0.7 ms against 0.6 ms by EXPLAIN ANALYZE), and its generic plan
/// is the same index lookups whatever the tables hold (an ANALYZE makes PostgreSQL plan it
/// again).
fn leases_pool(pool: &sqlx::PgPool) -> sqlx::PgPool {
    sqlx::postgres::PgPoolOptions::new()
        .max_connections(16)
        .acquire_timeout(Duration::from_secs(5))
        // No ping before each start: after a restart, `attempt/begin.rs` closes the dead
        // connections it meets and tries once more.
        .test_before_acquire(false)
        .connect_lazy_with(pool.connect_options().as_ref().clone().options([
            ("synchronous_commit", "off"),
            ("plan_cache_mode", "force_generic_plan"),
        ]))
}
