//! The arguments an operation takes besides its seats: the isolation level of a `begin`, how a
//! `lock` treats a locked row, which clock reading a deadline test uses, and what the payment
//! provider answers to a `pay`.

use serde::{Deserialize, Serialize};

/// Transaction isolation levels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Isolation {
    #[default]
    #[serde(rename = "read committed")]
    ReadCommitted,
    #[serde(rename = "repeatable read")]
    RepeatableRead,
    #[serde(rename = "serializable")]
    Serializable,
}

impl Isolation {
    pub fn as_sql(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "read committed",
            Isolation::RepeatableRead => "repeatable read",
            Isolation::Serializable => "serializable",
        }
    }
}

/// How a locking read treats a row that someone else has locked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wait {
    #[default]
    Wait,
    Nowait,
    SkipLocked,
}

/// Which clock reading a deadline test uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Now {
    /// Fixed when the transaction began, like `now()`.
    Transaction,
    /// When the statement began, like `statement_timestamp()`.
    Statement,
    /// Read each time the condition is evaluated, like `clock_timestamp()`.
    Evaluation,
}

impl Now {
    pub fn as_str(self) -> &'static str {
        match self {
            Now::Transaction => "transaction",
            Now::Statement => "statement",
            Now::Evaluation => "evaluation",
        }
    }
}

/// What the payment provider answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PayOutcome {
    #[default]
    Succeeds,
    Declined,
    /// A timeout: the money may or may not have moved. The provider did take it; a retry with
    /// the same idempotency key learns so.
    Unknown,
}
