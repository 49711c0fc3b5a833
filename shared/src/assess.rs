//! From a trace to an outcome (being written).

use crate::outcome::{Outcome, Trace};
use crate::schedule::Schedule;

/// Builds the outcome (told, verdicts) of a trace.
pub fn assess(_schedule: &Schedule, _trace: Trace) -> Outcome {
    todo!("assess")
}

/// The differences between a simulated and a real outcome, in plain words; empty if identical.
pub fn compare(_simulated: &Outcome, _real: &Outcome) -> Vec<String> {
    todo!("compare")
}

/// Where the outcome fails the schedule's `expect`; empty if it holds (or there is none).
pub fn check_expect(_schedule: &Schedule, _outcome: &Outcome) -> Vec<String> {
    todo!("check_expect")
}
