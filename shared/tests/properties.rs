//! Properties of the model that must hold whatever the order.
//!
//! The correct defences are checked exhaustively (every feasible interleaving, not a sample);
//! random schedules check that the model never panics, is deterministic, and never stores two
//! tickets for one seat.

mod common;

use common::program;
use proptest::prelude::*;
use shared::assess::assess;
use shared::engine::simulate;
use shared::explorer::{explore, for_each_order};
use shared::schedule::{Op, ScheduleFile};
use shared::Schedule;

fn two_or_three_buyers(defence: &str, buyers: &[&str], seats: &str) -> Schedule {
    let actors: Vec<String> = buyers
        .iter()
        .map(|b| format!(r#""{b}": {{"defence": "{defence}", "seats": {seats}}}"#))
        .collect();
    let json = format!(
        r#"{{"version": 1, "scenario": {{"seats": [{{"id": "A7"}}, {{"id": "A8"}}, {{"id": "A9"}}]}}, "actors": {{{}}}}}"#,
        actors.join(",")
    );
    Schedule::parse_json(&json).expect("valid")
}

#[test]
fn no_correct_defence_ever_double_books_whatever_the_order() {
    let correct = [
        "repeatable_read",
        "serializable",
        "atomic_update",
        "lock_row",
        "lock_nowait",
        "unique_constraint",
        "hold_confirm",
    ];
    for defence in correct {
        for buyers in [&["adam", "omar"][..], &["adam", "omar", "zoe"][..]] {
            let schedule = two_or_three_buyers(defence, buyers, r#"["A7"]"#);
            let exploration = explore(&schedule, 1_000_000);
            assert!(exploration.complete, "{defence}: search was cut short");
            assert!(
                exploration.orders > 1,
                "{defence}: explored {}",
                exploration.orders
            );
            assert_eq!(
                exploration.double_booked(),
                0,
                "{defence} with {buyers:?} double-books: {:?}",
                exploration.counterexample()
            );
        }
    }
}

#[test]
fn check_then_act_and_a_read_committed_transaction_can_double_book() {
    for defence in ["check_then_act", "transaction"] {
        let exploration = explore(
            &two_or_three_buyers(defence, &["adam", "omar"], r#"["A7"]"#),
            1_000_000,
        );
        assert!(
            exploration.double_booked() > 0,
            "{defence} never double-booked"
        );
        assert!(
            exploration.double_booked() < exploration.orders,
            "{defence} always double-booked"
        );
    }
}

#[test]
fn all_or_nothing_family_bookings_never_split_a_family() {
    let schedule = Schedule::parse_json(
        r#"{"version": 1, "scenario": {"seats": [{"id": "A1"}, {"id": "A2"}, {"id": "A3"}]},
            "actors": {"fam": {"defence": "lock_nowait", "seats": ["A1", "A2"]},
                       "pair": {"defence": "lock_nowait", "seats": ["A2", "A3"]}}}"#,
    )
    .expect("valid");
    for_each_order(&schedule, 1_000_000, |_, engine| {
        let outcome = assess(&schedule, engine.into_trace());
        for buyer in ["fam", "pair"] {
            let got: Vec<_> = outcome
                .seats
                .iter()
                .filter(|(_, s)| s.told.iter().any(|t| t == buyer))
                .collect();
            assert!(
                got.is_empty() || got.len() == 2,
                "{buyer} got part of its seats: {got:?}"
            );
        }
    });
}

fn schedule_of(programs: Vec<Vec<Op>>, advance: bool) -> Schedule {
    let mut actors = serde_json::Map::new();
    for (i, ops) in programs.into_iter().enumerate() {
        actors.insert(
            format!("b{i}"),
            serde_json::to_value(ops).expect("ops serialise"),
        );
    }
    if advance {
        actors.insert(
            "clock".into(),
            serde_json::json!([{"op": "advance", "minutes": 11}, {"op": "sweep"}]),
        );
    }
    let file: ScheduleFile = serde_json::from_value(serde_json::json!({
        "version": 1,
        "scenario": {"seats": [{"id": "A1"}, {"id": "A2"}]},
        "actors": actors,
    }))
    .expect("a schedule file");
    Schedule::parse(file).expect("generated schedules are valid")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn the_model_is_total_deterministic_and_never_stores_two_tickets_for_a_seat(
        programs in prop::collection::vec(program(2), 2..=3),
        advance in any::<bool>(),
        pick in prop::collection::vec(any::<prop::sample::Index>(), 0..40),
    ) {
        let schedule = schedule_of(programs, advance);
        // Walk one random feasible order, never naming a waiting buyer.
        let mut engine = shared::engine::Engine::new(&schedule);
        let mut remaining: Vec<usize> = schedule.actors().iter().map(|a| a.program.len()).collect();
        let mut order = Vec::new();
        let mut picks = pick.into_iter();
        loop {
            let runnable: Vec<usize> = (0..remaining.len())
                .filter(|&a| remaining[a] > 0 && engine.blocked(a).is_none())
                .collect();
            if runnable.is_empty() { break; }
            let a = runnable[picks.next().map(|i| i.index(runnable.len())).unwrap_or(0)];
            engine.step(a).expect("a runnable buyer can be stepped");
            remaining[a] -= 1;
            order.push(a);
        }
        let trace = engine.into_trace();
        prop_assert_eq!(trace.entries.len(), order.len());
        let again = simulate(&schedule.with_order(order.clone())).expect("the same order replays");
        prop_assert_eq!(&again, &trace);
        for entry in &trace.entries {
            let mut seats: Vec<&String> = entry.tables.bookings.iter().map(|b| &b.seat).collect();
            let n = seats.len();
            seats.dedup();
            prop_assert_eq!(seats.len(), n, "two tickets for one seat");
        }
        let _ = assess(&schedule, trace);
    }
}
