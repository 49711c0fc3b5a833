//! A booking decided after its hold's deadline: the confirm checked the deadline against a
//! clock reading taken before it waited (the transaction's or the statement's start), so a
//! hold that had run out became a ticket. The verdict names it (`Verdict::booked_late`); this
//! says when, and why, in words.

use super::{join, title};
use crate::outcome::{Answer, Outcome, StepResult};
use crate::schedule::{ClockUnit, Now, Op, SeatStatus};

/// One late booking: who, which seats, when it was decided and when the hold had run out.
pub(super) struct Late {
    actor: String,
    seats: Vec<String>,
    decided: i64,
    deadline: i64,
    now: Now,
    /// The unit of the schedule's clock, for the moments the lines name.
    unit: ClockUnit,
}

impl Late {
    fn why(&self) -> &'static str {
        match self.now {
            Now::Statement => "the check used the time its statement began",
            // Only InnoDB books late so: the call is given the clock as it is sent.
            Now::Evaluation => "the check used the clock the call was sent with, before it waited",
            Now::Transaction => "the check used the time the transaction began",
        }
    }

    pub(super) fn headline(&self) -> String {
        format!(
            "Booked too late: {} sold to {} at {}, after the hold ran out at {} ({})",
            join(&self.seats),
            title(&self.actor),
            self.unit.at(self.decided),
            self.unit.at(self.deadline),
            self.why()
        )
    }

    pub(super) fn consequence(&self) -> String {
        format!(
            "⇒ {}'s payment was accepted at {} for a hold that ran out at {}",
            title(&self.actor),
            self.unit.at(self.decided),
            self.unit.at(self.deadline),
        )
    }
}

/// The late bookings the verdict names, with their moments on a clock counting in `unit`.
pub(super) fn late_bookings(unit: ClockUnit, outcome: &Outcome) -> Vec<Late> {
    let late = &outcome.verdict.booked_late;
    let entries = &outcome.entries;
    let mut out = Vec::new();
    for e in entries {
        let (
            Op::Confirm { .. },
            Some(StepResult::Answer {
                answer: Answer::Issued,
            }),
            Some(at),
        ) = (&e.op, &e.trace.result, e.trace.completed_after)
        else {
            continue;
        };
        let actor = &e.trace.actor;
        if !late.contains(actor) || at >= entries.len() {
            continue;
        }
        let before = match at.checked_sub(1) {
            Some(p) => &entries[p].trace.tables,
            None => &outcome.initial,
        };
        let decided = entries[at].trace.tables.clock;
        let dead: Vec<(String, i64)> = before
            .seats
            .iter()
            .filter(|r| r.status == SeatStatus::Held && r.holder.as_ref() == Some(actor))
            .filter_map(|r| r.until.filter(|&u| u < decided).map(|u| (r.id.clone(), u)))
            .collect();
        let Some(deadline) = dead.iter().map(|(_, u)| *u).max() else {
            continue;
        };
        out.push(Late {
            actor: actor.clone(),
            seats: dead.into_iter().map(|(s, _)| s).collect(),
            decided,
            deadline,
            now: e.op.now(),
            unit,
        });
    }
    out
}
