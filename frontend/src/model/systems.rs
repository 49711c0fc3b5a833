//! The systems outside the database that the buyers talk to (the payment provider, Redis), each
//! with a lane of its own on the timeline, and what each answered entry by entry.

use std::collections::BTreeMap;

use shared::outcome::{Answer, StepResult};
use shared::schedule::{Op, PayOutcome};
use shared::{Outcome, Schedule};

/// A system outside the database that the buyers talk to, with a lane of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum System {
    Provider,
    Redis,
}

impl System {
    pub fn name(self) -> &'static str {
        match self {
            System::Provider => "Provider",
            System::Redis => "Redis",
        }
    }
}

/// What a system answered to one entry: drawn in its lane, in the entry's column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemMark {
    pub index: usize,
    pub system: System,
    pub text: String,
}

/// The systems the schedule talks to besides the database (the payment provider, Redis), and
/// what each answered entry by entry: the provider's decision for each hold id, kept for a
/// retry with the same key; Redis's reply to each SET NX or delete.
pub fn system_lanes(schedule: &Schedule, outcome: &Outcome) -> (Vec<System>, Vec<SystemMark>) {
    let mut systems = Vec::new();
    if schedule.any_op(|op| matches!(op, Op::Pay { .. })) {
        systems.push(System::Provider);
    }
    if schedule.any_op(Op::is_redis) {
        systems.push(System::Redis);
    }
    let mut marks = Vec::new();
    let mut decided: BTreeMap<String, String> = BTreeMap::new();
    for (index, entry) in outcome.entries.iter().enumerate() {
        let answer = match &entry.trace.result {
            Some(StepResult::Answer { answer }) => Some(*answer),
            _ => None,
        };
        let (system, text) = match (&entry.op, answer) {
            (Op::Pay { outcome: pay }, _) => {
                let actor = schedule.actor_index(&entry.trace.actor).unwrap_or(0);
                let key = shared::export::clients_at(schedule, outcome, index).actors[actor]
                    .current_hold
                    .clone()
                    .unwrap_or_else(|| format!("{}:none", entry.trace.actor));
                let text = match decided.get(&key) {
                    Some(first) => format!("same key: {first}"),
                    None => {
                        let first = match pay {
                            PayOutcome::Succeeds => "charged",
                            PayOutcome::Declined => "declined",
                            PayOutcome::Unknown => "timed out, charged",
                        }
                        .to_string();
                        decided.insert(key, first.clone());
                        first
                    }
                };
                (System::Provider, text)
            }
            (Op::RedisHold { .. }, Some(Answer::Held)) => (System::Redis, "OK".to_string()),
            (Op::RedisHold { .. }, _) => (System::Redis, "nil: key exists".to_string()),
            (Op::RedisRelease, Some(Answer::Released)) => (System::Redis, "deleted".to_string()),
            (Op::RedisRelease, _) => (System::Redis, "no key".to_string()),
            _ => continue,
        };
        marks.push(SystemMark {
            index,
            system,
            text,
        });
    }
    (systems, marks)
}
