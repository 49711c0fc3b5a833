//! What reaching a built-in's goal means, in terms of an outcome: a double booking, a wait
//! that updates no rows, a hold taken after it ran out, a confirm answered late, a retry that
//! ran…

use crate::outcome::{Answer, Entry, Outcome, StepResult, Tables};
use crate::schedule::{seats_shown_from_here, Condition, Op, Schedule, SeatStatus};
use crate::sqlstate::SqlState;

/// What reaching a goal means, in terms of an outcome. "Watch" and "see" goals are met only
/// once the run has reached its end showing the thing; "make", "get" and "sell" goals as soon
/// as it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Goal {
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
    /// A seat or a ticket that nobody can get any more.
    #[cfg_attr(not(feature = "shapes"), allow(dead_code))]
    LostSeat,
}

impl Goal {
    /// Whether `outcome` (of `schedule`, up to wherever the reader stopped) reaches it.
    pub(super) fn met(self, schedule: &Schedule, outcome: &Outcome) -> bool {
        let entries = &outcome.entries;
        let at_end = entries.len() >= schedule.full_multiset().len();
        if !matches!(self, Goal::DoubleBooking | Goal::LostSeat) {
            // Only the seats' built-ins have the other goals: chapter 6's bundle leaves them out.
            seats_shown_from_here();
        }
        match self {
            Goal::DoubleBooking => outcome.verdict.double_booked,
            Goal::LostSeat => outcome.verdict.lost_seat,
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
                entries
                    .iter()
                    .any(|e| error_code(e).is_some_and(SqlState::is_busy))
                    && entries.iter().all(|e| {
                        e.trace.waited_for.is_empty()
                            && !error_code(e).is_some_and(SqlState::is_deadlock)
                    })
            }
            Goal::SecondTicketRefused => entries.iter().any(|e| {
                matches!(e.op, Op::Book { .. }) && error_code(e).is_some_and(SqlState::is_duplicate)
            }),
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

fn answered(e: &Entry, answer: Answer) -> bool {
    e.trace.result == Some(StepResult::Answer { answer })
}

fn error_code(e: &Entry) -> Option<&SqlState> {
    e.trace.result.as_ref().and_then(StepResult::code)
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
