//! Which orders a verification runs: every feasible interleaving of the schedule's programs
//! (the explorer's walk), or, when there are more than the limit, a sample spread evenly over
//! all of them in the walk's order, so that it reaches every part of the space and is the same
//! sample every time.

use serde::Serialize;
use shared::explorer::{for_each_order, orders};
use shared::Schedule;

/// The most orders counted to draw a sample from; past it the sample covers the first ones.
pub const COUNT_LIMIT: u64 = 2_000_000;

/// The orders to run, and what share of the space they are.
#[derive(Clone, Debug)]
pub struct Plan {
    /// As actor indices, in the walk's order.
    pub orders: Vec<Vec<usize>>,
    /// The feasible orders there are (at most `COUNT_LIMIT`: see `counted_all`).
    pub space: u64,
    /// Whether `space` is every feasible order, not the first `COUNT_LIMIT` of more.
    pub counted_all: bool,
}

/// How much of the space a plan covers, in the summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// The orders run (or to be run).
    pub orders: u64,
    /// The feasible orders counted.
    pub space: u64,
    /// Every feasible order is run.
    pub every_order: bool,
    /// More than `space` orders exist (the count stopped at its limit).
    pub space_is_a_lower_bound: bool,
}

impl Plan {
    /// Every feasible order of `schedule`, if there are at most `limit`.
    pub fn every_order(schedule: &Schedule, limit: u64) -> Option<Plan> {
        let (all, complete) = orders(schedule, limit);
        complete.then_some(Plan {
            space: all.len() as u64,
            orders: all,
            counted_all: true,
        })
    }

    /// Every feasible order of `schedule`, or `limit` of them spread evenly over the space.
    pub fn of(schedule: &Schedule, limit: u64) -> Plan {
        let limit = limit.max(1);
        if let Some(plan) = Plan::every_order(schedule, limit) {
            return plan;
        }
        let mut space = 0u64;
        let counted_all = for_each_order(schedule, COUNT_LIMIT, |_, _| space += 1);
        // The k-th order kept is the one at ⌊k × space / limit⌋ in the walk.
        let mut sample = Vec::with_capacity(limit as usize);
        let mut index = 0u64;
        for_each_order(schedule, space, |path, _| {
            let next = sample.len() as u128 * space as u128 / limit as u128;
            if sample.len() < limit as usize && index as u128 == next {
                sample.push(path.to_vec());
            }
            index += 1;
        });
        Plan {
            orders: sample,
            space,
            counted_all,
        }
    }

    /// Whether the plan runs every feasible order.
    pub fn covers_all(&self) -> bool {
        self.counted_all && self.orders.len() as u64 == self.space
    }

    pub fn coverage(&self) -> Coverage {
        Coverage {
            orders: self.orders.len() as u64,
            space: self.space,
            every_order: self.covers_all(),
            space_is_a_lower_bound: !self.counted_all,
        }
    }
}

impl Coverage {
    /// "every feasible order (90)", "a sample of 1000 of the 16290 feasible orders, spread
    /// evenly over them", …
    pub fn words(&self) -> String {
        if self.every_order {
            return format!("every feasible order ({})", self.orders);
        }
        let space = if self.space_is_a_lower_bound {
            format!("the first {} of more feasible orders", self.space)
        } else {
            format!("the {} feasible orders", self.space)
        };
        format!(
            "a sample of {} of {space}, spread evenly over them (raise --limit to run more)",
            self.orders
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Plan;

    fn schedule() -> shared::Schedule {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../schedules/transaction-read-committed-still-double-books.json"
        ))
        .unwrap();
        shared::Schedule::parse_json(&text).unwrap()
    }

    #[test]
    fn a_limit_above_the_count_runs_every_order_once() {
        let plan = Plan::of(&schedule(), 1_000);
        assert!(plan.covers_all());
        let mut distinct = plan.orders.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), plan.orders.len());
        assert_eq!(plan.space, plan.orders.len() as u64);
    }

    #[test]
    fn a_limit_below_the_count_samples_across_the_whole_space() {
        let all = Plan::of(&schedule(), 1_000);
        let sample = Plan::of(&schedule(), 7);
        assert!(!sample.covers_all());
        assert_eq!(sample.orders.len(), 7);
        assert_eq!(sample.space, all.space);
        assert_eq!(sample.orders[0], all.orders[0]);
        // The last one kept lies in the last seventh of the walk.
        let last = all.orders.iter().position(|o| *o == sample.orders[6]);
        assert!(last.unwrap() as u64 >= all.space * 6 / 7, "{last:?}");
        assert!(sample.coverage().words().contains("a sample of 7 of the"));
    }
}
