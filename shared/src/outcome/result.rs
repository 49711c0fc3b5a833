//! What one operation finally did: done (with its rows), skipped, a one-call operation's
//! answer, PostgreSQL's error with its SQLSTATE, or the rollback of a failed transaction's
//! commit. The simulator and the executor both write it; the JSON is the trace's and the
//! fixtures'.

use serde::{Deserialize, Serialize};

use crate::sqlstate::SqlState;

/// The answer of a one-call operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    Held,
    Unavailable,
    Busy,
    Expired,
    Issued,
    Duplicate,
    RefundDue,
    Released,
}

impl Answer {
    /// Every answer, in the order of the type.
    pub const ALL: [Answer; 8] = [
        Answer::Held,
        Answer::Unavailable,
        Answer::Busy,
        Answer::Expired,
        Answer::Issued,
        Answer::Duplicate,
        Answer::RefundDue,
        Answer::Released,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Answer::Held => "held",
            Answer::Unavailable => "unavailable",
            Answer::Busy => "busy",
            Answer::Expired => "expired",
            Answer::Issued => "issued",
            Answer::Duplicate => "duplicate",
            Answer::RefundDue => "refund_due",
            Answer::Released => "released",
        }
    }

    pub fn parse(s: &str) -> Option<Answer> {
        Answer::ALL.into_iter().find(|a| a.as_str() == s)
    }
}

/// What an operation finally did.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum StepResult {
    /// Done; `rows` is the number of rows affected or returned, where the op has one.
    Ok {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rows: Option<u64>,
    },
    /// Not sent: the actor remembered one of the seats as taken, or the operation's condition
    /// (`"if"`) did not hold.
    Skipped,
    /// A one-call operation's answer.
    Answer { answer: Answer },
    /// PostgreSQL raised an error: its SQLSTATE and its own words.
    Error { code: SqlState, message: String },
    /// A `commit` of a failed transaction: PostgreSQL answers with the tag ROLLBACK.
    RolledBack,
}

impl StepResult {
    /// The compact form used in `expect.steps` (without the `waiting>` prefix).
    pub fn short(&self) -> String {
        match self {
            StepResult::Ok { rows: Some(n) } => format!("ok:{n}"),
            StepResult::Ok { rows: None } => "ok".to_string(),
            StepResult::Skipped => "skipped".to_string(),
            StepResult::Answer { answer } => answer.as_str().to_string(),
            StepResult::Error { code, .. } => format!("error:{code}"),
            StepResult::RolledBack => "rolled_back".to_string(),
        }
    }

    pub fn is_error(&self) -> bool {
        matches!(self, StepResult::Error { .. })
    }

    /// The SQLSTATE PostgreSQL raised, if it raised one.
    pub fn code(&self) -> Option<&SqlState> {
        match self {
            StepResult::Error { code, .. } => Some(code),
            _ => None,
        }
    }
}
