//! The built-in scenarios of the chapters: each a schedule file under `shared/scenarios/`,
//! with the goal the reader pursues in it and the check that says when an outcome reaches it
//! (`goal.rs`).

use serde::Serialize;

use crate::defences::Defence;
use crate::outcome::Outcome;
use crate::schedule::{ProgramSpec, Schedule, ScheduleFile};

mod goal;

use goal::Goal;

/// A built-in scenario.
#[derive(Clone, Debug, Serialize)]
pub struct BuiltIn {
    pub id: &'static str,
    pub chapter: u8,
    pub title: &'static str,
    /// What the reader is trying to make happen, or to see.
    pub goal: &'static str,
    pub file: ScheduleFile,
    /// How `goal_met` reads the goal.
    #[serde(skip)]
    check: Goal,
}

impl BuiltIn {
    /// The validated schedule (built-ins always validate: a test says so).
    pub fn schedule(&self) -> Schedule {
        Schedule::parse(self.file.clone()).expect("built-in scenarios are valid")
    }

    /// The built-in's file with every buyer given by a defence switched to `defence`: the
    /// programs change, so the file's own order and expectations are dropped (the order goes
    /// back to one entry of each buyer in turn) and the name says which defence runs. `None`,
    /// or a scenario whose programs name no defence, gives the file as it is.
    pub fn file_with_defence(&self, defence: Option<Defence>) -> ScheduleFile {
        let mut file = self.file.clone();
        let Some(defence) = defence else {
            return file;
        };
        let mut switched = false;
        for spec in file.actors.values_mut() {
            if let ProgramSpec::Defence { defence: d, .. } = spec {
                *d = defence.id().to_string();
                switched = true;
            }
        }
        if switched {
            file.name = format!("{} ({defence})", file.name);
            file.order.clear();
            file.expect = None;
        }
        file
    }

    /// Whether the goal is about `schedule`: it keeps the built-in's buyers and seats (the
    /// reader may add to them, change programs or switch the defence). A schedule of other
    /// people on other seats, such as a live round opened in the sandbox, has no goal here.
    pub fn goal_applies(&self, schedule: &Schedule) -> bool {
        let names =
            |s: &Schedule| -> Vec<String> { s.actors().iter().map(|a| a.name.clone()).collect() };
        let seats = |s: &Schedule| -> Vec<String> {
            s.scenario()
                .seats
                .iter()
                .map(|seat| seat.id.clone())
                .collect()
        };
        let Ok(own) = Schedule::parse(self.file.clone()) else {
            return false;
        };
        let (theirs, their_seats) = (names(schedule), seats(schedule));
        names(&own).iter().all(|n| theirs.contains(n))
            && seats(&own).iter().all(|id| their_seats.contains(id))
    }

    /// Whether `outcome` (of `schedule`, up to wherever the reader stopped) reaches the goal.
    pub fn goal_met(&self, schedule: &Schedule, outcome: &Outcome) -> bool {
        self.check.met(schedule, outcome)
    }
}

impl BuiltIn {
    /// Whether any order of `schedule`'s programs reaches the goal: `Some(false)` when the
    /// explorer ran every one of them (at most `limit`) and none does, `None` when there are
    /// too many orders to say.
    pub fn goal_reachable(&self, schedule: &Schedule, limit: u64) -> Option<(bool, usize)> {
        let (orders, complete) = crate::explorer::orders(schedule, limit);
        let count = orders.len();
        let reached = orders.into_iter().any(|order| {
            let s = schedule.with_order(order);
            crate::engine::simulate(&s)
                .map(|trace| self.goal_met(&s, &crate::assess::assess(&s, trace)))
                .unwrap_or(false)
        });
        (reached || complete).then_some((reached, count))
    }
}

/// A built-in as listed: id, chapter, title, goal, its check, the file's JSON.
type Listed = (
    &'static str,
    u8,
    &'static str,
    &'static str,
    Goal,
    &'static str,
);

macro_rules! builtin {
    ($id:literal, $chapter:literal, $title:expr, $goal:literal, $check:ident) => {
        (
            $id,
            $chapter,
            $title,
            $goal,
            Goal::$check,
            include_str!(concat!("../scenarios/", $id, ".json")),
        )
    };
}

#[rustfmt::skip]
const SEATS: &[Listed] = &[
    builtin!("ch1-second-request-waits", 1, "The second request waits", "Watch the second UPDATE wait for the row lock, re-check and update no rows.", WaitThenNoRows),
    builtin!("ch1-expired-hold-is-free", 1, "An expired hold frees itself", "Take a seat whose hold ran out, with no sweeper running.", ExpiredHoldTaken),
    builtin!("ch1-confirm-three-answers", 1, "Confirm's three answers", "Move the clock before the confirm: see a ticket, a duplicate webhook answered with the same ticket, or a refund owed.", LateConfirmRefunded),
    builtin!("ch1-family-nowait", 1, "All or nothing for a family", "Make the two groups collide without anyone queueing or deadlocking.", CollideWithoutWaiting),
    builtin!("ch1-unique-safety-net", 1, "The unique key underneath", "Try to insert a second ticket for the same seat.", SecondTicketRefused),
    builtin!("ch2-same-seat-twice", 2, "Take the same seat twice", "Get both phones a hold on C3.", DoubleBooking),
    builtin!("ch2-dead-hold-payment", 2, "Pay with a dead hold", "Make a payment for an expired hold turn into a booking.", DeadHoldBooked),
    builtin!("ch2-expiry_only", 2, "Leave without releasing", "Come back to the seat you just left.", ComeBack),
    builtin!("ch2-release_on_exit", 2, "Release on every exit", "Come back to the seat you just left.", ComeBack),
    builtin!("ch2-redis-update", 2, "A Redis hold, then a plain UPDATE", "Sell C3 twice although Redis lets one phone hold it at a time.", DoubleBooking),
    builtin!("ch2-redis-unique", 2, "A Redis hold, then the ticket by unique key", "Sell C3 twice although Redis lets one phone hold it at a time.", DoubleBooking),
    builtin!("ch2-redis-expiry_only", 2, "A Redis hold, left to its TTL", "Come back to the seat you just left.", ComeBack),
    builtin!("ch2-redis-release_on_exit", 2, "A Redis hold, deleted on every exit", "Come back to the seat you just left.", ComeBack),
    builtin!("ch3-three-arrivals", 3, "The last concert seat", "Reorder the three arrivals until the late payment takes B's seat.", LatePaymentTakesSeat),
    builtin!("ch3-retry-never-extends", 3, "Retries never extend a deadline", "Keep a hold alive by retrying it.", RetryOutlivesDeadline),
    builtin!("ch3-now-transaction", 3, "now(): the time the transaction began", "See a confirm that waited past the deadline still believe it was in time.", WaitedConfirmIssuedLate),
    builtin!("ch3-now-evaluation", 3, "The time of the decision", "See the same confirm decide with the clock read after the lock.", WaitedConfirmRefused),
    builtin!("ch4-check_then_act", 4, Defence::CheckThenAct.title(), "Sell A7 twice.", DoubleBooking),
    builtin!("ch4-transaction", 4, Defence::Transaction.title(), "Sell A7 twice, inside a transaction.", DoubleBooking),
    builtin!("ch4-repeatable_read", 4, Defence::RepeatableRead.title(), "Sell A7 twice under REPEATABLE READ.", DoubleBooking),
    builtin!("ch4-serializable", 4, Defence::Serializable.title(), "Sell A7 twice under SERIALIZABLE.", DoubleBooking),
    builtin!("ch4-atomic_update", 4, Defence::AtomicUpdate.title(), "Sell A7 twice with a conditional UPDATE.", DoubleBooking),
    builtin!("ch4-lock_row", 4, Defence::LockRow.title(), "Sell A7 twice with SELECT … FOR UPDATE.", DoubleBooking),
    builtin!("ch4-unique_constraint", 4, Defence::UniqueConstraint.title(), "Sell A7 twice past the unique key.", DoubleBooking),
    builtin!("ch4-serializable-retry", 4, Defence::SerializableRetry.title(), "Make Omar's first attempt fail with 40001, and watch his app try once more.", RetryRan),
    builtin!("ch4-late-payment", 4, "The hold and the late payment", "Make Adam's late payment take Omar's seat.", LatePaymentTakesSeat),
    builtin!("ch5-three-buyers", 5, "Sandbox", "Find every order that sells A7 more than once.", DoubleBooking),
];

/// Chapter 6's, in the bundles that have the shapes beyond seats (the `shapes` feature).
#[cfg(feature = "shapes")]
#[rustfmt::skip]
const SHAPES: &[Listed] = &[
    builtin!("shapes-general_admission", 6, "General admission", "Sell the section's last ticket to both buyers: one more told yes than there were tickets.", DoubleBooking),
    builtin!("shapes-balance", 6, "A balance", "Withdraw $100 twice from $150: take the account below zero.", DoubleBooking),
    builtin!("shapes-rate_limit", 6, "A rate limit", "The key has made 9 of its 10 calls: let two more through.", DoubleBooking),
    builtin!("shapes-coupon", 6, "A single-use coupon", "Get the single-use coupon SAVE50 accepted twice.", DoubleBooking),
    builtin!("shapes-abandoned-checkout", 6, "A checkout left half-way", "Lose the last ticket to a checkout nobody finishes.", LostSeat),
    builtin!("shapes-username", 6, "A username", "Create batman twice: two accounts, one name.", DoubleBooking),
];

/// Every built-in as listed, chapter by chapter.
fn listed() -> impl Iterator<Item = &'static Listed> {
    #[cfg(feature = "shapes")]
    let shapes = SHAPES;
    #[cfg(not(feature = "shapes"))]
    let shapes: &[Listed] = &[];
    // Chapter 6's bundle shows no race for seats: their built-ins are left out with them.
    let seats = if crate::schedule::SHOWS_SEATS {
        SEATS
    } else {
        &[]
    };
    seats.iter().chain(shapes)
}

/// Every built-in scenario, chapter by chapter.
pub fn all() -> Vec<BuiltIn> {
    listed().map(read).collect()
}

/// One built-in scenario by id (only its own file is read).
pub fn get(id: &str) -> Option<BuiltIn> {
    listed().find(|entry| entry.0 == id).map(read)
}

fn read(&(id, chapter, title, goal, check, json): &Listed) -> BuiltIn {
    BuiltIn {
        id,
        chapter,
        title,
        goal,
        file: serde_json::from_str(json).expect("built-in scenario files are valid JSON"),
        check,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Of the seats' built-ins, which chapter 6's bundle leaves out.
    #[cfg(feature = "seats")]
    #[test]
    fn a_goal_is_about_the_builtins_own_buyers_and_seats() {
        for b in all() {
            let kind = b.file.scenario.kind;
            let fitting = Defence::ALL.into_iter().filter(|d| d.fits(kind));
            for defence in std::iter::once(None).chain(fitting.map(Some)) {
                let s = Schedule::parse(b.file_with_defence(defence)).unwrap();
                assert!(b.goal_applies(&s), "{} with {defence:?}", b.id);
            }
        }
        let sandbox = get("ch5-three-buyers").unwrap();
        let mut round = sandbox.file.clone();
        let programs: Vec<_> = std::mem::take(&mut round.actors).into_values().collect();
        round.actors = ["ana", "bo", "cy"]
            .iter()
            .map(|n| n.to_string())
            .zip(programs)
            .collect();
        round.order.clear();
        round.expect = None;
        let round = Schedule::parse(round).unwrap();
        assert!(!sandbox.goal_applies(&round), "other people's round");
    }

    #[test]
    fn every_builtin_scenario_parses() {
        for b in all() {
            if let Err(e) = Schedule::parse(b.file.clone()) {
                panic!("{}: {e}", b.id);
            }
        }
    }

    // Of the seats' built-ins, which chapter 6's bundle leaves out.
    #[cfg(feature = "seats")]
    #[test]
    fn switching_the_defence_swaps_every_buyer_given_by_a_defence_and_drops_the_order() {
        let b = get("ch4-check_then_act").expect("built-in");
        let file = b.file_with_defence(Some(Defence::LockRow));
        let schedule = Schedule::parse(file).expect("valid");
        assert!(schedule.name().ends_with("(lock_row)"));
        for actor in schedule.actors() {
            assert_eq!(actor.defence, Some(Defence::LockRow));
        }
        assert_eq!(schedule.order().len(), schedule.full_multiset().len());
        let explicit = get("ch4-late-payment").expect("built-in");
        assert_eq!(
            explicit.file_with_defence(Some(Defence::LockRow)),
            explicit.file
        );
    }

    // Of the seats' built-ins, which chapter 6's bundle leaves out.
    #[cfg(feature = "seats")]
    #[test]
    fn a_chapter_4_scenario_titled_after_a_defence_runs_that_defence() {
        let named: Vec<(BuiltIn, Defence)> = all()
            .into_iter()
            .filter(|b| b.chapter == 4)
            .filter_map(|b| {
                let d = Defence::ALL.into_iter().find(|d| d.title() == b.title)?;
                Some((b, d))
            })
            .collect();
        assert_eq!(named.len(), 8, "every race of chapter 4's chooser");
        for (b, d) in named {
            let actors = b.schedule().actors().to_vec();
            assert!(actors.iter().any(|a| a.defence == Some(d)), "{}", b.id);
        }
    }
}
