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
mod answer;
mod cleanup;
mod conns;
mod ddl;
mod monitor;
mod naming;
pub mod phases;
mod ready;
mod run;
mod seed;
mod session;
mod spacing;
mod sweep;

use std::time::Duration;

use shared::{Schedule, ScheduleError, Trace};
use sqlx::PgPool;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::db::{self, Fault};

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
/// How long after a try too slow for its deadlock the next one starts, times the tries so far.
const PACE_BACKOFF: Duration = Duration::from_millis(250);

/// The first half of the advisory lock key that a run's monitor connection holds, for as long as
/// the run's schema may exist, on the schema's name (the second half is `hashtext(name)`).
pub const SCHEMA_LOCK_CLASS: i32 = 0x4c53_6174;

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
    /// The database could not be reached (`Fault::Unreachable`), or answered an error that is
    /// neither data nor a fault.
    #[error("database: {0}")]
    Database(sqlx::Error),
    /// The run's connections were lost before it could start, and again on its one retry: the
    /// database was restarted, or is restarting.
    #[error("the database was restarted before the run could start: {0}")]
    Restarted(sqlx::Error),
    /// A connection was lost while the run was under way: the server restarted, the session
    /// was ended (`pg_terminate_backend`), or the socket broke. Not the schedule's doing, and
    /// never a disagreement between the model and PostgreSQL.
    #[error("a database connection was lost during the run: {0}")]
    ConnectionLost(sqlx::Error),
    /// The run exceeded its hard bound.
    #[error("the run did not finish within {} s", .0.as_secs())]
    Timeout(Duration),
    /// The machine ran a schedule whose deadlock the model foresees too slowly for PostgreSQL's
    /// deadlock checks to come in the model's order (`run::PACE_LIMIT`), on every try.
    #[error(
        "the server was too busy to run this schedule's deadlock at the model's pace ({0}), \
         on {tries} tries: try again when it is less busy",
        tries = PACE_TRIES
    )]
    TooSlow(String),
    /// PostgreSQL answered something the executor cannot read (a bug, not bad input).
    #[error("unexpected answer from PostgreSQL: {0}")]
    Unexpected(String),
}

/// One statement on `conn`, outside any run, sent and answered exactly as a run's entry is (the
/// live rooms' taps): the step result of `op` and the rows it returned. `commit_of_failed` and
/// `clock` as for a run's entry.
pub async fn answer_one(
    conn: &mut sqlx::PgConnection,
    op: &shared::schedule::Op,
    statement: &shared::sql::Statement,
    commit_of_failed: bool,
    clock: i64,
) -> Result<(shared::outcome::StepResult, Vec<shared::outcome::SeenRow>), ExecError> {
    let raw = actor::run(conn, statement, answer::fetch_of(op)).await;
    answer::step(op, raw, commit_of_failed, clock)
}

impl From<sqlx::Error> for ExecError {
    /// The one place where a database error becomes a run's error: a lost session is a fault of
    /// its own, everything else is `Database`.
    fn from(e: sqlx::Error) -> ExecError {
        if Fault::is_lost(&e) {
            ExecError::ConnectionLost(e)
        } else {
            ExecError::Database(e)
        }
    }
}

impl ExecError {
    /// Whether the run failed by a fault of the database (a restart, a killed session, a
    /// broken connection, a server out of reach), after which a run's schema may be left.
    pub fn is_fault(&self) -> bool {
        match self {
            ExecError::Restarted(_) | ExecError::ConnectionLost(_) => true,
            ExecError::Database(e) => Fault::of(e).is_some(),
            _ => false,
        }
    }
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
    let mut run = AbortOnDrop(tokio::spawn(run_within(
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

/// The run itself: set-up and entries within `limit`, its answer sent as soon as it is known,
/// then the clean-up (bounded by `session`'s own limits). A try that the machine ran too slowly
/// for the deadlock the model foresees (`ExecError::TooSlow`) is thrown away with its schema,
/// and the run starts again, up to `PACE_TRIES` times, within the same `limit`.
async fn run_within(
    pool: PgPool,
    schedule: Schedule,
    limit: Duration,
    answer: oneshot::Sender<Result<Trace, ExecError>>,
) {
    let start = Instant::now();
    let deadline = start + limit;
    let mut tries = 0;
    loop {
        tries += 1;
        // Set-up counts against the bound too: a run that cannot even start must not hang its
        // caller (the half-open session cleans itself up when dropped).
        let (mut session, completions) = match open(&pool, &schedule, deadline).await {
            Ok(opened) => opened,
            Err(e) => {
                let _ = answer.send(Err(match e {
                    OpenError::Timeout => ExecError::Timeout(limit),
                    OpenError::Failed(e) => e,
                }));
                return;
            }
        };
        let opened = start.elapsed();
        let ready = session.shelved;
        let result = match tokio::time::timeout_at(
            deadline,
            run::Driver::new(&schedule, &mut session, completions).run(),
        )
        .await
        {
            Ok(Ok((trace, mut spent))) => {
                spent.setup = opened;
                spent.ready = u64::from(ready);
                phases::ran(&spent);
                Ok(trace)
            }
            Ok(Err(e)) => Err(e),
            Err(_) => Err(ExecError::Timeout(limit)),
        };
        if let Err(ExecError::TooSlow(why)) = &result {
            if tries < PACE_TRIES {
                tracing::info!(why = %why, tries, "a run was too slow for its deadlock; trying again");
                session.close(false).await;
                // A busy moment passes: the next try waits a little longer for it to.
                let pause = PACE_BACKOFF * tries as u32;
                tokio::time::sleep_until(deadline.min(Instant::now() + pause)).await;
                continue;
            }
        }
        // A run that ended normally leaves its schema fit for the next one, once emptied; but
        // not one with a SERIALIZABLE transaction (`session::fresh_only`).
        let keep = matches!(&result, Ok(_) | Err(ExecError::Schedule(_)))
            && !session::fresh_only(&schedule);
        let _ = answer.send(result);
        session.close(keep).await;
        return;
    }
}

enum OpenError {
    Timeout,
    Failed(ExecError),
}

/// Opens the run's session by `deadline`. Connections that turn out dead before anything of
/// the schedule was sent (the pool kept them from before a restart) cost one more try, after
/// the pool's dead idle connections are closed; lost again, the database is restarting.
async fn open(
    pool: &PgPool,
    schedule: &Schedule,
    deadline: Instant,
) -> Result<(session::Session, session::Completions), OpenError> {
    let mut retried = false;
    loop {
        match tokio::time::timeout_at(deadline, session::Session::open(pool, schedule)).await {
            Ok(Ok(opened)) => return Ok(opened),
            Ok(Err(ExecError::ConnectionLost(e))) if !retried => {
                tracing::info!(error = %e, "a run met a dead connection before it started; trying once more on fresh ones");
                retried = true;
                let _ = tokio::time::timeout_at(deadline, db::discard_dead(pool)).await;
            }
            Ok(Err(ExecError::ConnectionLost(e))) => {
                return Err(OpenError::Failed(ExecError::Restarted(e)))
            }
            Ok(Err(e)) => return Err(OpenError::Failed(e)),
            Err(_) => return Err(OpenError::Timeout),
        }
    }
}

/// Drops the run schemas that no live run owns any more (left by a process that was killed or
/// hung before it could clean up, or by runs that a restart broke); how many. Safe beside other
/// processes' runs on the same database: see `sweep::sweep`.
pub async fn sweep_stale_schemas(pool: &PgPool) -> Result<usize, sqlx::Error> {
    sweep::sweep(pool).await.map(|swept| swept.dropped)
}
