//! MariaDB's answer to an operation, read as a step result exactly as the model writes one: an
//! error answer is `StepResult::Error` with the MySQL error NUMBER as its code (1213, 1205,
//! 1062…) and the server's message; everything else is read as PostgreSQL's answers are
//! (`executor::answer::read`).

use shared::outcome::{SeenRow, StepResult};
use shared::schedule::Op;
use shared::SqlState;
use sqlx::mysql::MySqlDatabaseError;

use crate::db::Fault;
use crate::executor::answer;
use crate::executor::statement::Raw;
use crate::executor::ExecError;

/// The step result of `op` and the rows it returned. `clock`: the client's clock as the answer
/// arrives. On InnoDB a `commit` after an error commits: it is read as any other answer.
pub(super) fn step(
    op: &Op,
    answer: Result<Raw, sqlx::Error>,
    clock: i64,
) -> Result<(StepResult, Vec<SeenRow>), ExecError> {
    match answer {
        Ok(raw) => answer::read(op, raw, false, clock),
        // The session ended under the statement (the server stopped, `KILL`): that is no
        // answer to the schedule, and never a step of the trace.
        Err(e) if Fault::of(&e).is_some() => Err(e.into()),
        Err(sqlx::Error::Database(e)) => match e.try_downcast_ref::<MySqlDatabaseError>() {
            Some(my) => Ok((
                StepResult::Error {
                    code: SqlState::parse(&my.number().to_string()),
                    message: my.message().to_string(),
                },
                Vec::new(),
            )),
            None => Err(ExecError::Unexpected(format!("not a MySQL error: {e}"))),
        },
        Err(e) => Err(e.into()),
    }
}
