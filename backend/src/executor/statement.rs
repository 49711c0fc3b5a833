//! One statement on a connection: its parameters bound, sent, and its answer read raw, before
//! `answer` reads it as a step result; and the statement that sets a connection up for a run.

use futures::future::BoxFuture;
use shared::sql::{Param, Statement};
use sqlx::postgres::PgArguments;
use sqlx::query::Query;
use sqlx::{Executor, PgConnection, Postgres, Row};

/// What a statement's answer is read as.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Fetch {
    /// The number of rows affected.
    Affected,
    /// Seat rows (`seat_id, status, holder, held_until`).
    Rows,
    /// A counter's rows (key, value or flag), each judged against what one request takes.
    Counters(Counting),
    /// One text value (the one-call functions).
    Text,
}

/// How a counter's rows are read: what one request takes, and whether the value is a flag
/// (a coupon's `used`, read as 1 while unset).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Counting {
    pub take: i64,
    pub flag: bool,
    /// A username's: each row returned is an account that has the name (taken).
    pub taken: bool,
}

impl Counting {
    /// The counting of `scenario`'s rows, if they are a counter's or a username's.
    pub fn of(scenario: &shared::schedule::Scenario) -> Option<Counting> {
        if scenario.kind.is_username() {
            return Some(Counting {
                take: 1,
                flag: false,
                taken: true,
            });
        }
        Some(Counting {
            take: scenario.counter_take()?,
            flag: shared::sql::counter::table(scenario.kind)?.is_flag(),
            taken: false,
        })
    }
}

/// A seat row as a `read` or `lock` returned it.
#[derive(Debug)]
pub(crate) struct RawRow {
    pub seat: String,
    pub status: String,
    pub holder: Option<String>,
    pub until: Option<i64>,
}

/// A statement's answer, before it is read as a step result.
#[derive(Debug)]
pub(crate) enum Raw {
    Affected(u64),
    Rows(Vec<RawRow>),
    /// A counter's rows (key, value: a flag's is 1 while unset) and how they are read (a
    /// username's: the name, once per account).
    Counters(Vec<(String, i64)>, Counting),
    Text(String),
}

/// Runs `setup` (ending with `select pg_backend_pid()`) on `conn`; the backend pid.
pub(crate) fn setup<'c>(
    conn: &'c mut PgConnection,
    setup: &'c str,
) -> BoxFuture<'c, Result<i32, sqlx::Error>> {
    Box::pin(async move { conn.fetch_one(sqlx::raw_sql(setup)).await?.try_get(0) })
}

/// Boxed so that the future's `Send` is checked at one lifetime (the task is spawned).
pub(super) fn run<'c>(
    conn: &'c mut PgConnection,
    statement: &'c Statement,
    fetch: Fetch,
) -> BoxFuture<'c, Result<Raw, sqlx::Error>> {
    Box::pin(async move {
        let query = statement
            .params
            .iter()
            .fold(sqlx::query(&statement.sql), bind);
        match fetch {
            Fetch::Affected => query
                .execute(conn)
                .await
                .map(|r| Raw::Affected(r.rows_affected())),
            // All rows, not the first: the answer is in only once its (auto)commit is done.
            Fetch::Text => query
                .fetch_all(conn)
                .await
                .and_then(|rows| match rows.first() {
                    Some(row) => row.try_get(0).map(Raw::Text),
                    None => Err(sqlx::Error::RowNotFound),
                }),
            Fetch::Rows => {
                let rows = query.fetch_all(conn).await?;
                rows.iter()
                    .map(|row| {
                        Ok(RawRow {
                            seat: row.try_get(0)?,
                            status: row.try_get(1)?,
                            holder: row.try_get(2)?,
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
                        let value = if c.taken {
                            // A username's: the name alone, one row per account.
                            1
                        } else if c.flag {
                            i64::from(!row.try_get::<bool, _>(1)?)
                        } else {
                            row.try_get(1)?
                        };
                        Ok((row.try_get(0)?, value))
                    })
                    .collect::<Result<_, sqlx::Error>>()
                    .map(|rows| Raw::Counters(rows, c))
            }
        }
    })
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
