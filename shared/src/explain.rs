//! Explain causally: an outcome as a short chain of plain-word lines, one per thing that
//! mattered (a read, a write, a wait, a commit that told someone they got a seat), ending in
//! the consequence ("⇒ two people were sold A7"); and one headline for a screen reader's live
//! region. Everything is read from the outcome: what each entry returned, whom it waited for,
//! and who had been told they got which seat after it.

mod contrast;
mod counter;
mod event;
mod fate;
mod late;
mod overlap;
mod username;

use std::collections::BTreeMap;

use crate::counter_words::CounterWords;
use crate::outcome::{Entry, Outcome, StepResult};
use crate::schedule::{seats_shown_from_here, Schedule, SeatStatus, CLOCK};
use crate::sqlstate::SqlState;
use crate::username_words::UsernameWords;

pub use contrast::{contrast, Contrast, Divergence, Side};
use event::Event;
use fate::{fates, Fate};
use late::late_bookings;
pub use overlap::overlap_line;

/// The chain of events that led to the outcome, then its consequence, one short line each.
pub fn verdict_story(schedule: &Schedule, outcome: &Outcome) -> Vec<String> {
    if outcome.entries.is_empty() {
        return vec!["Nothing has run yet.".to_string()];
    }
    let mut lines = story_events(schedule, outcome);
    lines.extend(consequences(schedule, outcome));
    lines
}

/// The consequence lines alone: how each seat ended, who is owed a refund.
pub fn consequences(schedule: &Schedule, outcome: &Outcome) -> Vec<String> {
    if let Some(u) = UsernameWords::of(schedule.scenario()) {
        return username::consequences(schedule, outcome, &u);
    }
    if let Some(c) = CounterWords::of(schedule.scenario()) {
        return counter::consequences(schedule, outcome, c);
    }
    seats_shown_from_here();
    let mut lines: Vec<String> = late_bookings(schedule.scenario().clock_unit, outcome)
        .iter()
        .map(|l| l.consequence())
        .collect();
    lines.extend(fates(outcome).iter().map(Fate::consequence));
    lines.extend(
        outcome
            .verdict
            .refund_due
            .iter()
            .map(|a| format!("⇒ {} paid and got no seat: a refund is owed", title(a))),
    );
    lines
}

/// The chain of events alone, one line per thing that mattered, without the consequence.
pub fn story_events(schedule: &Schedule, outcome: &Outcome) -> Vec<String> {
    let entries = &outcome.entries;
    let mut done_at: Vec<Vec<usize>> = vec![Vec::new(); entries.len()];
    for (j, e) in entries.iter().enumerate() {
        if let Some(at) = e.trace.completed_after.filter(|&at| at < entries.len()) {
            done_at[at].push(j);
        }
    }
    // The entry's own operation first, then those it released, in the order they had waited.
    for list in &mut done_at {
        list.sort_by_key(|&j| j);
    }
    let mut told_before = initially_told(schedule);
    let mut lines = Vec::new();
    for (k, e) in entries.iter().enumerate() {
        if !e.trace.waited_for.is_empty() {
            // A username's write, book and claim are all inserts.
            let what = match e.op {
                crate::schedule::Op::Write { .. }
                | crate::schedule::Op::Book { .. }
                | crate::schedule::Op::Claim { .. }
                    if schedule.scenario().kind.is_username() =>
                {
                    "insert"
                }
                _ => e.op.name(),
            };
            lines.push(format!(
                "{}'s {} waits for {}",
                title(&e.trace.actor),
                what,
                join(
                    &e.trace
                        .waited_for
                        .iter()
                        .map(|a| title(a))
                        .collect::<Vec<_>>()
                )
            ));
        }
        let released = done_at[k].iter().any(|&j| j != k);
        // A deadlock victim fails before anything its cycle held up goes on.
        let mut order = done_at[k].clone();
        order.sort_by_key(|&j| (!is_deadlock(&entries[j]), j != k, j));
        for j in order {
            let event = Event {
                schedule,
                outcome,
                k,
                j,
                told_before: &told_before,
                released,
            };
            if let Some(line) = event.line() {
                lines.push(if j == k { line } else { format!("Then {line}") });
            }
        }
        told_before = e.told.clone();
    }
    lines
}

/// One line for a screen reader: "Double booking: A7 sold to Adam and Omar", "Sold once: A7 to
/// Adam; Omar told sold out". `schedule` is the one `outcome` is of: its clock's unit names the
/// moments of a late booking.
pub fn headline(schedule: &Schedule, outcome: &Outcome) -> String {
    if outcome.entries.is_empty() {
        return "Nothing has run yet".to_string();
    }
    if let Some(u) = UsernameWords::of(schedule.scenario()) {
        return username::headline(schedule, outcome, &u);
    }
    if let Some(c) = CounterWords::of(schedule.scenario()) {
        return counter::headline(schedule, outcome, c);
    }
    seats_shown_from_here();
    let fates = fates(outcome);
    let late: Vec<String> = late_bookings(schedule.scenario().clock_unit, outcome)
        .iter()
        .map(|l| l.headline())
        .collect();
    let worst: Vec<&Fate> = fates
        .iter()
        .filter(|f| f.double() || (!late.is_empty() && f.lost))
        .collect();
    let shown: Vec<&Fate> = if !late.is_empty() || !worst.is_empty() {
        worst
    } else {
        let lost: Vec<&Fate> = fates.iter().filter(|f| f.lost).collect();
        if lost.is_empty() {
            fates.iter().collect()
        } else {
            lost
        }
    };
    let mut parts: Vec<String> = shown.iter().map(|f| f.headline()).collect();
    parts.extend(late);
    parts.extend(
        outcome
            .verdict
            .refund_due
            .iter()
            .map(|a| format!("{} is owed a refund", title(a))),
    );
    if parts.is_empty() {
        return "No seat taken".to_string();
    }
    parts.join("; ")
}

fn is_deadlock(e: &Entry) -> bool {
    e.trace
        .result
        .as_ref()
        .and_then(StepResult::code)
        .is_some_and(SqlState::is_deadlock)
}

/// Seat → the actors holding or owning it when the scenario starts.
fn initially_told(schedule: &Schedule) -> BTreeMap<String, Vec<String>> {
    schedule
        .scenario()
        .seats
        .iter()
        .map(|s| {
            let told = match (&s.holder, s.status) {
                (Some(h), SeatStatus::Held | SeatStatus::Booked) => vec![h.clone()],
                _ => Vec::new(),
            };
            (s.id.clone(), told)
        })
        .collect()
}

/// "two", "three"… for the counts a seat race reaches.
pub(crate) fn number(n: usize) -> String {
    const WORDS: [&str; 9] = [
        "no", "one", "two", "three", "four", "five", "six", "seven", "eight",
    ];
    WORDS
        .get(n)
        .map_or_else(|| n.to_string(), |w| w.to_string())
}

/// An actor's name as the page writes it: `omar` → "Omar", the clock by its role.
pub(crate) fn title(name: &str) -> String {
    if name == CLOCK {
        return "The clock".to_string();
    }
    crate::engine::capitalise(name)
}

pub(crate) use crate::engine::join;
