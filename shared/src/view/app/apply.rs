//! How one answer of the buyer's own changes what its application knows: the seats it took
//! (told at once, or at its transaction's commit), a refusal and why, a payment, a release.

use super::{App, Got, Said, Tx};
use crate::outcome::{Answer, StepResult, Tables};
use crate::schedule::{Condition, Op, SeatStatus};
use crate::view::refusal::Refusal;

impl App {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn apply(
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
                self.seen = seen.to_vec();
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
