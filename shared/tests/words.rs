//! Every sentence the page shows is written for a person: the phones, the verdict panel at
//! every step, the reason line of every entry and the whole story, over every built-in scenario
//! in every order the explorer finds (up to a bound). No raw snake_case answers, no "3th", no
//! "A12, A13 is", no "its" for a person, and no SQLSTATE without its words beside it.

use shared::explorer;
use shared::scenarios;
use shared::view;
use shared::{explain, Schedule};

#[allow(dead_code)]
mod common;

use common::speak::machine_speak;

/// Every sentence the page would show for `schedule`, step by step.
fn sentences(schedule: &Schedule) -> Vec<String> {
    let Ok(outcome) = view::run(schedule) else {
        return Vec::new();
    };
    let deciding = view::deciding_step(schedule);
    let mut out = Vec::new();
    for step in 0..=outcome.entries.len() {
        for (_, phone) in view::phones(schedule, &outcome, step) {
            out.push(phone.text);
        }
        let v = view::verdict_at(schedule, step, deciding);
        out.push(v.headline);
        out.extend(v.story);
    }
    out.extend(outcome.entries.iter().map(|e| e.trace.reason.clone()));
    out.push(explain::headline(schedule, &outcome));
    out.extend(explain::verdict_story(schedule, &outcome));
    out
}

#[test]
fn the_checker_rejects_the_phrases_of_the_issue() {
    for bad in [
        "Omar gets 40001 on its write",
        "A12, A13, A14 is yours",
        "the order names adam a 3th time",
        "the loser was: answered refund_due",
        "Adam and Omar is happy",
        "Omar fails with 40P01",
    ] {
        assert!(machine_speak(bad).is_some(), "{bad}");
    }
    for good in [
        "A12, A13 and A14 are yours",
        "Omar is refused the write: a serialization failure (40001)",
        "the 11th time",
        "A14 is held for you until minute 5: pay now",
    ] {
        assert_eq!(machine_speak(good), None, "{good}");
    }
}

#[test]
fn every_sentence_of_every_builtin_at_every_step_is_written_for_a_person() {
    let mut bad = Vec::new();
    let mut seen = 0;
    for b in scenarios::all() {
        let base = view::playable(&b.schedule());
        let (orders, _) = explorer::orders(&base, 60);
        let mut schedules = vec![base.clone()];
        schedules.extend(orders.into_iter().map(|o| base.with_order(o)));
        for schedule in schedules {
            for line in sentences(&schedule) {
                seen += 1;
                if let Some(why) = machine_speak(&line) {
                    bad.push(format!("{}: {line:?}: {why}", b.id));
                }
            }
        }
    }
    bad.sort();
    bad.dedup();
    assert!(seen > 1000, "{seen} sentences");
    assert!(
        bad.is_empty(),
        "{} sentences:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
