//! One actor's connection, owned by a task of its own, and MariaDB's answer read as a step
//! result exactly as the model writes one (`step`: an error answer is `StepResult::Error` with
//! the MySQL error NUMBER as its code, 1213, 1205, 1062…, and the server's message; everything
//! else is read as PostgreSQL's answers are, `executor::answer::read`). The run hands the task
//! a statement and goes on at once, so that a statement blocked on a lock stays pending while
//! the schedule goes on. Answers come back on one channel for all the run's actors. The task
//! ends when the run drops its side; the connection's server thread is killed by the clean-up
//! (`database::Session`), whatever it was waiting for.

use shared::outcome::{SeenRow, StepResult};
use shared::schedule::Op;
use shared::sql::{Param, Statement};
use shared::SqlState;
use sqlx::mysql::{MySqlArguments, MySqlConnection, MySqlDatabaseError};
use sqlx::query::Query;
use sqlx::{Executor, MySql, Row};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::db::Fault;
use crate::executor::answer;
use crate::executor::statement::{Fetch, Raw, RawRow};
use crate::executor::ExecError;

/// An answer, tagged with whose statement it was.
pub(super) struct Completion {
    pub actor: usize,
    pub answer: Result<Raw, sqlx::Error>,
}

/// The run's side of an actor's connection.
pub(super) struct Actor {
    /// The connection's server thread (`CONNECTION_ID()`): how the lock tables name it.
    pub thread: i64,
    cmds: mpsc::UnboundedSender<(Statement, Fetch)>,
    task: JoinHandle<()>,
}

impl Actor {
    /// Starts the task that owns `conn` (server thread `thread`) from now on.
    pub fn spawn(
        actor: usize,
        mut conn: MySqlConnection,
        thread: i64,
        completions: mpsc::UnboundedSender<Completion>,
    ) -> Actor {
        let (cmds, mut rx) = mpsc::unbounded_channel::<(Statement, Fetch)>();
        let task = tokio::spawn(async move {
            while let Some((statement, fetch)) = rx.recv().await {
                let answer = run(&mut conn, &statement, fetch).await;
                if completions.send(Completion { actor, answer }).is_err() {
                    break;
                }
            }
        });
        Actor { thread, cmds, task }
    }

    /// Sends a statement; its answer arrives as a `Completion`. False if the task is gone.
    pub fn send(&self, statement: Statement, fetch: Fetch) -> bool {
        self.cmds.send((statement, fetch)).is_ok()
    }
}

impl Drop for Actor {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Sends one statement and reads its answer raw. A statement without parameters (`begin`'s two
/// statements, `commit`, `rollback`) goes as text; the others are prepared, their `?` bound.
async fn run(
    conn: &mut MySqlConnection,
    statement: &Statement,
    fetch: Fetch,
) -> Result<Raw, sqlx::Error> {
    if statement.params.is_empty() {
        let done = conn.execute(sqlx::raw_sql(&statement.sql)).await?;
        return Ok(Raw::Affected(done.rows_affected()));
    }
    let query = statement
        .params
        .iter()
        .fold(sqlx::query(&statement.sql), bind);
    match fetch {
        // Matched rows, as PostgreSQL counts them (the driver asks for CLIENT_FOUND_ROWS).
        Fetch::Affected => query
            .execute(conn)
            .await
            .map(|r| Raw::Affected(r.rows_affected())),
        // All rows and the call's end: the answer is in only once its commit is done.
        Fetch::Text => {
            let rows = query.fetch_all(conn).await?;
            match rows.first() {
                Some(row) => text(row, 0)?.map(Raw::Text).ok_or(sqlx::Error::RowNotFound),
                None => Err(sqlx::Error::RowNotFound),
            }
        }
        Fetch::Rows => {
            let rows = query.fetch_all(conn).await?;
            rows.iter()
                .map(|row| {
                    Ok(RawRow {
                        seat: text(row, 0)?.unwrap_or_default(),
                        status: text(row, 1)?.unwrap_or_default(),
                        holder: text(row, 2)?,
                        until: row.try_get(3)?,
                    })
                })
                .collect::<Result<_, sqlx::Error>>()
                .map(Raw::Rows)
        }
        Fetch::Counters(c) => {
            let rows = query.fetch_all(conn).await?;
            rows.iter()
                .map(|row| {
                    // A flag is MySQL's boolean, a tinyint(1): 1 when set.
                    let value = if c.taken {
                        // A username's: the name alone, one row per account.
                        1
                    } else if c.flag {
                        i64::from(!row.try_get::<bool, _>(1)?)
                    } else {
                        row.try_get(1)?
                    };
                    Ok((text(row, 0)?.unwrap_or_default(), value))
                })
                .collect::<Result<_, sqlx::Error>>()
                .map(|rows| Raw::Counters(rows, c))
        }
    }
}

/// A text column. The schema's text is utf8mb4_bin, which the protocol flags BINARY, and the
/// driver then refuses it as a `String`: read unchecked (it is UTF-8 all the same).
pub(super) fn text(row: &sqlx::mysql::MySqlRow, i: usize) -> Result<Option<String>, sqlx::Error> {
    row.try_get_unchecked::<Option<String>, _>(i)
}

fn bind<'q>(
    query: Query<'q, MySql, MySqlArguments>,
    param: &'q Param,
) -> Query<'q, MySql, MySqlArguments> {
    match param {
        Param::Int(n) => query.bind(*n),
        Param::OptInt(n) => query.bind(*n),
        Param::Text(s) => query.bind(s.as_str()),
        Param::OptText(s) => query.bind(s.as_deref()),
        // No arrays in MySQL: the InnoDB dialect never binds one; as its text if it did.
        Param::TextArray(v) => query.bind(v.join(",")),
    }
}

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
