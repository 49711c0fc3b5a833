//! The explorer's work done the obviously right way, to hold the explorer to: every order
//! simulated on its own. Not every test file that shares `common` uses it.
#![allow(dead_code)]

use std::collections::BTreeMap;

use shared::assess::assess;
use shared::engine::simulate;
use shared::explorer::{self, Exploration, Group};
use shared::outcome::Verdict;
use shared::Schedule;

/// The first `limit` orders from `explorer::orders`, each simulated on its own and assessed from
/// its whole trace, grouped by verdict and stop label; a group's first order is its example.
pub fn explore_slowly(schedule: &Schedule, limit: u64) -> Exploration {
    let (orders, complete) = explorer::orders(schedule, limit);
    let mut groups: BTreeMap<(Verdict, String), Group> = BTreeMap::new();
    for order in &orders {
        let trace = simulate(&schedule.with_order(order.clone())).expect("a feasible order");
        let outcome = assess(schedule, trace.clone());
        let stop = explorer::stop_label(schedule, &trace, &outcome.seats, &outcome.verdict);
        let stops = explorer::stops(schedule, &trace, &outcome.seats, &outcome.verdict);
        groups
            .entry((outcome.verdict.clone(), stop.clone()))
            .or_insert_with(|| Group {
                verdict: outcome.verdict.clone(),
                stop,
                stops,
                count: 0,
                example: order
                    .iter()
                    .map(|&a| schedule.actors()[a].name.clone())
                    .collect(),
            })
            .count += 1;
    }
    let mut groups: Vec<Group> = groups.into_values().collect();
    groups.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.example.cmp(&b.example))
    });
    Exploration {
        orders: orders.len() as u64,
        complete,
        permutations: explorer::permutations(schedule),
        groups,
    }
}
