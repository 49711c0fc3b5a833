//! One actor's connection, owned by a task of its own: the run hands it a statement and goes
//! on at once, so that a statement blocked on a lock stays pending while the schedule goes on.
//! Answers come back on one channel for all the run's actors. The task ends when the run drops
//! its side; the connection's server thread is killed by the clean-up (`database::Session`),
//! whatever it was waiting for.

use shared::sql::{Param, Statement};
use sqlx::mysql::{MySqlArguments, MySqlConnection};
use sqlx::query::Query;
use sqlx::{Executor, MySql, Row};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::executor::statement::{Fetch, Raw, RawRow};

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
