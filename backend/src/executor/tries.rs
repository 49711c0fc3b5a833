//! A run's tries, as a task of its own: the session opened (once more on fresh connections if
//! the pool's turn out dead), the entries driven, the answer sent as soon as it is known, then
//! the clean-up; a try too slow for the deadlock the model foresees is thrown away and the run
//! starts again.

use std::time::Duration;

use shared::{Schedule, Trace};
use sqlx::PgPool;
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::{build, phases, run, session, ExecError, PACE_TRIES};
use crate::db;

/// How long after a try too slow for its deadlock the next one starts, times the tries so far.
const PACE_BACKOFF: Duration = Duration::from_millis(250);

/// The run itself: set-up and entries within `limit`, its answer sent as soon as it is known,
/// then the clean-up (bounded by `session`'s own limits). A try that the machine ran too slowly
/// for the deadlock the model foresees (`ExecError::TooSlow`) is thrown away with its schema,
/// and the run starts again, up to `PACE_TRIES` times, within the same `limit`.
pub(super) async fn run_within(
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
        // not one with a SERIALIZABLE transaction (`build::fresh_only`).
        let keep =
            matches!(&result, Ok(_) | Err(ExecError::Schedule(_))) && !build::fresh_only(&schedule);
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
