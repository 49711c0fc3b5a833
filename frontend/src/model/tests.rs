//! The tests of the page's view model: running, moving entries, and what each step shows.

use super::systems::System;
use super::*;
use shared::scenarios;
use shared::schedule::SeatStatus;

fn builtin(id: &str) -> Schedule {
    scenarios::get(id).expect("built-in").schedule()
}

fn names(schedule: &Schedule) -> Vec<&str> {
    schedule
        .order()
        .iter()
        .map(|&a| schedule.actors()[a].name.as_str())
        .collect()
}

#[test]
fn check_then_act_in_its_default_order_double_books() {
    let outcome = run(&builtin("ch4-check_then_act")).unwrap();
    assert!(outcome.verdict.double_booked);
    let end = map_at(
        &builtin("ch4-check_then_act"),
        &outcome,
        outcome.entries.len(),
    );
    assert!(end[0].double(), "{end:?}");
    assert!(!map_at(&builtin("ch4-check_then_act"), &outcome, 0)[0].double());
}

#[test]
fn moving_omars_read_after_adams_write_leaves_omar_sold_out() {
    let schedule = builtin("ch4-check_then_act");
    assert_eq!(names(&schedule), ["adam", "omar", "adam", "omar"]);
    let moved = move_entry(&schedule, 1, 2).unwrap();
    assert_eq!(names(&moved), ["adam", "adam", "omar", "omar"]);
    let outcome = run(&moved).unwrap();
    assert!(!outcome.verdict.double_booked);
    let end = outcome.entries.len();
    assert_eq!(
        phone(&moved, &outcome, "omar", end).text,
        "A7 is already taken"
    );
    assert_eq!(
        phone(&moved, &outcome, "adam", end).text,
        "Booked: A7 is yours"
    );
}

#[test]
fn a_step_cannot_pass_its_own_buyers_next_step() {
    let schedule = builtin("ch4-check_then_act");
    let refused = move_entry(&schedule, 0, 3).unwrap_err();
    assert!(refused.contains("Adam's own steps"), "{refused}");
    assert_eq!(names(&schedule), ["adam", "omar", "adam", "omar"]);
}

#[test]
fn a_waiting_buyer_cannot_be_scheduled_and_the_refusal_names_the_blocker() {
    let schedule = playable(&builtin("ch4-lock_row"));
    let outcome = run(&schedule).unwrap();
    let waiting = outcome
        .entries
        .iter()
        .position(|e| !e.trace.waited_for.is_empty())
        .expect("lock_row makes the second buyer wait");
    // The step after the wait, moved right behind it, would be sent while still waiting.
    let waiter = &outcome.entries[waiting].trace.actor;
    let next = (waiting + 1..outcome.entries.len())
        .find(|&i| &outcome.entries[i].trace.actor == waiter)
        .expect("the waiter has a later step");
    let blocker_commit = (waiting + 1..next)
        .find(|&i| matches!(outcome.entries[i].op, Op::Commit))
        .expect("the blocker commits in between");
    let refused = move_entry(&schedule, next, blocker_commit).unwrap_err();
    assert!(refused.to_lowercase().contains("wait"), "{refused}");
}

#[test]
fn a_wait_is_shown_until_the_entry_that_releases_it() {
    let schedule = playable(&builtin("ch4-lock_row"));
    let outcome = run(&schedule).unwrap();
    let (i, entry) = outcome
        .entries
        .iter()
        .enumerate()
        .find(|(_, e)| !e.trace.waited_for.is_empty())
        .unwrap();
    let done = entry.trace.completed_after.unwrap();
    assert!(done > i);
    assert!(matches!(
        entry_state(entry, i, i + 1),
        EntryState::Waiting(_)
    ));
    assert_eq!(entry_state(entry, i, done + 1), EntryState::Done);
    assert_eq!(entry_state(entry, i, i), EntryState::Future);
    let phone = phone(&schedule, &outcome, &entry.trace.actor, i + 1);
    assert_eq!(phone.tone, Tone::Busy);
}

#[test]
fn the_map_counts_a_hold_down_on_the_virtual_clock() {
    let schedule = builtin("ch3-three-arrivals");
    let outcome = run(&schedule).unwrap();
    let start = map_at(&schedule, &outcome, 0);
    let held = start.iter().find(|s| s.status == SeatStatus::Held).unwrap();
    assert!(held.minutes_left.unwrap() > 0);
    let clock_entry = outcome
        .entries
        .iter()
        .position(|e| e.trace.actor == CLOCK)
        .unwrap();
    let later = map_at(&schedule, &outcome, clock_entry + 1);
    let same = later.iter().find(|s| s.id == held.id).unwrap();
    assert!(same.minutes_left.unwrap_or(0) < held.minutes_left.unwrap());
}

#[test]
fn every_builtin_runs_and_every_step_has_a_phone_for_every_buyer() {
    for builtin in scenarios::all() {
        let schedule = playable(&builtin.schedule());
        let total: usize = schedule.actors().iter().map(|a| a.program.len()).sum();
        assert_eq!(
            schedule.order().len(),
            total,
            "{}: every step is played",
            builtin.id
        );
        let outcome = run(&schedule).unwrap_or_else(|e| panic!("{}: {e}", builtin.id));
        for step in 0..=outcome.entries.len() {
            for (_, phone) in phones(&schedule, &outcome, step) {
                assert!(!phone.text.is_empty());
            }
            assert_eq!(
                map_at(&schedule, &outcome, step).len(),
                schedule.scenario().seats.len()
            );
        }
    }
}

#[test]
fn the_map_shows_a_redis_key_while_it_lives_and_the_database_row_stays_free() {
    let schedule = builtin("ch2-redis-update");
    let outcome = run(&schedule).unwrap();
    // After phone 1's SET NX: C3 is free in the database and held in Redis.
    let c3 = |step| {
        map_at(&schedule, &outcome, step)
            .into_iter()
            .find(|s| s.id == "C3")
            .unwrap()
    };
    assert_eq!(c3(1).status, SeatStatus::Available);
    assert_eq!(c3(1).redis, Some(("phone1".to_string(), 2)));
    // The clock moves 3 minutes: the key has run out, Redis forgets it.
    assert_eq!(c3(2).redis, None);
    let rows = redis_at(&schedule, &outcome, 2);
    assert_eq!(rows.len(), 1);
    assert!(rows[0].gone);
    assert_eq!(rows[0].key, "hold:77:C3");
    // Phone 2 takes the key.
    assert_eq!(c3(3).redis, Some(("phone2".to_string(), 2)));
    let plain = builtin("ch4-check_then_act");
    assert!(redis_at(&plain, &run(&plain).unwrap(), 2).is_empty());
    assert_eq!(
        op_label(
            &schedule.actors()[schedule.actor_index("phone1").unwrap()].program[0],
            ClockUnit::Minute
        ),
        "SET NX C3"
    );
}

#[test]
fn each_buyer_remembers_what_it_last_saw_and_knows_what_it_was_told() {
    let schedule = builtin("ch4-check_then_act");
    let outcome = run(&schedule).unwrap();
    // Both read A7 as free, then both write it.
    let after_reads = memories(&schedule, &outcome, 2);
    assert_eq!(after_reads["adam"].free, ["A7"]);
    assert_eq!(after_reads["omar"].free, ["A7"]);
    assert!(after_reads["adam"].told.is_empty());
    let end = memories(&schedule, &outcome, outcome.entries.len());
    assert_eq!(end["adam"].told, ["A7"]);
    assert_eq!(end["omar"].told, ["A7"]);
    // Omar reads after Adam's write: he remembers A7 as taken and is told nothing.
    let moved = move_entry(&schedule, 1, 2).unwrap();
    let outcome = run(&moved).unwrap();
    let end = memories(&moved, &outcome, outcome.entries.len());
    assert_eq!(end["omar"].taken, ["A7"]);
    assert!(end["omar"].told.is_empty());
}

#[test]
fn the_provider_and_redis_have_lanes_of_their_own_with_their_answers() {
    let schedule = builtin("ch2-redis-unique");
    let outcome = run(&schedule).unwrap();
    let (systems, marks) = system_lanes(&schedule, &outcome);
    assert_eq!(systems, [System::Provider, System::Redis]);
    let texts: Vec<(usize, System, &str)> = marks
        .iter()
        .map(|m| (m.index, m.system, m.text.as_str()))
        .collect();
    assert_eq!(
        texts,
        [
            (0, System::Redis, "OK"),
            (2, System::Redis, "OK"),
            (3, System::Provider, "charged"),
            (5, System::Provider, "charged"),
        ]
    );
    let plain = builtin("ch4-check_then_act");
    assert_eq!(system_lanes(&plain, &run(&plain).unwrap()).0, []);
}

#[test]
fn labels_name_the_operation_and_its_seats() {
    let schedule = builtin("ch4-transaction");
    let labels: Vec<String> = entry_ops(&schedule)
        .iter()
        .map(|&(a, o)| op_label(&schedule.actors()[a].program[o], ClockUnit::Minute))
        .collect();
    assert!(labels.iter().any(|l| l == "read A7"), "{labels:?}");
    assert!(labels.iter().any(|l| l.starts_with("begin")), "{labels:?}");
    let paying = builtin("ch4-late-payment");
    let pay = &paying.actors()[paying.actor_index("adam").unwrap()].program[1];
    assert_eq!(op_label(pay, ClockUnit::Minute), "pay");
    assert_eq!(display_name("omar"), "Omar");
    assert_eq!(lanes(&builtin("ch3-three-arrivals")).len(), 3);
}
