//! The built-in scenarios of the chapters: each a schedule file under `shared/scenarios/`,
//! with the goal the reader pursues in it and the check that says when an outcome reaches it.

use serde::Serialize;

use crate::outcome::{Answer, Entry, Outcome, StepResult, Tables};
use crate::schedule::{Condition, Op, ProgramSpec, Schedule, ScheduleFile, SeatStatus};

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

/// What reaching a goal means, in terms of an outcome. "Watch" and "see" goals are met only
/// once the run has reached its end showing the thing; "make", "get" and "sell" goals as soon
/// as it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Goal {
    /// Two buyers told they got the same seat.
    DoubleBooking,
    /// A late payment took someone else's seat: a double booking or a seat nobody can get.
    LatePaymentTakesSeat,
    /// Watch a claim wait for the row lock, re-check and update no rows.
    WaitThenNoRows,
    /// Someone other than its holder got a seat whose hold ran out.
    ExpiredHoldTaken,
    /// See a confirm answer `refund_due` (the clock moved before it).
    LateConfirmRefunded,
    /// A NOWAIT collision, with nobody queueing and no deadlock.
    CollideWithoutWaiting,
    /// The unique key refused a second ticket (23505).
    SecondTicketRefused,
    /// A confirm issued a ticket for a hold that had run out.
    DeadHoldBooked,
    /// A buyer held a seat, and later held it again.
    ComeBack,
    /// A retried hold answered `held` after its deadline.
    RetryOutlivesDeadline,
    /// See a confirm that waited past its hold's deadline still issue the ticket.
    WaitedConfirmIssuedLate,
    /// See a confirm that waited past its hold's deadline owe a refund instead.
    WaitedConfirmRefused,
    /// See a retry (an operation under `"if": "failed"`) run.
    RetryRan,
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
    pub fn file_with_defence(&self, defence: Option<&str>) -> ScheduleFile {
        let mut file = self.file.clone();
        let Some(defence) = defence else {
            return file;
        };
        let mut switched = false;
        for spec in file.actors.values_mut() {
            if let ProgramSpec::Defence { defence: d, .. } = spec {
                *d = defence.to_string();
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
        let entries = &outcome.entries;
        let at_end = entries.len() >= schedule.full_multiset().len();
        match self.check {
            Goal::DoubleBooking => outcome.verdict.double_booked,
            Goal::LatePaymentTakesSeat => {
                outcome.verdict.double_booked || outcome.verdict.lost_seat
            }
            Goal::WaitThenNoRows => {
                at_end
                    && entries.iter().any(|e| {
                        matches!(e.op, Op::Claim { .. })
                            && !e.trace.waited_for.is_empty()
                            && e.trace.result == Some(StepResult::Ok { rows: Some(0) })
                    })
            }
            Goal::ExpiredHoldTaken => schedule.scenario().seats.iter().any(|seat| {
                seat.status == SeatStatus::Held
                    && outcome
                        .seats
                        .get(&seat.id)
                        .is_some_and(|s| s.told.iter().any(|t| Some(t) != seat.holder.as_ref()))
            }),
            Goal::LateConfirmRefunded => {
                at_end && entries.iter().any(|e| answered(e, Answer::RefundDue))
            }
            Goal::CollideWithoutWaiting => {
                entries.iter().any(|e| error_code(e) == Some("55P03"))
                    && entries
                        .iter()
                        .all(|e| e.trace.waited_for.is_empty() && error_code(e) != Some("40P01"))
            }
            Goal::SecondTicketRefused => entries
                .iter()
                .any(|e| matches!(e.op, Op::Book { .. }) && error_code(e) == Some("23505")),
            Goal::DeadHoldBooked => entries.iter().enumerate().any(|(k, e)| {
                answered(e, Answer::Issued)
                    && held_until(tables_before(outcome, k), &e.trace.actor)
                        .is_some_and(|until| until < tables_before(outcome, k).clock)
            }),
            Goal::ComeBack => entries.iter().enumerate().any(|(k, e)| {
                answered(e, Answer::Held)
                    && entries[..k].iter().any(|earlier| {
                        earlier.trace.actor == e.trace.actor && answered(earlier, Answer::Held)
                    })
                    && !is_retry(entries, k)
            }),
            Goal::RetryOutlivesDeadline => retry_outlives_deadline(outcome),
            Goal::WaitedConfirmIssuedLate => {
                at_end && waited_past_deadline(outcome, Answer::Issued)
            }
            Goal::WaitedConfirmRefused => {
                at_end && waited_past_deadline(outcome, Answer::RefundDue)
            }
            Goal::RetryRan => {
                at_end
                    && entries.iter().any(|e| {
                        let condition = schedule
                            .actor_index(&e.trace.actor)
                            .map(|a| schedule.actors()[a].condition(e.trace.op_index));
                        condition == Some(Condition::Failed)
                            && e.trace
                                .result
                                .as_ref()
                                .is_some_and(|r| *r != StepResult::Skipped)
                    })
            }
        }
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

fn answered(e: &Entry, answer: Answer) -> bool {
    e.trace.result == Some(StepResult::Answer { answer })
}

fn error_code(e: &Entry) -> Option<&str> {
    match &e.trace.result {
        Some(StepResult::Error { code, .. }) => Some(code),
        _ => None,
    }
}

/// The committed tables when entry `k` was sent.
fn tables_before(outcome: &Outcome, k: usize) -> &Tables {
    match k.checked_sub(1) {
        Some(prev) => &outcome.entries[prev].trace.tables,
        None => &outcome.initial,
    }
}

/// The latest deadline of the seats `actor` holds in `tables`.
fn held_until(tables: &Tables, actor: &str) -> Option<i64> {
    tables
        .seats
        .iter()
        .filter(|r| r.status == SeatStatus::Held && r.holder.as_deref() == Some(actor))
        .filter_map(|r| r.until)
        .max()
}

/// Entry `k` is a hold that re-sends an attempt its actor already sent.
fn is_retry(entries: &[Entry], k: usize) -> bool {
    let attempt = |e: &Entry| match &e.op {
        Op::Hold {
            attempt: Some(a), ..
        } => Some(a.clone()),
        _ => None,
    };
    let Some(mine) = attempt(&entries[k]) else {
        return false;
    };
    entries[..k]
        .iter()
        .any(|e| e.trace.actor == entries[k].trace.actor && attempt(e).as_ref() == Some(&mine))
}

/// A retry answered `held` when the clock had passed the deadline its first attempt set.
fn retry_outlives_deadline(outcome: &Outcome) -> bool {
    let entries = &outcome.entries;
    (0..entries.len()).any(|k| {
        if !answered(&entries[k], Answer::Held) || !is_retry(entries, k) {
            return false;
        }
        let actor = &entries[k].trace.actor;
        let first = (0..k)
            .find(|&j| &entries[j].trace.actor == actor && answered(&entries[j], Answer::Held));
        let deadline = first.and_then(|j| held_until(&entries[j].trace.tables, actor));
        deadline.is_some_and(|until| tables_before(outcome, k).clock > until)
    })
}

/// A confirm sent while its actor's hold was still valid waited on a lock, the deadline passed
/// meanwhile, and it answered `answer`.
fn waited_past_deadline(outcome: &Outcome, answer: Answer) -> bool {
    outcome.entries.iter().enumerate().any(|(k, e)| {
        let (Op::Confirm { .. }, false, true) =
            (&e.op, e.trace.waited_for.is_empty(), answered(e, answer))
        else {
            return false;
        };
        let before = tables_before(outcome, k);
        let Some(until) = held_until(before, &e.trace.actor) else {
            return false;
        };
        let done = e
            .trace
            .completed_after
            .and_then(|c| outcome.entries.get(c))
            .map_or(before.clock, |c| c.trace.tables.clock);
        before.clock <= until && until < done
    })
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
    ($id:literal, $chapter:literal, $title:literal, $goal:literal, $check:ident) => {
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
const ALL: &[Listed] = &[
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
    builtin!("ch4-check_then_act", 4, "Check, then act", "Sell A7 twice.", DoubleBooking),
    builtin!("ch4-transaction", 4, "Wrap it in a transaction", "Sell A7 twice, inside a transaction.", DoubleBooking),
    builtin!("ch4-repeatable_read", 4, "REPEATABLE READ", "Sell A7 twice under REPEATABLE READ.", DoubleBooking),
    builtin!("ch4-serializable", 4, "SERIALIZABLE", "Sell A7 twice under SERIALIZABLE.", DoubleBooking),
    builtin!("ch4-atomic_update", 4, "One atomic write", "Sell A7 twice with a conditional UPDATE.", DoubleBooking),
    builtin!("ch4-lock_row", 4, "Lock the row", "Sell A7 twice with SELECT … FOR UPDATE.", DoubleBooking),
    builtin!("ch4-unique_constraint", 4, "A unique constraint", "Sell A7 twice past the unique key.", DoubleBooking),
    builtin!("ch4-serializable-retry", 4, "SERIALIZABLE, and try again", "Make Omar's first attempt fail with 40001, and watch his app try once more.", RetryRan),
    builtin!("ch4-late-payment", 4, "The hold and the late payment", "Make Adam's late payment take Omar's seat.", LatePaymentTakesSeat),
    builtin!("ch5-three-buyers", 5, "Sandbox", "Find every order that sells A7 more than once.", DoubleBooking),
];

/// Every built-in scenario, chapter by chapter.
pub fn all() -> Vec<BuiltIn> {
    ALL.iter().map(read).collect()
}

/// One built-in scenario by id (only its own file is read).
pub fn get(id: &str) -> Option<BuiltIn> {
    ALL.iter().find(|entry| entry.0 == id).map(read)
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

    #[test]
    fn a_goal_is_about_the_builtins_own_buyers_and_seats() {
        for b in all() {
            for defence in std::iter::once(None).chain(crate::defences::NAMES.iter().map(Some)) {
                let s = Schedule::parse(b.file_with_defence(defence.copied())).unwrap();
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

    #[test]
    fn switching_the_defence_swaps_every_buyer_given_by_a_defence_and_drops_the_order() {
        let b = get("ch4-check_then_act").expect("built-in");
        let file = b.file_with_defence(Some("lock_row"));
        let schedule = Schedule::parse(file).expect("valid");
        assert!(schedule.name().ends_with("(lock_row)"));
        for actor in schedule.actors() {
            assert_eq!(actor.defence.as_deref(), Some("lock_row"));
        }
        assert_eq!(schedule.order().len(), schedule.full_multiset().len());
        let explicit = get("ch4-late-payment").expect("built-in");
        assert_eq!(explicit.file_with_defence(Some("lock_row")), explicit.file);
    }
}
