//! What one buyer's application knows at a step, read from its own answers only: how it got
//! each seat it was told is its own (a booking, or a hold and its deadline), the last thing it
//! was told that matters (a refusal and why, a payment, a release), and what its open
//! transaction has done so far. The phone renders this; the model's `told` says which seats.

use std::collections::BTreeMap;

use super::entry_state;
use super::refusal::Refusal;
use super::EntryState;
use crate::outcome::{Answer, Outcome, StepResult, Tables};
use crate::schedule::{Condition, Op, Schedule, SeatStatus};

/// How the application got a seat it was told is its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Got {
    /// Booked: a ticket, or a row written BOOKED.
    Booked,
    /// Held, until this minute on the virtual clock when it is known.
    Held(Option<i64>),
}

/// The last thing the application told its user that is not "this seat is yours".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Said {
    /// A read or lock: the seats that looked free and those that looked taken.
    Looked {
        free: Vec<String>,
        taken: Vec<String>,
    },
    Refused(Refusal),
    /// It began a transaction, or took seats inside one that has not committed yet.
    Working(Vec<String>),
    Paid,
    PaymentDeclined,
    /// The confirm came too late: a refund is owed.
    RefundDue,
    Released,
    NothingToRelease,
}

/// One buyer's application at a step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct App {
    /// How it got each seat it was ever told is its own (the model's `told` says which still
    /// count).
    pub got: BTreeMap<String, Got>,
    pub said: Option<Said>,
    /// It paid for its current hold.
    pub paid: bool,
    /// It skipped a payment or confirm because it held no seat.
    pub skipped_for_no_seat: bool,
    /// Its last operation was sent and waits for these actors.
    pub waiting: Option<Vec<String>>,
}

/// Replays `actor`'s own answers among the first `step` entries.
pub fn app_at(schedule: &Schedule, outcome: &Outcome, actor: &str, step: usize) -> App {
    let step = step.min(outcome.entries.len());
    let mut app = App::default();
    for row in &outcome.initial.seats {
        if row.holder.as_deref() == Some(actor) {
            let got = match row.status {
                SeatStatus::Booked => Got::Booked,
                _ => Got::Held(row.until),
            };
            app.got.insert(row.id.clone(), got);
        }
    }
    let Some(a) = schedule.actor_index(actor) else {
        return app;
    };
    let mut tx: Option<Tx> = None;
    for (j, e) in outcome.entries[..step].iter().enumerate() {
        if e.trace.actor != actor {
            continue;
        }
        if let EntryState::Waiting(on) = entry_state(e, j, step) {
            app.waiting = Some(on);
            break;
        }
        let Some(result) = e.trace.result.as_ref() else {
            continue;
        };
        let after = &outcome.entries[e.trace.completed_after.unwrap_or(j)]
            .trace
            .tables;
        let condition = schedule.actors()[a].condition(e.trace.op_index);
        let hold_minutes = schedule.scenario().hold_minutes;
        app.apply(
            &mut tx,
            &e.op,
            result,
            condition,
            &e.trace.seen,
            after,
            actor,
            hold_minutes,
        );
    }
    app
}

/// An open transaction: the seats it took (told at commit), and the error that failed it.
#[derive(Default)]
struct Tx {
    took: Vec<(String, Got)>,
    failed: Option<Refusal>,
}

impl App {
    #[allow(clippy::too_many_arguments)]
    fn apply(
        &mut self,
        tx: &mut Option<Tx>,
        op: &Op,
        result: &StepResult,
        condition: Condition,
        seen: &[crate::outcome::SeenRow],
        after: &Tables,
        actor: &str,
        hold_minutes: i64,
    ) {
        let seats = op.seats().to_vec();
        let held = |seats: &[String]| -> Vec<(String, Got)> {
            seats
                .iter()
                .map(|s| {
                    let until = after
                        .seats
                        .iter()
                        .find(|r| &r.id == s && r.holder.as_deref() == Some(actor))
                        .and_then(|r| r.until);
                    (s.clone(), Got::Held(until))
                })
                .collect()
        };
        let booked = |seats: &[String]| seats.iter().map(|s| (s.clone(), Got::Booked)).collect();
        let took: Option<Vec<(String, Got)>> = match (op, result) {
            (_, StepResult::Skipped) => {
                match (op, condition) {
                    (_, Condition::Failed) => {}
                    (Op::Pay { .. } | Op::Confirm { .. }, _) | (_, Condition::Held) => {
                        self.skipped_for_no_seat = true;
                    }
                    _ => self.said = Some(Said::Refused(Refusal::RemembersTaken(seats))),
                }
                return;
            }
            (_, StepResult::Error { code, .. }) => {
                let Some(refusal) = Refusal::of_error(code, &seats) else {
                    return;
                };
                let reason = match tx {
                    Some(t) => t.failed.get_or_insert(refusal).clone(),
                    None => refusal,
                };
                self.said = Some(Said::Refused(reason));
                return;
            }
            (Op::Begin { .. }, _) => {
                *tx = Some(Tx::default());
                self.said = Some(Said::Working(Vec::new()));
                return;
            }
            (Op::Commit, StepResult::Ok { .. }) => {
                let t = tx.take().unwrap_or_default();
                for (seat, got) in t.took {
                    // A hold written inside the transaction shows its deadline once committed.
                    let got = match got {
                        Got::Held(None) => Got::Held(
                            after
                                .seats
                                .iter()
                                .find(|r| r.id == seat && r.holder.as_deref() == Some(actor))
                                .and_then(|r| r.until),
                        ),
                        other => other,
                    };
                    self.got.insert(seat, got);
                }
                if matches!(self.said, Some(Said::Working(_))) {
                    self.said = None;
                }
                return;
            }
            (Op::Commit | Op::Rollback, _) => {
                if let Some(refusal) = tx.take().and_then(|t| t.failed) {
                    self.said = Some(Said::Refused(refusal));
                } else if matches!(self.said, Some(Said::Working(_))) {
                    self.said = None;
                }
                return;
            }
            (Op::Read { .. } | Op::Lock { .. }, _) => {
                let free: Vec<String> = seen
                    .iter()
                    .filter(|r| r.available)
                    .map(|r| r.seat.clone())
                    .collect();
                let taken = seats
                    .iter()
                    .filter(|s| !free.contains(s))
                    .cloned()
                    .collect();
                self.said = Some(Said::Looked { free, taken });
                None
            }
            (Op::Claim { .. }, StepResult::Ok { rows: Some(n) }) if *n as usize == seats.len() => {
                Some(held(&seats))
            }
            (Op::Write { status, .. }, StepResult::Ok { rows: Some(n) })
                if *n as usize == seats.len() =>
            {
                Some(if *status == SeatStatus::Booked {
                    booked(&seats)
                } else {
                    held(&seats)
                })
            }
            (Op::Book { .. }, StepResult::Ok { rows: Some(n) }) if *n as usize == seats.len() => {
                Some(booked(&seats))
            }
            (Op::Claim { .. } | Op::Write { .. } | Op::Book { .. }, _) => {
                self.said = Some(Said::Refused(Refusal::SoldOut(seats)));
                None
            }
            (Op::Hold { .. }, StepResult::Answer { answer }) => {
                match Refusal::of_hold(*answer, &seats) {
                    None => Some(held(&seats)),
                    Some(refusal) => {
                        self.said = Some(Said::Refused(refusal));
                        None
                    }
                }
            }
            (Op::RedisHold { .. }, StepResult::Answer { answer }) => {
                if *answer == Answer::Held {
                    let until = after.clock + hold_minutes;
                    Some(
                        seats
                            .iter()
                            .map(|s| (s.clone(), Got::Held(Some(until))))
                            .collect(),
                    )
                } else {
                    self.said = Some(Said::Refused(Refusal::SoldOut(seats)));
                    None
                }
            }
            (Op::Confirm { .. }, StepResult::Answer { answer }) => match answer {
                Answer::Issued | Answer::Duplicate => {
                    let mine: Vec<String> = after
                        .bookings
                        .iter()
                        .filter(|b| b.holder == actor)
                        .map(|b| b.seat.clone())
                        .collect();
                    Some(booked(&mine))
                }
                _ => {
                    self.said = Some(Said::RefundDue);
                    None
                }
            },
            (Op::Pay { outcome }, _) => {
                self.paid = *outcome != crate::schedule::PayOutcome::Declined;
                self.said = Some(if self.paid {
                    Said::Paid
                } else {
                    Said::PaymentDeclined
                });
                None
            }
            (Op::Release | Op::RedisRelease, StepResult::Answer { answer }) => {
                self.paid = false;
                self.said = Some(if *answer == Answer::Released {
                    Said::Released
                } else {
                    Said::NothingToRelease
                });
                None
            }
            _ => None,
        };
        let Some(took) = took else { return };
        match tx {
            Some(t) => {
                let seats = took.iter().map(|(s, _)| s.clone()).collect();
                t.took.extend(took);
                self.said = Some(Said::Working(seats));
            }
            None => {
                if !matches!(op, Op::Confirm { .. }) {
                    self.paid = false;
                }
                self.got.extend(took);
                self.said = None;
            }
        }
    }
}
