//! The page's view model, apart from any rendering: running a schedule in the model, moving an
//! entry of the order, and what the page shows at a given step (the stored rows, each buyer's
//! phone, each entry's state on the timeline). Pure, so it is tested natively.

use std::collections::BTreeMap;

use shared::assess::assess;
use shared::outcome::{Answer, StepResult};
use shared::schedule::{ClockUnit, Op, PayOutcome, CLOCK};
use shared::{Outcome, Schedule};

pub use shared::view::*;

pub mod moves;
pub use moves::move_entry;

/// Runs the schedule's order in the model: the outcome, or why the order cannot run, as a
/// sentence for the reader.
pub fn run(schedule: &Schedule) -> Result<Outcome, String> {
    shared::engine::simulate(schedule)
        .map(|trace| assess(schedule, trace))
        .map_err(|e| moves::sentence(schedule, &e))
}

/// The lanes of the timeline: buyers first, in the schedule's order, then the clock.
pub fn lanes(schedule: &Schedule) -> Vec<usize> {
    let actors = schedule.actors();
    let mut lanes: Vec<usize> = (0..actors.len())
        .filter(|&a| actors[a].name != CLOCK)
        .collect();
    lanes.extend((0..actors.len()).filter(|&a| actors[a].name == CLOCK));
    lanes
}

/// The operation each entry of the order sends: (actor index, index in its program).
pub fn entry_ops(schedule: &Schedule) -> Vec<(usize, usize)> {
    let mut next = vec![0usize; schedule.actors().len()];
    schedule
        .order()
        .iter()
        .map(|&actor| {
            let op = next[actor];
            next[actor] += 1;
            (actor, op)
        })
        .collect()
}

/// A short label for an operation: "read A7", "commit", "pay (late)"; an advance of the clock
/// in its unit, `unit` ("+5 min", "+5 s").
pub fn op_label(op: &Op, unit: ClockUnit) -> String {
    let seats = op.seats().join(", ");
    match op {
        Op::Begin { isolation } => format!("begin {}", isolation.as_sql().to_lowercase()),
        Op::Advance { minutes } => format!("+{}", unit.short(*minutes)),
        Op::Pay { outcome } if *outcome == Default::default() => "pay".to_string(),
        Op::Pay { outcome } => format!("pay, {}", serde_plain(outcome)),
        Op::Lock { wait, .. } => {
            let how = serde_plain(wait);
            if how == "wait" {
                format!("lock {seats}")
            } else {
                format!("lock {seats} {}", how.replace('_', " "))
            }
        }
        Op::Write { status, .. } => format!("write {seats} {}", status.as_sql()),
        Op::RedisHold { .. } => format!("SET NX {seats}"),
        Op::RedisRelease => "DEL key".to_string(),
        _ if seats.is_empty() => op.name().to_string(),
        _ => format!("{} {seats}", op.name()),
    }
}

fn serde_plain<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// How an operation is drawn: reads are circles, writes squares, transaction bounds ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Read,
    Write,
    Bound,
    Payment,
    Clock,
}

impl Shape {
    pub fn of(op: &Op) -> Shape {
        match op {
            Op::Read { .. } | Op::Lock { .. } => Shape::Read,
            Op::Begin { .. } | Op::Commit | Op::Rollback => Shape::Bound,
            Op::Pay { .. } => Shape::Payment,
            Op::Advance { .. } | Op::Sweep => Shape::Clock,
            _ => Shape::Write,
        }
    }

    pub fn class(self) -> &'static str {
        match self {
            Shape::Read => "shape-read",
            Shape::Write => "shape-write",
            Shape::Bound => "shape-bound",
            Shape::Payment => "shape-pay",
            Shape::Clock => "shape-clock",
        }
    }
}

/// A system outside the database that the buyers talk to, with a lane of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum System {
    Provider,
    Redis,
}

impl System {
    pub fn name(self) -> &'static str {
        match self {
            System::Provider => "Provider",
            System::Redis => "Redis",
        }
    }
}

/// What a system answered to one entry: drawn in its lane, in the entry's column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemMark {
    pub index: usize,
    pub system: System,
    pub text: String,
}

/// The systems the schedule talks to besides the database (the payment provider, Redis), and
/// what each answered entry by entry: the provider's decision for each hold id, kept for a
/// retry with the same key; Redis's reply to each SET NX or delete.
pub fn system_lanes(schedule: &Schedule, outcome: &Outcome) -> (Vec<System>, Vec<SystemMark>) {
    let mut systems = Vec::new();
    if schedule.any_op(|op| matches!(op, Op::Pay { .. })) {
        systems.push(System::Provider);
    }
    if schedule.any_op(Op::is_redis) {
        systems.push(System::Redis);
    }
    let mut marks = Vec::new();
    let mut decided: BTreeMap<String, String> = BTreeMap::new();
    for (index, entry) in outcome.entries.iter().enumerate() {
        let answer = match &entry.trace.result {
            Some(StepResult::Answer { answer }) => Some(*answer),
            _ => None,
        };
        let (system, text) = match (&entry.op, answer) {
            (Op::Pay { outcome: pay }, _) => {
                let actor = schedule.actor_index(&entry.trace.actor).unwrap_or(0);
                let key = shared::export::clients_at(schedule, outcome, index).actors[actor]
                    .current_hold
                    .clone()
                    .unwrap_or_else(|| format!("{}:none", entry.trace.actor));
                let text = match decided.get(&key) {
                    Some(first) => format!("same key: {first}"),
                    None => {
                        let first = match pay {
                            PayOutcome::Succeeds => "charged",
                            PayOutcome::Declined => "declined",
                            PayOutcome::Unknown => "timed out, charged",
                        }
                        .to_string();
                        decided.insert(key, first.clone());
                        first
                    }
                };
                (System::Provider, text)
            }
            (Op::RedisHold { .. }, Some(Answer::Held)) => (System::Redis, "OK".to_string()),
            (Op::RedisHold { .. }, _) => (System::Redis, "nil: key exists".to_string()),
            (Op::RedisRelease, Some(Answer::Released)) => (System::Redis, "deleted".to_string()),
            (Op::RedisRelease, _) => (System::Redis, "no key".to_string()),
            _ => continue,
        };
        marks.push(SystemMark {
            index,
            system,
            text,
        });
    }
    (systems, marks)
}

#[cfg(test)]
mod tests {
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
            "Sold out: A7 is taken"
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
}
