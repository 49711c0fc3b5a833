//! A participant's request as data: what they ask for (a tap, a payment, a cancel), each
//! operation as carried out, and the operations as the record keeps them. `attempt/` makes
//! these and `record.rs` writes them down; neither needs the other's code for it.

use std::time::SystemTime;

use shared::outcome::{SeenRow, StepResult};
use shared::protocol::room::Step;
use shared::schedule::{Condition, Op};

/// What a participant asks for.
#[derive(Clone, Debug)]
pub enum Kind {
    Tap(Vec<String>),
    Pay,
    Cancel,
}

/// An operation still to do, with its condition.
pub type Planned = (Op, Condition);

/// An operation as recorded earlier in the round: the op with its `"if"`, its result, the rows
/// it saw, the clock.
pub type Recorded = (serde_json::Value, StepResult, Vec<SeenRow>, i64);

/// One operation as carried out, for the reply and the record.
#[derive(Clone, Debug)]
pub struct Done {
    pub op_index: usize,
    pub op: Op,
    pub condition: Condition,
    /// The SQL (parameters written in) or the Redis command; none when nothing was sent.
    pub sent: Option<String>,
    pub result: StepResult,
    pub seen: Vec<SeenRow>,
    pub clock: i64,
    pub sent_at: SystemTime,
    pub took_ms: f64,
}

impl Done {
    /// The operation as the phone's reply shows it.
    pub fn step(&self) -> Step {
        Step {
            op_index: self.op_index,
            name: self.op.name().to_string(),
            sent: self.sent.clone(),
            result: self.result.clone(),
            took_ms: self.took_ms,
        }
    }
}

/// An op as recorded (`op_value`: the op with its `"if"`).
pub fn decode_op(value: &serde_json::Value) -> Option<Planned> {
    let mut value = value.clone();
    let condition = value
        .as_object_mut()?
        .remove("if")
        .map(serde_json::from_value)
        .transpose()
        .ok()?
        .unwrap_or_default();
    Some((serde_json::from_value(value).ok()?, condition))
}
