//! One statement of `shared::sql` on a round's connection, and PostgreSQL's answer read as the
//! model writes a step result (as the executor reads it: rows affected, the seat rows, or the
//! one-call functions' word; an error is data with its SQLSTATE, a fault is not).

use shared::client;
use shared::outcome::{Answer, SeenRow, StepResult};
use shared::schedule::{Op, SeatStatus};
use shared::sql::{Param, Statement};
use sqlx::postgres::PgArguments;
use sqlx::query::Query;
use sqlx::{PgConnection, Postgres, Row};

use crate::db::Fault;

/// A statement that could not be answered: the database went away under it, or answered
/// something the model has no word for.
#[derive(Debug, thiserror::Error)]
pub enum ExecFault {
    #[error("the database connection was lost: {0}")]
    Lost(sqlx::Error),
    #[error("unexpected answer: {0}")]
    Unexpected(String),
}

/// Sends `statement` (the SQL of `op`) and reads the answer. `commit_of_failed`: a `commit` of
/// a transaction an error aborted, which PostgreSQL answers with ROLLBACK.
pub async fn run(
    conn: &mut PgConnection,
    op: &Op,
    statement: &Statement,
    commit_of_failed: bool,
    clock: i64,
) -> Result<(StepResult, Vec<SeenRow>), ExecFault> {
    let query = statement
        .params
        .iter()
        .fold(sqlx::query(&statement.sql), bind);
    let raw = match op {
        Op::Read { .. } | Op::Lock { .. } => query.fetch_all(&mut *conn).await.map(Raw::Rows),
        Op::Hold { .. } | Op::Confirm { .. } => query
            .fetch_all(&mut *conn)
            .await
            .map(|rows| Raw::Word(rows.first().and_then(|r| r.try_get(0).ok()))),
        _ => query
            .execute(&mut *conn)
            .await
            .map(|r| Raw::Affected(r.rows_affected())),
    };
    let raw = match raw {
        Ok(raw) => raw,
        Err(e) if Fault::of(&e).is_some() => return Err(ExecFault::Lost(e)),
        Err(sqlx::Error::Database(e)) => {
            let code = e
                .code()
                .map(|c| c.into_owned())
                .unwrap_or_else(|| "XX000".into());
            return Ok((
                StepResult::Error {
                    code,
                    message: e.message().to_string(),
                },
                vec![],
            ));
        }
        Err(e) => return Err(ExecFault::Lost(e)),
    };
    let unexpected = |what: String| ExecFault::Unexpected(format!("{} answered {what}", op.name()));
    let result = match (op, raw) {
        (_, Raw::Rows(rows)) => {
            let seen = rows
                .iter()
                .map(|r| {
                    let (seat, status, holder, until): (
                        String,
                        String,
                        Option<String>,
                        Option<i64>,
                    ) = (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?);
                    Ok((seat, status, holder, until))
                })
                .collect::<Result<Vec<_>, sqlx::Error>>()
                .map_err(|e| unexpected(e.to_string()))?
                .into_iter()
                .map(|(seat, status, holder, until)| {
                    let status =
                        SeatStatus::from_sql(&status).ok_or_else(|| unexpected(status.clone()))?;
                    Ok(client::seen_row(&seat, status, holder, until, clock))
                })
                .collect::<Result<Vec<_>, ExecFault>>()?;
            return Ok((
                StepResult::Ok {
                    rows: Some(seen.len() as u64),
                },
                seen,
            ));
        }
        (_, Raw::Word(word)) => match word.as_deref().and_then(Answer::parse) {
            Some(answer) => StepResult::Answer { answer },
            None => return Err(unexpected(format!("{word:?}"))),
        },
        (Op::Commit, Raw::Affected(_)) if commit_of_failed => StepResult::RolledBack,
        (Op::Begin { .. } | Op::Commit | Op::Rollback | Op::Advance { .. }, Raw::Affected(_)) => {
            StepResult::Ok { rows: None }
        }
        (Op::Release, Raw::Affected(n)) => StepResult::Answer {
            answer: if n >= 1 {
                Answer::Released
            } else {
                Answer::Expired
            },
        },
        (_, Raw::Affected(n)) => StepResult::Ok { rows: Some(n) },
    };
    Ok((result, vec![]))
}

enum Raw {
    Rows(Vec<sqlx::postgres::PgRow>),
    Word(Option<String>),
    Affected(u64),
}

fn bind<'q>(
    query: Query<'q, Postgres, PgArguments>,
    param: &'q Param,
) -> Query<'q, Postgres, PgArguments> {
    match param {
        Param::Int(n) => query.bind(*n),
        Param::OptInt(n) => query.bind(*n),
        Param::Text(s) => query.bind(s.as_str()),
        Param::OptText(s) => query.bind(s.as_deref()),
        Param::TextArray(v) => query.bind(v.as_slice()),
    }
}
