//! The page's views agree with the model at every step of every built-in scenario, in the
//! order the page plays it: each phone says what its buyer was told (the seats it calls yours
//! are the seats the model says they were told, less a hold that ran out; a hold shows its
//! deadline; a refused or waiting buyer never reads as holding), only buyers get a phone, and
//! the verdict is revealed at the step that decides it and not before.

use std::collections::BTreeSet;

use shared::counter_words::CounterWords;
use shared::link;
use shared::scenarios;
use shared::schedule::{SeatStatus, CLOCK};
use shared::view::{self, EntryState, Tone};
use shared::{explain, Outcome, Schedule};

/// Every built-in, in the order the page plays it, with its outcome.
fn builtins() -> Vec<(String, Schedule, Outcome)> {
    scenarios::all()
        .into_iter()
        .map(|b| {
            let schedule = view::playable(&b.schedule());
            let outcome = view::run(&schedule).unwrap_or_else(|e| panic!("{}: {e}", b.id));
            (b.id.to_string(), schedule, outcome)
        })
        .collect()
}

/// The buyer's last entry sent by `step`, if it is still waiting then.
fn waiting(outcome: &Outcome, actor: &str, step: usize) -> Option<Vec<String>> {
    let (i, e) = outcome.entries[..step]
        .iter()
        .enumerate()
        .rfind(|(_, e)| e.trace.actor == actor)?;
    match view::entry_state(e, i, step) {
        EntryState::Waiting(on) => Some(on),
        _ => None,
    }
}

#[test]
fn every_phone_agrees_with_the_model_at_every_step_of_every_builtin() {
    for (id, schedule, outcome) in builtins() {
        for step in 0..=outcome.entries.len() {
            let at = format!("{id} at step {step}");
            let tables = view::tables_at(&outcome, step);
            let told = view::told_at(&outcome, step);
            let phones = view::phones(&schedule, &outcome, step);
            assert!(
                phones.iter().all(|(name, _)| name != CLOCK),
                "{at}: the clock has no phone"
            );
            for (name, phone) in &phones {
                let at = format!("{at}, {name}: {:?}", phone.text);
                let told_to: BTreeSet<&String> = told
                    .iter()
                    .filter(|(_, who)| who.contains(name))
                    .map(|(seat, _)| seat)
                    .collect();
                let yours: BTreeSet<&String> = phone.yours.iter().collect();
                assert!(yours.is_subset(&told_to), "{at}: yours only if told");
                if let Some(on) = waiting(&outcome, name, step) {
                    assert_eq!(phone.tone, Tone::Busy, "{at}: a waiting buyer is busy");
                    for blocker in on {
                        assert!(
                            phone.text.contains(&view::display_name(&blocker)),
                            "{at}: the phone names whom it waits for"
                        );
                    }
                    continue;
                }
                for seat in told_to.difference(&yours) {
                    // A seat told but not called yours: its hold ran out, and the phone says when.
                    let until = phone
                        .until
                        .unwrap_or_else(|| panic!("{at}: {seat} not yours"));
                    assert!(until < tables.clock, "{at}: {seat}'s hold ran out");
                    assert!(phone.text.contains("ran out"), "{at}: says it ran out");
                }
                for seat in &yours {
                    assert!(phone.text.contains(seat.as_str()), "{at}: names {seat}");
                    let row = tables.seats.iter().find(|r| &r.id == *seat).unwrap();
                    let own_hold = row.status == SeatStatus::Held
                        && row.holder.as_ref() == Some(name)
                        && tables.bookings.iter().all(|b| &b.seat != *seat);
                    if let (true, Some(u)) = (own_hold, row.until) {
                        assert!(
                            phone.text.contains(&format!("until minute {u}")),
                            "{at}: a hold shows its deadline"
                        );
                    }
                }
                let counter = CounterWords::of(schedule.scenario());
                let got = |id: &str| counter.map(|c| c.got(id).to_lowercase());
                let lower = phone.text.to_lowercase();
                if yours.is_empty() {
                    assert!(
                        !phone.text.contains("held for you") && !phone.text.contains("yours"),
                        "{at}: a buyer with no seat never reads as holding one"
                    );
                    if let Some(c) = counter {
                        let rows = &schedule.scenario().seats;
                        assert!(
                            rows.iter()
                                .all(|r| !lower.contains(&c.got(&r.id).to_lowercase())),
                            "{at}: a buyer told no never reads as served"
                        );
                    }
                    assert_ne!(phone.tone, Tone::Good, "{at}");
                } else if schedule.scenario().kind.is_username() {
                    assert_eq!(phone.text, "Account batman created", "{at}");
                    assert_eq!(phone.tone, Tone::Good, "{at}");
                } else if counter.is_some() {
                    for id in &yours {
                        let words = got(id).expect("a counter's words");
                        assert!(lower.contains(&words), "{at}: says {id} served them");
                    }
                    assert_eq!(phone.tone, Tone::Good, "{at}");
                } else {
                    assert!(phone.text.contains("yours") || phone.text.contains("held for you"));
                }
            }
        }
    }
}

#[test]
fn only_buyers_get_a_phone_not_the_clock_or_an_admin() {
    for (id, schedule, _) in builtins() {
        let buyers = view::buyers(&schedule);
        assert!(!buyers.iter().any(|b| b == CLOCK), "{id}");
        assert!(!buyers.iter().any(|b| b == "admin"), "{id}: {buyers:?}");
        assert!(!buyers.is_empty(), "{id}");
    }
}

#[test]
fn the_verdict_is_revealed_at_the_step_that_decides_it_and_not_before() {
    for (id, schedule, outcome) in builtins() {
        let n = outcome.entries.len();
        let deciding = view::deciding_step(&schedule);
        assert!((1..=n).contains(&deciding), "{id}: {deciding} of {n}");
        let whole = explain::headline(&schedule, &outcome);
        for step in 0..=n {
            let v = view::verdict_at(&schedule, step, deciding);
            let at = format!("{id} at step {step} (decided at {deciding}): {v:?}");
            if step < deciding {
                assert!(!v.decided && !v.bad, "{at}");
                assert_ne!(v.headline, whole, "{at}");
                assert!(v.story.iter().all(|l| !l.starts_with('⇒')), "{at}");
            } else {
                assert!(v.decided, "{at}");
                assert_eq!(v.headline, whole, "{at}");
                assert_eq!(v.bad, outcome.verdict.bad(), "{at}");
            }
        }
        // It is the first such step: the prefix before it said something else.
        if deciding > 1 {
            let before = view::prefix(&schedule, deciding - 1).unwrap();
            assert!(
                explain::headline(&schedule, &before) != whole || before.verdict != outcome.verdict,
                "{id}: step {deciding} decides it"
            );
        }
    }
}

/// The schedule a link opens, its outcome and its playhead.
fn open(token: &str) -> (Schedule, Outcome, usize) {
    let v = link::decode(token).unwrap_or_else(|e| panic!("{token}: {e}"));
    let schedule = v.schedule().unwrap();
    let outcome = view::run(&schedule).unwrap();
    (schedule, outcome, v.step)
}

fn phone_text(token: &str, actor: &str) -> String {
    let (schedule, outcome, step) = open(token);
    view::phone(&schedule, &outcome, actor, step).text
}

#[test]
fn the_phones_of_the_issue_say_what_their_buyers_were_told() {
    let omar = phone_text("1.4.ch4-lock_row.01010011.8", "omar");
    assert_eq!(omar, "A7 is already taken");
    let omar = phone_text("1.4.ch4-serializable.01010101.8", "omar");
    assert!(
        omar.contains("40001") && omar.contains("try again"),
        "{omar}"
    );
    let phone1 = phone_text("1.2.ch2-dead-hold-payment.10211.3", "phone1");
    assert_eq!(phone1, "Your hold on C3 ran out at minute 2");
    assert_eq!(
        phone_text("1.3.ch3-three-arrivals.210.1", "a"),
        "Your hold on A14 ran out at minute 5"
    );
    assert_eq!(
        phone_text("1.3.ch3-three-arrivals.210.0", "a"),
        "A14 is held for you until minute 5: pay now"
    );
}

#[test]
fn a_nowait_refusal_says_the_seats_are_busy_and_to_pick_again() {
    let schedule = view::playable(&scenarios::get("ch1-family-nowait").unwrap().schedule());
    let outcome = view::run(&schedule).unwrap();
    let end = view::phone(&schedule, &outcome, "group", outcome.entries.len());
    assert!(
        end.text.contains("busy") && end.text.contains("pick again"),
        "{end:?}"
    );
    assert!(end.text.contains("55P03"), "{end:?}");
    let headline = explain::headline(&schedule, &outcome);
    assert!(headline.contains("busy (55P03"), "{headline}");
    assert!(
        !headline.contains("Group was told it was sold out"),
        "{headline}"
    );
}

#[test]
fn a_confirmation_decided_after_the_deadline_is_named_as_a_late_booking() {
    let (schedule, outcome, step) = open("1.3.ch3-now-transaction.11021.5");
    assert_eq!(outcome.verdict.booked_late, ["a"]);
    assert!(outcome.verdict.bad());
    let v = view::verdict_at(&schedule, step, view::deciding_step(&schedule));
    assert!(v.bad && v.decided, "{v:?}");
    assert!(v.headline.starts_with("Booked too late"), "{}", v.headline);
    assert!(v.headline.contains("transaction began"), "{}", v.headline);
    assert!(
        v.story
            .iter()
            .any(|l| l.starts_with('⇒') && l.contains("ran out at minute 5")),
        "{:?}",
        v.story
    );
    let builtin = scenarios::get("ch3-now-transaction").unwrap();
    assert!(!view::goal_at(&builtin, &schedule, 0));
    assert!(view::goal_at(&builtin, &schedule, step));
    // The careful design reads the clock after the lock: a refund, not a late booking.
    let careful = view::playable(&scenarios::get("ch3-now-evaluation").unwrap().schedule());
    let outcome = view::run(&careful).unwrap();
    assert!(outcome.verdict.booked_late.is_empty());
    assert_eq!(outcome.verdict.refund_due, ["a"]);
}

#[test]
fn a_late_booking_is_judged_alike_by_the_explorer_and_in_expect() {
    let schedule = scenarios::get("ch3-now-transaction").unwrap().schedule();
    let e = shared::explorer::explore(&schedule, 10_000);
    assert!(e.groups.iter().any(|g| g.verdict.booked_late == ["a"]));
    assert!(e.groups.iter().any(|g| g.verdict.booked_late.is_empty()));
    let mut file = schedule.to_file();
    file.expect = Some(shared::schedule::Expect {
        booked_late: Some(vec![]),
        ..Default::default()
    });
    let wrong = Schedule::parse(file).unwrap();
    let outcome = view::run(&wrong).unwrap();
    let failures = shared::assess::check_expect(&wrong, &outcome);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        failures[0].starts_with("expect.booked_late"),
        "{failures:?}"
    );
}
