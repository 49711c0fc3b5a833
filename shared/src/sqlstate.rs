//! The errors a seat race meets, as a type: the five-character SQLSTATE PostgreSQL sends, or the
//! error number MySQL and MariaDB send (InnoDB's errors share a few vague SQLSTATEs, so the
//! number is what tells them apart), as the schedule format and the outcome write them, and what
//! each means. Every comparison with a code goes through this type; every sentence about one is
//! in `words`.

mod words;

use std::fmt;

use serde::{Deserialize, Serialize};

/// An error code: one the races meet by name, or any other code as the database sent it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum SqlState {
    /// 23505: a second ticket for a seat, refused by the unique key.
    UniqueViolation,
    /// 25P02: a statement of a transaction that an earlier error aborted.
    InFailedTransaction,
    /// 40001: REPEATABLE READ met a concurrent update, or SERIALIZABLE a dangerous cycle.
    SerializationFailure,
    /// 40P01: the transaction was failed to break a deadlock.
    DeadlockDetected,
    /// 55P03: NOWAIT found the row locked.
    LockNotAvailable,
    /// 57014: the statement was cancelled (a timeout).
    QueryCanceled,
    /// MySQL 1062 (SQLSTATE 23000), ER_DUP_ENTRY: a second ticket for a seat, refused by the
    /// unique key. The statement is undone; the transaction goes on.
    DuplicateEntry,
    /// MySQL 1205 (SQLSTATE HY000), ER_LOCK_WAIT_TIMEOUT: the row lock was not granted in time;
    /// MariaDB also answers NOWAIT with it. The statement is undone; the transaction goes on.
    LockWaitTimeout,
    /// MySQL 1213 (SQLSTATE 40001), ER_LOCK_DEADLOCK: InnoDB rolled the whole transaction back
    /// to break a deadlock, the moment the cycle closed.
    LockDeadlock,
    /// MySQL 3572 (SQLSTATE HY000), ER_LOCK_NOWAIT: MySQL 8's answer to NOWAIT on a locked row.
    LockNowait,
    /// Any other code, as sent.
    Other(String),
}

impl SqlState {
    /// Every code known by name, in code order.
    pub const NAMED: [SqlState; 10] = [
        SqlState::UniqueViolation,
        SqlState::InFailedTransaction,
        SqlState::SerializationFailure,
        SqlState::DeadlockDetected,
        SqlState::LockNotAvailable,
        SqlState::QueryCanceled,
        SqlState::DuplicateEntry,
        SqlState::LockWaitTimeout,
        SqlState::LockDeadlock,
        SqlState::LockNowait,
    ];

    /// The code of `code` (a known one by name, anything else as `Other`).
    pub fn parse(code: &str) -> SqlState {
        SqlState::NAMED
            .into_iter()
            .find(|s| s.code() == code)
            .unwrap_or_else(|| SqlState::Other(code.to_string()))
    }

    /// The five characters PostgreSQL sends, or MySQL's error number.
    pub fn code(&self) -> &str {
        match self {
            SqlState::UniqueViolation => "23505",
            SqlState::InFailedTransaction => "25P02",
            SqlState::SerializationFailure => "40001",
            SqlState::DeadlockDetected => "40P01",
            SqlState::LockNotAvailable => "55P03",
            SqlState::QueryCanceled => "57014",
            SqlState::DuplicateEntry => "1062",
            SqlState::LockWaitTimeout => "1205",
            SqlState::LockDeadlock => "1213",
            SqlState::LockNowait => "3572",
            SqlState::Other(code) => code,
        }
    }

    /// Whether an application's retry of the whole attempt is worth it: a serialization
    /// failure, a deadlock, or a busy row (`"if": "failed"`).
    pub fn retryable(&self) -> bool {
        self.is_deadlock() || self.is_busy() || *self == SqlState::SerializationFailure
    }

    /// A second ticket refused by the unique key, in either database's words.
    pub fn is_duplicate(&self) -> bool {
        matches!(self, SqlState::UniqueViolation | SqlState::DuplicateEntry)
    }

    /// The transaction failed to break a deadlock, in either database's words.
    pub fn is_deadlock(&self) -> bool {
        matches!(self, SqlState::DeadlockDetected | SqlState::LockDeadlock)
    }

    /// A locked row that the statement would not (or could no longer) wait for: NOWAIT's
    /// answer in either database, or InnoDB's lock wait timeout.
    pub fn is_busy(&self) -> bool {
        matches!(
            self,
            SqlState::LockNotAvailable | SqlState::LockWaitTimeout | SqlState::LockNowait
        )
    }

    /// MySQL's SQLSTATE of one of its error numbers (`None` for PostgreSQL's codes, which are
    /// SQLSTATEs themselves).
    pub fn mysql_sqlstate(&self) -> Option<&'static str> {
        match self {
            SqlState::DuplicateEntry => Some("23000"),
            SqlState::LockDeadlock => Some("40001"),
            SqlState::LockWaitTimeout | SqlState::LockNowait => Some("HY000"),
            _ => None,
        }
    }
}

impl From<String> for SqlState {
    fn from(code: String) -> SqlState {
        SqlState::parse(&code)
    }
}

impl From<&str> for SqlState {
    fn from(code: &str) -> SqlState {
        SqlState::parse(code)
    }
}

impl From<SqlState> for String {
    fn from(state: SqlState) -> String {
        state.code().to_string()
    }
}

impl fmt::Display for SqlState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_code_reads_back_as_itself_and_others_are_kept_as_sent() {
        for state in SqlState::NAMED {
            assert_eq!(SqlState::parse(state.code()), state);
            let json = serde_json::to_string(&state).unwrap();
            assert_eq!(json, format!("\"{}\"", state.code()));
            assert_eq!(serde_json::from_str::<SqlState>(&json).unwrap(), state);
        }
        assert_eq!(SqlState::parse("XX000"), SqlState::Other("XX000".into()));
        assert_eq!(SqlState::parse("XX000").code(), "XX000");
    }
}
