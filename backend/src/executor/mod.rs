//! The executor: runs a schedule's order on a real PostgreSQL, one connection per actor, in a
//! schema that no other run uses meanwhile, and reports what PostgreSQL answered as a `Trace` (the same type the
//! simulator writes). It decides no outcome itself: `shared::assess` does, from the trace.
//!
//! Each entry is sent on its actor's connection without being awaited; then the run waits for
//! quiescence (every statement in flight has answered or is blocked, and no deadlock cycle is
//! left for PostgreSQL's detector to break) and snapshots the committed tables. A statement that
//! blocks stays pending while the schedule goes on; its completion is recorded at the entry
//! during which it answered.
//!
//! The schemas are made ahead and used again (`ready`): each pool has a shelf of ready schemas,
//! created from the migration text, each with a connection of its own that holds its lock; a
//! run takes one off the shelf (or, finding none, makes its own), seeds it, and when it ended
//! normally empties it and puts it back. The free functions below are all there is: the shelf
//! belongs to the `PgPool` they are given (found by the pool's connect options), so every
//! caller, the server's routes, the replay and the tests, shares its pool's shelf. `shutdown`
//! drops a pool's ready schemas; those of a process that ends without it are swept.
//!
//! A run is a task of its own, bounded in time at every step (set-up and entries by its limit,
//! clean-up by `cleanup`'s limits), and nothing in it parks the thread that polls it. Its
//! answer comes at its bound at the latest (`execute` returns within `RUN_TIMEOUT +
//! CLOSE_BOUND`); a clean-up that takes longer (a backend that is stopped, a server that went
//! away) goes on in the background, and the run's schema and connections are given back.
//!
//! A fault (a restart, a killed session, a connection that broke: `db::Fault`) is never an
//! entry of the trace. Met before the run has sent anything of the schedule (connections that
//! died with an old server, kept by the pool), the run is tried once more on fresh
//! connections; otherwise it is an `ExecError` of its own, and stale schemas are swept soon.

mod actor;
pub(crate) mod answer;
mod build;
mod cleanup;
mod conns;
mod ddl;
mod error;
mod monitor;
mod naming;
pub mod phases;
mod ready;
mod run;
mod seed;
mod session;
mod spacing;
pub(crate) mod statement;
mod sweep;
mod tries;
pub(crate) mod waits;

use std::time::Duration;

use shared::{Schedule, Trace};
use sqlx::PgPool;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio::time::Instant;

pub use error::ExecError;
pub use phases::Phases;
pub use ready::shutdown;
pub use sweep::{request as request_sweep, sweep_every};

/// The hard bound on one run's set-up and entries (its clean-up has bounds of its own).
pub const RUN_TIMEOUT: Duration = Duration::from_secs(30);

/// The longest `execute_within(…, limit)` can take beyond `limit`: a margin for a loaded
/// machine. The clean-up gets until then too; if it needs longer, it goes on in the background.
pub const CLOSE_BOUND: Duration = Duration::from_secs(2);

/// How many times a run is tried when the machine was too slow for its deadlock
/// (`ExecError::TooSlow`): each try starts again from the start, in a schema of its own.
pub const PACE_TRIES: usize = 3;

/// The first half of the advisory lock key that a run's monitor connection holds, for as long as
/// the run's schema may exist, on the schema's name (the second half is `hashtext(name)`).
pub const SCHEMA_LOCK_CLASS: i32 = 0x4c53_6174;

/// Settings of every connection of a run, beside `shared::sql::SESSION_SETTINGS`. Neither
/// changes what a statement sees or locks: commits stay visible at once, they are only not
/// flushed to disk before the answer (a run's schema is thrown away anyway), and the notices of
/// `drop schema … cascade` stay on the server.
const RUN_SETTINGS: &str = "set synchronous_commit = off; set client_min_messages = warning";

/// One statement on `conn`, outside any run, sent and answered exactly as a run's entry is (the
/// live rooms' taps): the step result of `op` and the rows it returned. `commit_of_failed` and
/// `clock` as for a run's entry; `scenario` says how a counter's rows are read.
pub async fn answer_one(
    conn: &mut sqlx::PgConnection,
    op: &shared::schedule::Op,
    statement: &shared::sql::Statement,
    commit_of_failed: bool,
    clock: i64,
    scenario: &shared::schedule::Scenario,
) -> Result<(shared::outcome::StepResult, Vec<shared::outcome::SeenRow>), ExecError> {
    let counting = statement::Counting::of(scenario);
    let raw = statement::run(conn, statement, answer::fetch_of(op, counting)).await;
    answer::step(op, raw, commit_of_failed, clock)
}

/// Runs `schedule` on PostgreSQL within `RUN_TIMEOUT`.
pub async fn execute(pool: &PgPool, schedule: &Schedule) -> Result<Trace, ExecError> {
    execute_within(pool, schedule, RUN_TIMEOUT).await
}

/// Runs `schedule` on PostgreSQL within `limit`, and returns within `limit + CLOSE_BOUND`
/// whatever happens: a run that does not finish in time is an `ExecError::Timeout`. Whatever
/// happens (an error, a timeout, a panic, or the caller dropping this future) the run's schema
/// is dropped and every connection goes back to the pool outside any transaction and with its
/// settings reset, or is closed: before this returns when the run ended normally (and that
/// fits in the bound), in the background otherwise.
///
/// The run is a task of its own: it makes progress and keeps its bounds on the runtime's
/// workers whatever the caller's thread does, and the caller only waits for its answer (under a
/// timer of its own). Dropping this future aborts the task; its session then cleans up in a
/// task of its own.
pub async fn execute_within(
    pool: &PgPool,
    schedule: &Schedule,
    limit: Duration,
) -> Result<Trace, ExecError> {
    sweep::at_run_start(pool);
    let bound = Instant::now() + limit + CLOSE_BOUND;
    let (answer, answered) = oneshot::channel();
    let mut run = AbortOnDrop(tokio::spawn(tries::run_within(
        pool.clone(),
        schedule.clone(),
        limit,
        answer,
    )));
    let result = match tokio::time::timeout_at(bound, answered).await {
        Ok(Ok(result)) => {
            // A run that ended normally gives everything back before this returns (within the
            // bound); after a fault or a timeout the clean-up may have to wait for the database,
            // and the answer does not.
            if !matches!(&result, Err(e) if e.is_fault() || matches!(e, ExecError::Timeout(_))) {
                let _ = tokio::time::timeout_at(bound, &mut run.0).await;
            }
            result
        }
        // The task ended without an answer: it panicked, or the runtime is shutting down.
        Ok(Err(_)) => match tokio::time::timeout_at(bound, &mut run.0).await {
            Ok(Err(e)) if e.is_panic() => {
                let panic = e.into_panic();
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                Err(ExecError::Unexpected(format!(
                    "the run panicked: {message}"
                )))
            }
            _ => Err(ExecError::Unexpected(
                "the run was cancelled: the runtime is shutting down".to_string(),
            )),
        },
        Err(_) => Err(ExecError::Timeout(limit)),
    };
    if result.as_ref().is_err_and(ExecError::is_fault) {
        sweep::request(pool);
    }
    result
}

/// Aborts the task when dropped (a no-op once it has finished).
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Drops the run schemas that no live run owns any more (left by a process that was killed or
/// hung before it could clean up, or by runs that a restart broke); how many. Safe beside other
/// processes' runs on the same database: see `sweep::sweep`.
pub async fn sweep_stale_schemas(pool: &PgPool) -> Result<usize, sqlx::Error> {
    sweep::sweep(pool).await.map(|swept| swept.dropped)
}
