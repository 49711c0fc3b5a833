//! The verdict of an order on indices (`CompactVerdict`), from a judge's replay and the
//! committed rows at the end, and turned into a `Verdict` with names.

use super::CompactJudge;
use crate::engine::{Committed, Names};
use crate::outcome::Verdict;
use crate::schedule::{Op, PayOutcome, Schedule, SeatStatus};

impl CompactJudge {
    /// The verdict with the committed rows at the end (`tables`).
    pub fn verdict(&self, schedule: &Schedule, tables: &Committed) -> CompactVerdict {
        let told = &self.told;
        let seated = told.iter().fold(0, |m, t| m | t);
        let scenario = schedule.scenario();
        let double_booked = told.iter().enumerate().any(|(s, t)| {
            t.count_ones() as usize > scenario.capacity(s)
                || tables.bookings.iter().filter(|b| b.0 as usize == s).count() >= 2
        });
        let lost_seat = tables.seats.iter().zip(told).any(|(row, t)| {
            (row.status == SeatStatus::Booked && *t == 0)
                || (row.status == SeatStatus::Held && row.until.is_none())
        }) || (scenario.kind.is_counter()
            && self.books.iter().enumerate().any(|(i, book)| {
                let declined = book
                    .payments
                    .iter()
                    .any(|(_, o)| *o == PayOutcome::Declined);
                declined && seated & (1 << i) != 0
            }));
        let refund_due = schedule
            .actors()
            .iter()
            .zip(&self.books)
            .enumerate()
            .filter(|(i, (actor, book))| {
                let pays = actor.program.iter().any(|op| matches!(op, Op::Pay { .. }));
                let paid = if pays {
                    book.payments
                        .iter()
                        .any(|(_, o)| *o != PayOutcome::Declined)
                } else {
                    book.confirmed
                };
                paid && seated & (1 << i) == 0
            })
            .fold(0, |m, (i, _)| m | 1 << i);
        let unpaid_hold = tables
            .seats
            .iter()
            .filter(|r| r.status == SeatStatus::Held && r.until.is_some_and(|u| u >= tables.clock))
            .filter_map(|r| r.holder)
            .fold(0, |m, h| m | 1 << h)
            | self
                .keys
                .iter()
                .enumerate()
                .filter_map(|(s, key)| {
                    let (a, _, until) = (*key)?;
                    let live = until >= tables.clock && self.books[a].redis_only & (1 << s) != 0;
                    live.then_some(1u128 << a)
                })
                .fold(0, |m, a| m | a);
        let booked_late = self
            .books
            .iter()
            .enumerate()
            .filter(|(_, b)| b.booked_late)
            .fold(0, |m, (i, _)| m | 1 << i);
        CompactVerdict {
            double_booked,
            lost_seat,
            refund_due,
            unpaid_hold,
            seated,
            booked_late,
        }
    }
}

/// `Verdict` on indices (actors and holders as masks of name indices), with who ended with a
/// seat: cheap to compute and compare for every order, turned into a `Verdict` once per group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CompactVerdict {
    pub double_booked: bool,
    pub lost_seat: bool,
    pub refund_due: u128,
    pub unpaid_hold: u128,
    /// The names told they got a seat, at the end.
    pub seated: u128,
    pub booked_late: u128,
}

impl CompactVerdict {
    pub fn verdict(&self, names: &Names) -> Verdict {
        // Actors come first among the names, in the schedule's order, as `refund_due` lists
        // them; `unpaid_hold` is sorted by name.
        let named = |mask: u128| -> Vec<String> {
            (0..names.names.len())
                .filter(|&n| mask & (1 << n) != 0)
                .map(|n| names.names[n].clone())
                .collect()
        };
        let mut unpaid_hold = named(self.unpaid_hold);
        unpaid_hold.sort();
        unpaid_hold.dedup();
        Verdict {
            double_booked: self.double_booked,
            lost_seat: self.lost_seat,
            refund_due: named(self.refund_due),
            unpaid_hold,
            booked_late: named(self.booked_late),
        }
    }
}
