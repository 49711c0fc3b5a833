//! The executor: runs a schedule's order on a real PostgreSQL, one connection per actor, in a
//! schema of its own, and reports what PostgreSQL answered as a `Trace` (the same type the
//! simulator writes). It decides no outcome itself: `shared::assess` does, from the trace.
//!
//! Each entry is sent on its actor's connection without being awaited; then the run waits for
//! quiescence (every statement in flight has answered or is blocked, and no deadlock cycle is
//! left for PostgreSQL's detector to break) and snapshots the committed tables. A statement that
//! blocks stays pending while the schedule goes on; its completion is recorded at the entry
//! during which it answered.
//!
//! A run is a task of its own, bounded in time at every step (set-up and entries by its limit,
//! clean-up by `session`'s limits), and nothing in it parks the thread that polls it: whatever
//! happens, `execute` returns within `RUN_TIMEOUT + CLOSE_BOUND`, and the run's schema and
//! connections are given back.

mod actor;
mod answer;
mod ddl;
mod monitor;
mod run;
mod session;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use shared::{Schedule, ScheduleError, Trace};
use sqlx::PgPool;
use tokio::task::JoinHandle;

/// The hard bound on one run's set-up and entries (its clean-up has bounds of its own).
pub const RUN_TIMEOUT: Duration = Duration::from_secs(30);

/// The longest `execute_within(…, limit)` can take beyond `limit`: the clean-up's bounds (the
/// actors' connections, then the schema), and a margin for a loaded machine.
pub const CLOSE_BOUND: Duration = session::CLOSE_LIMIT.saturating_add(Duration::from_secs(5));

/// The first half of the advisory lock key that a run's monitor connection holds, for as long as
/// the run's schema may exist, on the schema's name (the second half is `hashtext(name)`).
pub const SCHEMA_LOCK_CLASS: i32 = 0x4c53_6174;

/// How long the search for schemas left behind by dead processes may take.
const SWEEP_LIMIT: Duration = Duration::from_secs(20);

/// Settings of every connection of a run, beside `shared::sql::SESSION_SETTINGS`. Neither
/// changes what a statement sees or locks: commits stay visible at once, they are only not
/// flushed to disk before the answer (a run's schema is thrown away anyway), and the notices of
/// `drop schema … cascade` stay on the server.
const RUN_SETTINGS: &str = "set synchronous_commit = off; set client_min_messages = warning";

/// Why a run could not produce a trace. A failed statement is not one of these: it is data, an
/// entry of the trace with its SQLSTATE.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// The schedule cannot run as written (an entry names an actor whose statement still waits).
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
    /// The database could not be reached, or a connection broke during the run.
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    /// The run exceeded its hard bound.
    #[error("the run did not finish within {} s", .0.as_secs())]
    Timeout(Duration),
    /// PostgreSQL answered something the executor cannot read (a bug, not bad input).
    #[error("unexpected answer from PostgreSQL: {0}")]
    Unexpected(String),
}

/// Runs `schedule` on PostgreSQL within `RUN_TIMEOUT`.
pub async fn execute(pool: &PgPool, schedule: &Schedule) -> Result<Trace, ExecError> {
    execute_within(pool, schedule, RUN_TIMEOUT).await
}

/// Runs `schedule` on PostgreSQL within `limit`, and returns within `limit + CLOSE_BOUND`
/// whatever happens: a run that does not finish in time is an `ExecError::Timeout`. Whatever
/// happens (an error, a timeout, a panic, or the caller dropping this future) the run's schema
/// is dropped and every connection goes back to the pool outside any transaction and with its
/// settings reset, or is closed.
///
/// The run is a task of its own: it makes progress and keeps its bounds on the runtime's
/// workers whatever the caller's thread does, and the caller only waits for its end (under a
/// timer of its own). Dropping this future aborts the task; its session then cleans up in a
/// task of its own.
pub async fn execute_within(
    pool: &PgPool,
    schedule: &Schedule,
    limit: Duration,
) -> Result<Trace, ExecError> {
    sweep_once(pool);
    let mut run = AbortOnDrop(tokio::spawn(run_within(
        pool.clone(),
        schedule.clone(),
        limit,
    )));
    match tokio::time::timeout(limit.saturating_add(CLOSE_BOUND), &mut run.0).await {
        Ok(Ok(result)) => result,
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
        Ok(Err(_)) => Err(ExecError::Unexpected(
            "the run was cancelled: the runtime is shutting down".to_string(),
        )),
        Err(_) => Err(ExecError::Timeout(limit)),
    }
}

/// Aborts the task when dropped (a no-op once it has finished).
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The run itself: set-up and entries within `limit`, then the clean-up (bounded by its own
/// limits, `session::CLOSE_LIMIT` in all).
async fn run_within(pool: PgPool, schedule: Schedule, limit: Duration) -> Result<Trace, ExecError> {
    let start = tokio::time::Instant::now();
    let deadline = start + limit;
    // Set-up counts against the bound too: a run that cannot even start must not hang its
    // caller (the half-open session cleans itself up when dropped).
    let (mut session, completions) =
        match tokio::time::timeout_at(deadline, session::Session::open(&pool, &schedule)).await {
            Ok(opened) => opened?,
            Err(_) => return Err(ExecError::Timeout(limit)),
        };
    let opened = start.elapsed();
    let result = match tokio::time::timeout_at(
        deadline,
        run::Driver::new(&schedule, &mut session, completions).run(),
    )
    .await
    {
        Ok(result) => result,
        Err(_) => Err(ExecError::Timeout(limit)),
    };
    let ran = start.elapsed();
    session.close().await;
    tracing::debug!(
        open_ms = opened.as_secs_f64() * 1e3,
        run_ms = (ran - opened).as_secs_f64() * 1e3,
        close_ms = (start.elapsed() - ran).as_secs_f64() * 1e3,
        "a run on PostgreSQL"
    );
    result
}

/// Drops the run schemas that no live run owns any more (left by a process that was killed or
/// hung before it could clean up); how many. Safe beside other processes' runs on the same
/// database: see `session::sweep_stale`.
pub async fn sweep_stale_schemas(pool: &PgPool) -> Result<usize, sqlx::Error> {
    session::sweep_stale(pool).await
}

/// Sweeps stale schemas once per process, in the background of its first run.
fn sweep_once(pool: &PgPool) {
    static SWEPT: AtomicBool = AtomicBool::new(false);
    if SWEPT.swap(true, Ordering::Relaxed) {
        return;
    }
    let pool = pool.clone();
    tokio::spawn(async move {
        match tokio::time::timeout(SWEEP_LIMIT, session::sweep_stale(&pool)).await {
            Ok(Ok(0)) => {}
            Ok(Ok(n)) => tracing::info!(
                dropped = n,
                "dropped run schemas left behind by processes that are gone"
            ),
            Ok(Err(e)) => tracing::warn!(error = %e, "looking for stale run schemas"),
            Err(_) => tracing::warn!("looking for stale run schemas took too long"),
        }
    });
}
