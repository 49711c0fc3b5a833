//! The live phone's words over every answer, and against the simulator's phone in every order
//! of a race: the same answer reads the same on both.

use super::*;
use crate::engine::capitalise;
use crate::schedule::Schedule;
use crate::view::{phone, run};

fn seats(ids: &[&str]) -> Vec<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

fn error(code: SqlState) -> StepResult {
    StepResult::Error {
        code,
        message: "its message".into(),
    }
}

/// Every result an operation can have, one of each kind.
fn every_result() -> Vec<StepResult> {
    let mut all = vec![
        StepResult::Ok { rows: None },
        StepResult::Ok { rows: Some(0) },
        StepResult::Ok { rows: Some(1) },
        StepResult::Skipped,
        StepResult::RolledBack,
    ];
    all.extend(Answer::ALL.map(|answer| StepResult::Answer { answer }));
    all.extend(SqlState::NAMED.map(error));
    all.push(error(SqlState::parse("XX000")));
    all
}

#[test]
fn every_answer_to_a_tap_a_payment_or_a_cancel_is_worded_for_a_person() {
    let (one, two) = (seats(&["A1"]), seats(&["A1", "A2"]));
    let mut requests = vec![Request::Pay, Request::Cancel];
    for d in Defence::ALL {
        for seats in [&one, &two] {
            let (seats, hold_seconds) = (seats.as_slice(), 60);
            requests.push(Request::Tap {
                seats,
                defence: d,
                hold_seconds,
            });
        }
    }
    for request in requests {
        for holding in [false, true] {
            for result in every_result() {
                for results in [
                    vec![result.clone()],
                    vec![],
                    vec![StepResult::Skipped, result],
                ] {
                    let text = reply(request, holding, &results);
                    let at = format!("{request:?} holding {holding} {results:?}: {text:?}");
                    assert!(text.len() > 12, "{at}");
                    assert!(!text.contains('_') && !text.contains("  "), "{at}");
                    for code in SqlState::NAMED {
                        if let Some(i) = text.find(code.code()) {
                            let beside = text[i + code.code().len()..].starts_with(", ");
                            assert!(beside || text[..i].ends_with("(error "), "{at}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn each_answer_has_the_words_of_the_simulators_phone() {
    let a1 = seats(&["A1"]);
    let tap = |defence| Request::Tap {
        seats: &a1,
        defence,
        hold_seconds: 60,
    };
    let cases: Vec<(Request, bool, Vec<StepResult>, &str)> = vec![
        (tap(Defence::HoldConfirm), true, vec![], "A1 is held for you for 60 s: pay now"),
        (tap(Defence::AtomicUpdate), true, vec![], "A1 is held for you for 60 s"),
        (tap(Defence::LockRow), true, vec![], "booked: A1 is yours"),
        (
            tap(Defence::LockNowait),
            false,
            vec![error(SqlState::LockNotAvailable), error(SqlState::InFailedTransaction)],
            "that seat is busy right now (55P03, lock not available): pick again",
        ),
        (
            tap(Defence::HoldConfirm),
            false,
            vec![StepResult::Answer { answer: Answer::Busy }],
            "that seat is busy right now: pick again",
        ),
        (
            tap(Defence::UniqueConstraint),
            false,
            vec![StepResult::Ok { rows: Some(1) }, error(SqlState::UniqueViolation)],
            "A1 already has a ticket (23505, duplicate key)",
        ),
        (
            tap(Defence::SerializableRetry),
            false,
            vec![error(SqlState::SerializationFailure), error(SqlState::DeadlockDetected)],
            "two bookings blocked each other (40P01, deadlock): try again",
        ),
        (
            tap(Defence::SerializableRetry),
            false,
            vec![error(SqlState::SerializationFailure), StepResult::Skipped],
            "A1 is already taken",
        ),
        (tap(Defence::ExpiryOnly), false, vec![StepResult::Answer { answer: Answer::Expired }], "your hold is gone: pick a seat again"),
        (
            Request::Pay,
            false,
            vec![StepResult::Answer { answer: Answer::RefundDue }],
            "too late for a ticket: your hold had ended, so your money is being refunded",
        ),
        (Request::Pay, true, vec![StepResult::Answer { answer: Answer::Issued }], "paid: your ticket is issued"),
        (Request::Pay, false, vec![error(SqlState::UniqueViolation)], "paid, but the seat already has a ticket (23505, duplicate key): your money is being refunded"),
        (Request::Cancel, false, vec![StepResult::Answer { answer: Answer::Released }], "you let the seat go"),
        (Request::Cancel, false, vec![StepResult::Skipped], "you hold nothing to cancel"),
        (Request::Cancel, false, vec![StepResult::Ok { rows: None }], "your hold had already ended: nothing to let go"),
    ];
    for (request, holding, results, words) in cases {
        assert_eq!(
            reply(request, holding, &results),
            words,
            "{request:?} {results:?}"
        );
    }
}

/// Two or three buyers running `defence` for A7, in the default order.
fn race(defence: Defence, buyers: &[&str]) -> Schedule {
    let actors: Vec<String> = buyers
        .iter()
        .map(|b| format!("\"{b}\": {{\"defence\": \"{defence}\"}}"))
        .collect();
    Schedule::parse_json(&format!(
        r#"{{"version": 1, "name": "race",
            "scenario": {{"show": 1, "hold_minutes": 10, "seats": [{{"id": "A7"}}]}},
            "actors": {{{}}}}}"#,
        actors.join(", ")
    ))
    .expect("a race parses")
}

/// In every order of a race under each defence whose tap is its whole program, each buyer's
/// phone at the end and the live reply to the same answers say the same (a hold's deadline
/// aside, which the simulator reads on its clock and the live room counts in seconds).
#[test]
fn a_live_tap_reads_as_the_simulators_phone_in_every_order_of_a_race() {
    let (mut compared, mut refused) = (0, 0);
    for defence in Defence::ALL.into_iter().filter(|d| !d.pays()) {
        for buyers in [&["adam", "omar"][..], &["adam", "omar", "zoe"]] {
            let race = race(defence, buyers);
            let (orders, _) = crate::explorer::orders(&race, 400);
            for order in orders {
                let schedule = race.with_order(order);
                let outcome = run(&schedule).expect("a race runs");
                let end = outcome.entries.len();
                let clients = crate::export::clients_at(&schedule, &outcome, end);
                for (a, buyer) in buyers.iter().enumerate() {
                    let results: Option<Vec<StepResult>> = outcome
                        .entries
                        .iter()
                        .filter(|e| e.trace.actor == *buyer)
                        .map(|e| e.trace.result.clone())
                        .collect();
                    let Some(results) = results else { continue };
                    let seats = seats(&["A7"]);
                    let request = Request::Tap {
                        seats: &seats,
                        defence,
                        hold_seconds: 10,
                    };
                    let holding = clients.actors[a].holding;
                    let simulated = phone(&schedule, &outcome, buyer, end);
                    if simulated.yours.is_empty() == holding {
                        // Locked out by its own hold (`expiry_only`): the phone shows the
                        // seat it was told is its own, the reply the answer to the tap.
                        continue;
                    }
                    let live = capitalise(&reply(request, holding, &results));
                    // A live tap never reaches a payment to skip.
                    let simulated = simulated.text.trim_end_matches(words::SO_NO_PAYMENT);
                    let at = format!("{defence} {:?} {buyer}", schedule.order());
                    compared += 1;
                    refused += usize::from(!holding);
                    match live.strip_suffix(" for 10 s") {
                        Some(held) => {
                            assert!(simulated.starts_with(held), "{at}: {live} / {simulated}")
                        }
                        None => assert_eq!(live, simulated, "{at}"),
                    }
                }
            }
        }
    }
    assert!(
        compared > 1000 && refused > 500,
        "{compared} phones, {refused} refused"
    );
}
