//! The executor: runs a schedule's order on a real PostgreSQL, one connection per actor, in a
//! schema of its own, and reports what PostgreSQL answered as a `Trace` (the same type the
//! simulator writes). It decides no outcome itself: `shared::assess` does, from the trace.
//!
//! Each entry is sent on its actor's connection without being awaited; then the run waits for
//! quiescence (every statement in flight has answered or is blocked, and no deadlock cycle is
//! left for PostgreSQL's detector to break) and snapshots the committed tables. A statement that
//! blocks stays pending while the schedule goes on; its completion is recorded at the entry
//! during which it answered.

mod actor;
mod answer;
mod ddl;
mod monitor;
mod run;
mod session;

use std::time::Duration;

use shared::{Schedule, ScheduleError, Trace};
use sqlx::PgPool;

/// The hard bound on one run's set-up and entries (its clean-up has bounds of its own).
pub const RUN_TIMEOUT: Duration = Duration::from_secs(30);

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

/// Runs `schedule` on PostgreSQL within `limit`. Whatever happens (an error, a timeout, a
/// panic, or the caller dropping this future) the run's schema is dropped and every connection
/// goes back to the pool outside any transaction and with its settings reset.
pub async fn execute_within(
    pool: &PgPool,
    schedule: &Schedule,
    limit: Duration,
) -> Result<Trace, ExecError> {
    let start = tokio::time::Instant::now();
    let deadline = start + limit;
    // Set-up counts against the bound too: a run that cannot even start must not hang its
    // caller (the half-open session cleans itself up when dropped).
    let (mut session, completions) =
        match tokio::time::timeout_at(deadline, session::Session::open(pool, schedule)).await {
            Ok(opened) => opened?,
            Err(_) => return Err(ExecError::Timeout(limit)),
        };
    let opened = start.elapsed();
    let result = match tokio::time::timeout_at(
        deadline,
        run::Driver::new(schedule, &mut session, completions).run(),
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
