//! Why a run could not produce a trace (`ExecError`), and which of its causes are faults of
//! the database.

use std::time::Duration;

use shared::ScheduleError;

use super::PACE_TRIES;
use crate::db::Fault;

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
    /// deadlock checks to come in the model's order (`run::pace::PACE_LIMIT`), on every try.
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
