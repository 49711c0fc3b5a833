//! The PostgreSQL model (being written).

use crate::outcome::Trace;
use crate::schedule::{Schedule, ScheduleError};

/// Runs the schedule's order in the model.
pub fn simulate(_schedule: &Schedule) -> Result<Trace, ScheduleError> {
    todo!("engine")
}
