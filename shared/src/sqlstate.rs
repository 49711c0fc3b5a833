//! The SQLSTATEs a seat race meets, as a type: the five-character code PostgreSQL sends (and
//! the schedule format and the outcome write), and what it means. Every comparison with a code
//! goes through this type; every sentence about one is in `words`.

mod words;

use std::fmt;

use serde::{Deserialize, Serialize};

/// A SQLSTATE: one the races meet by name, or any other code as PostgreSQL sent it.
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
    /// Any other code, as sent.
    Other(String),
}

impl SqlState {
    /// Every code known by name, in code order.
    pub const NAMED: [SqlState; 6] = [
        SqlState::UniqueViolation,
        SqlState::InFailedTransaction,
        SqlState::SerializationFailure,
        SqlState::DeadlockDetected,
        SqlState::LockNotAvailable,
        SqlState::QueryCanceled,
    ];

    /// The code of `code` (a known one by name, anything else as `Other`).
    pub fn parse(code: &str) -> SqlState {
        SqlState::NAMED
            .into_iter()
            .find(|s| s.code() == code)
            .unwrap_or_else(|| SqlState::Other(code.to_string()))
    }

    /// The five characters PostgreSQL sends.
    pub fn code(&self) -> &str {
        match self {
            SqlState::UniqueViolation => "23505",
            SqlState::InFailedTransaction => "25P02",
            SqlState::SerializationFailure => "40001",
            SqlState::DeadlockDetected => "40P01",
            SqlState::LockNotAvailable => "55P03",
            SqlState::QueryCanceled => "57014",
            SqlState::Other(code) => code,
        }
    }

    /// Whether an application's retry of the whole attempt is worth it: a serialization
    /// failure, a deadlock, or a busy row (`"if": "failed"`).
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            SqlState::SerializationFailure
                | SqlState::DeadlockDetected
                | SqlState::LockNotAvailable
        )
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
