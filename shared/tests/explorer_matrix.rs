//! The explorer against the obviously right way of doing what it does, and the defence ×
//! scenario matrix of chapters 4 and 5.
//!
//! The explorer copies engines into reused slots, judges each order from the engine's compact
//! record and never renders a trace; here every order is simulated from scratch, fully assessed
//! from its trace and grouped by hand, and the two must give the very same groups.

mod common;

use common::explore::explore_slowly;
use common::program;
use proptest::prelude::*;
use shared::assess::assess;
use shared::engine::simulate;
use shared::explorer::{
    explore, matrix_cell, matrix_defences, matrix_scenarios, matrix_schedule, StopHow,
    MATRIX_CELL_LIMIT,
};
use shared::schedule::{Op, ScheduleFile};
use shared::{scenarios, Defence, Schedule};

fn three_buyers_in_transactions() -> Schedule {
    Schedule::parse_json(
        r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]},
            "actors": {"adam": {"defence": "transaction"}, "omar": {"defence": "transaction"}, "zoe": {"defence": "transaction"}}}"#,
    )
    .expect("valid")
}

#[test]
fn the_explorer_groups_every_builtin_scenario_as_a_full_assessment_of_every_order_does() {
    for builtin in scenarios::all() {
        let schedule = builtin.schedule();
        let fast = explore(&schedule, u64::MAX);
        assert!(fast.complete, "{}: cut short", builtin.id);
        assert_eq!(fast, explore_slowly(&schedule, u64::MAX), "{}", builtin.id);
    }
}

#[test]
fn the_explorer_groups_every_exported_schedule_as_a_full_assessment_does() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schedules");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("schedules/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable");
        let schedule = Schedule::parse_json(&text).expect("valid");
        let name = file.display();
        assert_eq!(
            explore(&schedule, 5_000),
            explore_slowly(&schedule, 5_000),
            "{name}"
        );
    }
}

#[test]
fn the_explorer_groups_three_buyers_in_transactions_as_a_full_assessment_does() {
    let schedule = three_buyers_in_transactions();
    let fast = explore(&schedule, u64::MAX);
    assert_eq!(fast.orders, 16_290, "a write waits for the other's commit");
    assert_eq!(fast.permutations, 34_650);
    assert!(fast.double_booked() > 0 && fast.double_booked() < fast.orders);
    assert_eq!(fast, explore_slowly(&schedule, u64::MAX));
}

#[test]
fn a_bounded_exploration_groups_the_first_orders_as_a_full_assessment_of_them_does() {
    let schedule = three_buyers_in_transactions();
    let cut = explore(&schedule, 100);
    assert!(!cut.complete);
    assert_eq!(cut.orders, 100);
    assert_eq!(cut.groups.iter().map(|g| g.count).sum::<u64>(), 100);
    assert_eq!(cut, explore_slowly(&schedule, 100));
}

#[test]
fn the_explorer_groups_every_matrix_cell_as_a_full_assessment_does() {
    // The largest cells have tens of thousands of orders: their first few thousand suffice
    // here (a debug build assesses some two thousand orders a second).
    for defence in matrix_defences() {
        for scenario in matrix_scenarios() {
            let schedule = matrix_schedule(*defence, scenario.id).expect("a cell");
            assert_eq!(
                explore(&schedule, 2_500),
                explore_slowly(&schedule, 2_500),
                "{defence} x {}",
                scenario.id
            );
        }
    }
}

/// Buyers with these programs on two seats, A2 possibly held by `x` until minute 5, and maybe
/// a clock that moves past it and sweeps.
fn schedule_of(programs: Vec<Vec<Op>>, held: bool, clock: bool) -> Schedule {
    let mut actors = serde_json::Map::new();
    for (i, ops) in programs.into_iter().enumerate() {
        actors.insert(
            format!("b{i}"),
            serde_json::to_value(ops).expect("ops serialise"),
        );
    }
    if clock {
        actors.insert(
            "clock".into(),
            serde_json::json!([{"op": "advance", "minutes": 11}, {"op": "sweep"}]),
        );
    }
    let a2 = if held {
        serde_json::json!({"id": "A2", "status": "HELD", "holder": "x", "until": 5})
    } else {
        serde_json::json!({"id": "A2"})
    };
    let file: ScheduleFile = serde_json::from_value(serde_json::json!({
        "version": 1,
        "scenario": {"seats": [{"id": "A1"}, a2]},
        "actors": actors,
    }))
    .expect("a schedule file");
    Schedule::parse(file).expect("generated schedules are valid")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn the_explorer_groups_random_schedules_as_a_full_assessment_does(
        programs in prop::collection::vec(program(3), 2..=3),
        held in any::<bool>(),
        clock in any::<bool>(),
    ) {
        let schedule = schedule_of(programs, held, clock);
        prop_assert_eq!(explore(&schedule, 150), explore_slowly(&schedule, 150));
    }
}

#[test]
fn every_matrix_cell_explores_every_order_of_its_schedule() {
    for defence in matrix_defences() {
        for scenario in matrix_scenarios() {
            let at = format!("{defence} x {}", scenario.id);
            let cell = matrix_cell(*defence, scenario.id).expect("a cell");
            let schedule = matrix_schedule(*defence, scenario.id).expect("a schedule");
            assert_eq!(
                (cell.defence, cell.scenario.as_str()),
                (*defence, scenario.id)
            );
            let clock = usize::from(scenario.clock.is_some());
            assert_eq!(schedule.actors().len(), scenario.buyers.len() + clock);
            assert!(cell.exploration.complete, "{at}");
            assert!(cell.exploration.orders > 1, "{at}");
            assert!(
                cell.exploration.orders < MATRIX_CELL_LIMIT,
                "{at}: affordable"
            );
            simulate(&schedule).expect("the cell's own order is feasible");
            // The example the page loads is an order of the cell, and a double booking when
            // there is one.
            let example = cell.example();
            let order: Vec<usize> = example
                .iter()
                .map(|n| schedule.actor_index(n).expect("a buyer of the cell"))
                .collect();
            let outcome = assess(
                &schedule,
                simulate(&schedule.with_order(order)).expect("feasible"),
            );
            assert_eq!(
                outcome.verdict.double_booked,
                cell.exploration.double_booked() > 0,
                "{at}"
            );
        }
    }
    assert!(matrix_cell(Defence::ReleaseOnExit, "two-buyers").is_none());
    assert!(matrix_cell(Defence::LockRow, "ten-buyers").is_none());
    assert!(matrix_schedule(Defence::ExpiryOnly, "two-buyers").is_none());
}

/// Per defence and scenario: whether some orders double-book, and a way some order stopped a
/// buyer who missed out.
const EXPECTED: &[(&str, &str, bool, &str)] = &[
    (
        "check_then_act",
        "two-buyers",
        true,
        "saw the seat taken and did not write",
    ),
    (
        "transaction",
        "three-buyers",
        true,
        "saw the seat taken and did not write",
    ),
    (
        "atomic_update",
        "two-buyers",
        false,
        "updated no rows: the seat was no longer free",
    ),
    (
        "lock_row",
        "two-buyers",
        false,
        "waited, then saw the seat taken and did not write",
    ),
    (
        "unique_constraint",
        "three-buyers",
        false,
        "got error 23505 (duplicate ticket, refused by the unique key)",
    ),
    (
        "serializable",
        "two-buyers",
        false,
        "waited, then got error 40001 (serialization failure)",
    ),
    (
        "repeatable_read",
        "three-buyers",
        false,
        "got error 40001 (serialization failure)",
    ),
    (
        "lock_nowait",
        "two-buyers",
        false,
        "got error 55P03 (lock not available)",
    ),
    (
        "skip_locked",
        "two-buyers",
        false,
        "found the seat locked and skipped it (SKIP LOCKED)",
    ),
    (
        "hold_confirm",
        "two-buyers",
        false,
        "was told the seat is taken",
    ),
    (
        "hold_confirm",
        "hold-runs-out",
        false,
        "paid after its hold was lost, and is owed a refund",
    ),
    (
        "redis_hold",
        "hold-runs-out",
        false,
        "got error 23505 (duplicate ticket, refused by the unique key)",
    ),
    (
        "redis_update",
        "two-buyers",
        false,
        "was told the seat is taken",
    ),
    (
        "redis_update",
        "hold-runs-out",
        true,
        "was told the seat is taken",
    ),
];

#[test]
fn each_defence_stops_the_second_buyer_its_own_way() {
    for &(defence, scenario, double_books, stop) in EXPECTED {
        let d = Defence::parse(defence).expect("a defence");
        let cell = matrix_cell(d, scenario).expect("a cell");
        let e = &cell.exploration;
        let at = format!("{defence} x {scenario}: {}", cell.summary);
        if double_books {
            assert!(e.double_booked() > 0, "{at}");
            assert!(e.double_booked() < e.orders, "{at}");
            let told = format!(
                "{} of {} orders sell the seat twice.",
                e.double_booked(),
                e.orders
            );
            assert!(cell.summary.starts_with(&told), "{at}");
            assert_eq!(
                cell.ways[0].stop, None,
                "{at}: the double booking comes first"
            );
            assert_eq!(cell.ways[0].orders, e.double_booked(), "{at}");
        } else {
            assert_eq!(e.double_booked(), 0, "{at}");
            let told = format!("None of the {} orders sells the seat twice.", e.orders);
            assert!(cell.summary.starts_with(&told), "{at}");
        }
        assert!(e.groups.iter().any(|g| g.stop.contains(stop)), "{at}");
        assert!(cell.ways.iter().any(|w| w.words == stop), "{at}");
        assert!(cell.summary.contains(stop), "{at}");
    }
}

#[test]
fn every_defence_of_the_matrix_has_a_human_title_and_runs_in_every_scenario() {
    assert_eq!(matrix_defences().len(), 12);
    for d in matrix_defences() {
        assert!(!d.title().contains('_'), "{}", d.title());
    }
    for s in matrix_scenarios() {
        assert!(
            !s.title.contains('-') && !s.title.contains('_'),
            "{}",
            s.title
        );
    }
    for d in [
        Defence::HoldConfirm,
        Defence::RedisHold,
        Defence::RedisUpdate,
    ] {
        assert!(matrix_defences().contains(&d), "{d}");
    }
}

#[test]
fn every_label_is_words_for_a_person_with_codes_beside_their_meaning() {
    for defence in matrix_defences() {
        for scenario in matrix_scenarios() {
            let cell = matrix_cell(*defence, scenario.id).expect("a cell");
            let texts = std::iter::once(cell.summary.clone())
                .chain(cell.exploration.groups.iter().map(|g| g.stop.clone()))
                .chain(cell.ways.iter().map(|w| w.words.clone()));
            for text in texts {
                assert!(!text.contains('_'), "an identifier in {text:?}");
                for code in ["40001", "40P01", "55P03", "23505", "25P02"] {
                    if let Some(at) = text.find(code) {
                        assert!(
                            text[at + code.len()..].starts_with(" ("),
                            "{code} without its meaning in {text:?}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn a_row_lock_only_ever_makes_the_others_wait_or_skip_and_never_fails_them() {
    for scenario in matrix_scenarios() {
        let cell = matrix_cell(Defence::LockRow, scenario.id).expect("a cell");
        for g in &cell.exploration.groups {
            assert!(
                g.stops.iter().all(|s| s.how == StopHow::Skipped),
                "{}",
                g.stop
            );
        }
    }
}

#[test]
fn the_matrix_cell_serialises_with_its_exploration_ways_and_summary() {
    let cell = matrix_cell(Defence::AtomicUpdate, "two-buyers").expect("a cell");
    let json = serde_json::to_value(&cell).expect("serialises");
    assert_eq!(json["defence"], "atomic_update");
    assert_eq!(json["scenario"], "two-buyers");
    assert_eq!(
        json["summary"],
        "None of the 2 orders sells the seat twice. The buyer who missed out updated no rows: \
         the seat was no longer free (2 orders)."
    );
    assert_eq!(json["ways"][0]["stop"]["how"]["kind"], "updated_no_rows");
    assert_eq!(json["exploration"]["orders"], 2);
    let columns = serde_json::to_value(matrix_scenarios()).expect("serialises");
    assert_eq!(columns[0]["title"], "Two buyers");
    assert_eq!(columns[2]["clock"], 11);
}
