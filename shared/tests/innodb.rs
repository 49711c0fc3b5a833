//! The InnoDB model as its callers drive it: every built-in scenario raced on InnoDB (the
//! confirms included) is walked whole by the explorer, whose engine copies must group every order exactly as simulating each order from
//! scratch does.

use std::collections::BTreeMap;

use shared::assess::assess;
use shared::engine::simulate;
use shared::explorer::{self, explore, Exploration, Group};
use shared::outcome::Verdict;
use shared::schedule::Database;
use shared::{scenarios, Schedule};

/// Every order simulated on its own and assessed from its whole trace (as explorer_matrix.rs
/// does for PostgreSQL).
fn explore_slowly(schedule: &Schedule) -> Exploration {
    let (orders, complete) = explorer::orders(schedule, u64::MAX);
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

#[test]
fn every_builtin_on_innodb_is_explored_like_every_order_alone() {
    let mut explored = 0;
    for builtin in scenarios::all() {
        let on = builtin
            .schedule()
            .on(Database::Innodb)
            .unwrap_or_else(|e| panic!("{}: refused on InnoDB: {e}", builtin.id));
        assert_eq!(on.database(), Database::Innodb);
        let fast = explore(&on, u64::MAX);
        assert!(fast.complete, "{}: cut short", builtin.id);
        assert_eq!(fast, explore_slowly(&on), "{}", builtin.id);
        explored += 1;
    }
    assert!(explored > 5, "only {explored} built-ins explored on InnoDB");
}
