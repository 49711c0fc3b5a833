//! The admission rule's numbers, and why a run may not start.

use std::time::Duration;

use crate::http::cost::Cost;

/// The rule's numbers.
#[derive(Clone, Debug)]
pub struct Rules {
    pub slots: usize,
    pub expensive_slots: usize,
    /// A run estimated to take longer is expensive.
    pub cheap: Duration,
    /// A run estimated to take longer is refused.
    pub max_cost: Duration,
    pub queue_limit: Duration,
    pub max_waiting_per_client: usize,
}

impl Rules {
    /// The rules for `slots` runs at once.
    pub fn for_slots(slots: usize) -> Rules {
        let slots = slots.max(1);
        Rules {
            slots,
            expensive_slots: (slots / 2).max(1),
            cheap: Duration::from_secs(2),
            // A third of the executor's bound (30 s): well inside it on a loaded machine.
            max_cost: Duration::from_secs(10),
            queue_limit: Duration::from_secs(10),
            max_waiting_per_client: 4,
        }
    }
}

/// Why a run may not start.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Its estimated cost is above `Rules::max_cost`.
    TooCostly { cost: Cost, limit: Duration },
    /// No slot for it now: try again after `retry_after` seconds.
    Busy { retry_after: u64, waited: bool },
}
