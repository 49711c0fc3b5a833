//! The bounds on `POST /api/verify`: how many orders, how much estimated time, how many at
//! once.

use std::time::Duration;

/// The bounds on verifications.
#[derive(Clone, Debug)]
pub struct VerifyRules {
    /// The most orders one verification runs.
    pub max_orders: u64,
    /// The most estimated PostgreSQL time (`cost.rs`) of all its orders together.
    pub max_cost: Duration,
    /// Verifications at once.
    pub at_once: usize,
}

impl Default for VerifyRules {
    fn default() -> VerifyRules {
        VerifyRules {
            max_orders: 5_000,
            max_cost: Duration::from_secs(30 * 60),
            at_once: 2,
        }
    }
}
