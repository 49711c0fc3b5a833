//! The lines of an operation that takes seats or answers for them: a write, claim or ticket
//! insert, a hold, and the payment webhook's confirm, each saying what the buyer was told.

use super::super::join;
use super::{answer_words, Event};
use crate::outcome::{Answer, StepResult};
use crate::schedule::{Op, SeatStatus};

impl Event<'_> {
    /// A write, claim or ticket insert: it took the seats, took some, or was skipped.
    pub(super) fn take(&self, result: &StepResult) -> String {
        let (who, op) = (self.who(), &self.entry().op);
        let seats = join(op.seats());
        let rows = match result {
            StepResult::Ok { rows } => *rows,
            _ => None,
        };
        let all = rows == Some(op.seats().len() as u64);
        if let Some(c) = self.counter() {
            let each = |f: &dyn Fn(&str) -> String| {
                join(&op.seats().iter().map(|id| f(id)).collect::<Vec<_>>())
            };
            match (op, result) {
                (_, StepResult::Skipped) => {
                    let first = op.seats().first().map_or("", String::as_str);
                    return format!(
                        "{who} did not send the {} and was {}",
                        op.name(),
                        c.told_no(first)
                    );
                }
                (Op::Write { .. } | Op::Claim { .. }, _) if all => {
                    return self.with_told(format!("{who} {}", each(&|id| c.took(id))), true)
                }
                (Op::Claim { .. }, _) if rows == Some(0) => {
                    return format!(
                        "{who}'s bounded update found {} and updated no rows",
                        each(&|id| c.short(id))
                    )
                }
                _ => {}
            }
        }
        match (op, result) {
            (_, StepResult::Skipped) => format!(
                "{who} skipped the {} and was told {seats} {} sold out",
                if matches!(op, Op::Book { .. }) {
                    "ticket"
                } else {
                    "write"
                },
                if op.seats().len() > 1 { "are" } else { "is" }
            ),
            (Op::Write { status, .. }, _) if all => {
                let verb = if *status == SeatStatus::Booked {
                    "booked"
                } else {
                    "held"
                };
                self.with_told(format!("{who} {verb} {seats}"), true)
            }
            (Op::Claim { .. }, _) if all => self.with_told(format!("{who} claimed {seats}"), true),
            (Op::Claim { .. }, _) if rows == Some(0) => {
                format!("{who}'s claim found {seats} taken and updated no rows")
            }
            (Op::Book { .. }, _) if all => {
                self.with_told(format!("{who} inserted the ticket for {seats}"), true)
            }
            _ => format!(
                "{who}'s {} changed {} of {} rows",
                op.name(),
                rows.unwrap_or(0),
                op.seats().len()
            ),
        }
    }

    /// The payment webhook's answer.
    pub(super) fn confirm(&self, answer: Answer) -> String {
        let who = self.who();
        match answer {
            Answer::Issued => {
                let actor = &self.entry().trace.actor;
                let tickets: Vec<&str> = self
                    .tables_after()
                    .bookings
                    .iter()
                    .filter(|b| &b.holder == actor)
                    .map(|b| b.seat.as_str())
                    .collect();
                let too = if self.someone_else_had(&self.got()) {
                    " too"
                } else {
                    ""
                };
                match tickets.as_slice() {
                    [] => format!("{who}'s payment was confirmed"),
                    _ => format!(
                        "{who}'s payment was confirmed: a ticket for {}{too}",
                        join(&tickets)
                    ),
                }
            }
            Answer::Duplicate => format!("{who}'s second webhook got the same ticket"),
            Answer::RefundDue => format!("{who}'s payment came too late: a refund is owed"),
            other => format!("{who}'s confirmation answered: {}", answer_words(other)),
        }
    }

    pub(super) fn hold(&self, answer: Answer, seats: &str) -> String {
        let who = self.who();
        match answer {
            Answer::Held if self.got().is_empty() => {
                format!("{who}'s retry got the same hold back")
            }
            Answer::Held => {
                let actor = &self.entry().trace.actor;
                let until = self
                    .tables_after()
                    .seats
                    .iter()
                    .filter(|r| r.holder.as_ref() == Some(actor))
                    .find_map(|r| r.until);
                let base = match until {
                    Some(u) => format!("{who} held {seats} until {}", self.unit().at(u)),
                    None => format!("{who} held {seats}"),
                };
                if self.someone_else_had(&self.got()) {
                    format!("{base}, though someone else holds it too")
                } else {
                    base
                }
            }
            Answer::Busy => {
                format!("{who}'s hold found {seats} locked right now: busy, pick again")
            }
            Answer::Unavailable => {
                let actor = &self.entry().trace.actor;
                let own = self.tables_before().seats.iter().any(|r| {
                    self.entry().op.seats().contains(&r.id)
                        && r.status == SeatStatus::Held
                        && r.holder.as_ref() == Some(actor)
                });
                if own {
                    format!("{who}'s new hold found {seats} still held by {who}'s earlier hold: refused")
                } else {
                    format!("{who}'s hold found {seats} taken: refused")
                }
            }
            Answer::Expired => format!("{who}'s retry found the hold gone: it had run out"),
            other => format!("{who}'s hold answered: {}", answer_words(other)),
        }
    }
}
