//! One statement of `shared::sql` on a round's connection, and PostgreSQL's answer read as the
//! model writes a step result (as the executor reads it: rows affected, the seat rows, or the
//! one-call functions' word; an error is data with its SQLSTATE, a fault is not).

use shared::outcome::{SeenRow, StepResult};
use shared::schedule::{Op, Scenario};
use shared::sql::Statement;
use sqlx::PgConnection;

use crate::executor::{self, ExecError};

/// A statement that could not be answered: the database went away under it, or answered
/// something the model has no word for.
#[derive(Debug, thiserror::Error)]
pub enum ExecFault {
    #[error("the database connection was lost: {0}")]
    Lost(sqlx::Error),
    #[error("unexpected answer: {0}")]
    Unexpected(String),
}

/// Sends `statement` (the SQL of `op`) and reads the answer, as the executor does
/// (`executor::answer_one`). `commit_of_failed`: a `commit` of a transaction an error aborted,
/// which PostgreSQL answers with ROLLBACK. `scenario`: the participant's, which says whether
/// the rows read are seats or a section's count.
pub async fn run(
    conn: &mut PgConnection,
    op: &Op,
    statement: &Statement,
    commit_of_failed: bool,
    clock: i64,
    scenario: &Scenario,
) -> Result<(StepResult, Vec<SeenRow>), ExecFault> {
    executor::answer_one(conn, op, statement, commit_of_failed, clock, scenario)
        .await
        .map_err(|e| match e {
            // An error of PostgreSQL's is a step result; what is left is the connection's.
            ExecError::Database(sqlx::Error::RowNotFound) => {
                ExecFault::Unexpected(format!("{} answered no row", op.name()))
            }
            ExecError::ConnectionLost(e) | ExecError::Database(e) => ExecFault::Lost(e),
            ExecError::Unexpected(what) => ExecFault::Unexpected(what),
            other => ExecFault::Unexpected(other.to_string()),
        })
}
