//! The built-in scenarios of the chapters: each a schedule file under `shared/scenarios/`,
//! with the goal the reader pursues in it.

use serde::Serialize;

use crate::schedule::{Schedule, ScheduleFile};

/// A built-in scenario.
#[derive(Clone, Debug, Serialize)]
pub struct BuiltIn {
    pub id: &'static str,
    pub chapter: u8,
    pub title: &'static str,
    /// What the reader is trying to make happen, or to see.
    pub goal: &'static str,
    pub file: ScheduleFile,
}

impl BuiltIn {
    /// The validated schedule (built-ins always validate: a test says so).
    pub fn schedule(&self) -> Schedule {
        Schedule::parse(self.file.clone()).expect("built-in scenarios are valid")
    }
}

macro_rules! builtin {
    ($id:literal, $chapter:literal, $title:literal, $goal:literal) => {
        (
            $id,
            $chapter,
            $title,
            $goal,
            include_str!(concat!("../scenarios/", $id, ".json")),
        )
    };
}

const ALL: &[(&str, u8, &str, &str, &str)] = &[
    builtin!("ch1-second-request-waits", 1, "The second request waits", "Watch the second UPDATE wait for the row lock, re-check and update no rows."),
    builtin!("ch1-expired-hold-is-free", 1, "An expired hold frees itself", "Take a seat whose hold ran out, with no sweeper running."),
    builtin!("ch1-confirm-three-answers", 1, "Confirm's three answers", "Move the clock before the confirm: see a ticket, a duplicate webhook answered with the same ticket, or a refund owed."),
    builtin!("ch1-family-nowait", 1, "All or nothing for a family", "Make the two groups collide without anyone queueing or deadlocking."),
    builtin!("ch1-unique-safety-net", 1, "The unique key underneath", "Try to insert a second ticket for the same seat."),
    builtin!("ch2-same-seat-twice", 2, "Take the same seat twice", "Get both phones a hold on C3."),
    builtin!("ch2-dead-hold-payment", 2, "Pay with a dead hold", "Make a payment for an expired hold turn into a booking."),
    builtin!("ch2-expiry_only", 2, "Leave without releasing", "Come back to the seat you just left."),
    builtin!("ch2-release_on_exit", 2, "Release on every exit", "Come back to the seat you just left."),
    builtin!("ch3-three-arrivals", 3, "The last concert seat", "Reorder the three arrivals until the late payment takes B's seat."),
    builtin!("ch3-retry-never-extends", 3, "Retries never extend a deadline", "Keep a hold alive by retrying it."),
    builtin!("ch3-now-transaction", 3, "now(): the time the transaction began", "See a confirm that waited past the deadline still believe it was in time."),
    builtin!("ch3-now-evaluation", 3, "The time of the decision", "See the same confirm decide with the clock read after the lock."),
    builtin!("ch4-check_then_act", 4, "Check, then act", "Sell A7 twice."),
    builtin!("ch4-transaction", 4, "Wrap it in a transaction", "Sell A7 twice, inside a transaction."),
    builtin!("ch4-repeatable_read", 4, "REPEATABLE READ", "Sell A7 twice under REPEATABLE READ."),
    builtin!("ch4-serializable", 4, "SERIALIZABLE", "Sell A7 twice under SERIALIZABLE."),
    builtin!("ch4-atomic_update", 4, "One atomic write", "Sell A7 twice with a conditional UPDATE."),
    builtin!("ch4-lock_row", 4, "Lock the row", "Sell A7 twice with SELECT … FOR UPDATE."),
    builtin!("ch4-unique_constraint", 4, "A unique constraint", "Sell A7 twice past the unique key."),
    builtin!("ch4-late-payment", 4, "The hold and the late payment", "Make Adam's late payment take Omar's seat."),
    builtin!("ch5-three-buyers", 5, "Sandbox", "Find every order that sells A7 more than once."),
];

/// Every built-in scenario, chapter by chapter.
pub fn all() -> Vec<BuiltIn> {
    ALL.iter()
        .map(|&(id, chapter, title, goal, json)| BuiltIn {
            id,
            chapter,
            title,
            goal,
            file: serde_json::from_str(json).expect("built-in scenario files are valid JSON"),
        })
        .collect()
}

/// One built-in scenario by id.
pub fn get(id: &str) -> Option<BuiltIn> {
    all().into_iter().find(|b| b.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_scenario_parses() {
        for b in all() {
            if let Err(e) = Schedule::parse(b.file.clone()) {
                panic!("{}: {e}", b.id);
            }
        }
    }
}
