//! `confirm_hold` on InnoDB, as the migration's procedure runs it (`call confirm_hold(…)`, a
//! transaction of its own at the session's REPEATABLE READ; on any error its handler rolls the
//! whole transaction back and passes the error on):
//!
//! 1. a consistent read of the show's rows whose hold is this one (no lock; it makes the read
//!    view);
//! 2. each of those seats in seat order `for update` by primary key: it waits for the row lock,
//!    then reads the NEWEST committed row, and counts it valid if it is still this hold's, HELD,
//!    and held until at least the clock the call was sent with;
//! 3. `select max(outcome) from payments where hold_id = ? lock in share mode`: an S lock on the
//!    payment's record, or, when there is none, an S lock on the gap before the next record
//!    (the supremum when none follows);
//! 4. a decided payment answers 'duplicate' ('issued') or 'refund_due'; every seat valid: per
//!    seat `update … set status = 'BOOKED'` and the ticket's insert (`unique`: the duplicate
//!    check may wait, or fail with 1062), then the payment 'issued'; otherwise the payment
//!    'refund_due' and its refund_outbox row. A payment's insert asks for an insert intention
//!    on the gap before the next payment, which waits for other confirms' S gap locks there.

use crate::outcome::{Answer, StepResult};
use crate::schedule::SeatStatus;

use super::super::mvcc::{Row, SeatVal, Table};
use super::super::names::seats_of;
use super::super::ops::Poll;
use super::super::stmt::{Confirm, Kind, Running, Visit};
use super::super::Engine;
use super::lock::{Mode, Rec, Span};
use super::{IS_PAY, IX_PAY, IX_REFUND, IX_SEATS};

/// How far the procedure got.
const SEATS: u8 = 0;
const DECIDE: u8 = 1;
const TICKETS: u8 = 2;
const PAYMENT: u8 = 3;

fn answer(answer: Answer) -> Poll {
    Poll::Done(StepResult::Answer { answer })
}

impl Engine<'_> {
    /// The procedure's first statement, as it is sent: the seats whose hold is this one, by
    /// the read view it makes.
    pub(super) fn inno_confirm_start(&mut self, r: &mut Running) {
        let Kind::Confirm(c) = &mut r.kind else {
            return;
        };
        let view = self.db.snapshot();
        self.db.txs[r.tx as usize].snap = Some(view);
        r.snap = view;
        c.seats = (0..self.names.seats.len())
            .filter(|&s| self.db.val(self.db.visible(s, view, r.tx)).hold == Some(c.hold))
            .fold(0, |m, s| m | 1 << s);
        (r.todo, r.want) = (c.seats, c.seats);
    }

    /// Runs `confirm_hold` on from where it stopped.
    pub(super) fn inno_confirm(&mut self, actor: usize, r: &mut Running) -> Poll {
        let Kind::Confirm(mut c) = r.kind else {
            unreachable!("a confirm")
        };
        let now = c.called_at.expect("the clock is the call's parameter");
        if c.stage == SEATS {
            self.inno.table_lock(r.tx, IX_SEATS);
            while let Some(seat) = seats_of(r.todo).next() {
                let v = match self.inno_visit(actor, r, seat, Mode::X) {
                    Visit::Wait => return Poll::Wait,
                    Visit::Fail(e) => return Poll::Done(e),
                    Visit::Done(v) => v.expect("a locked row"),
                };
                let val = self.db.val(v);
                if val.hold == Some(c.hold)
                    && val.status == SeatStatus::Held
                    && val.until.is_some_and(|u| u >= now)
                {
                    c.valid |= 1 << seat;
                }
                r.todo &= !(1 << seat);
                r.kind = Kind::Confirm(c);
            }
            c.stage = DECIDE;
            r.kind = Kind::Confirm(c);
        }
        if c.stage == DECIDE {
            if r.pending.is_none() && self.meets_a_fellow(actor, c.hold) {
                // Set free by one commit or rollback, InnoDB runs them at once: each may take
                // its shared gap lock before the other inserts, and then both inserts wait for
                // each other's gap lock (a deadlock, either victim), or one is done first. Seen
                // on MariaDB 10.11 both ways about equally often.
                self.race();
            }
            self.inno.table_lock(r.tx, IS_PAY);
            let (rec, span) = match self.payment_of(c.hold) {
                Some(_) => (Rec::Payment(c.hold), Span::Record),
                None => (self.next_payment(c.hold), Span::Gap),
            };
            if r.pending.take().is_none() && !self.inno.locks.holds(r.tx, rec, Mode::S, span) {
                if self.inno.locks.conflict(r.tx, rec, Mode::S, span).is_some() {
                    r.pending = Some((0, 0, false));
                    return self
                        .inno_wait(actor, r.tx, rec, Mode::S, span)
                        .map_or(Poll::Wait, Poll::Done);
                }
                self.inno.locks.grant(r.tx, actor, rec, Mode::S, span);
            }
            if let Some(p) = self.payment_of(c.hold) {
                return answer(if p.mask == 1 {
                    Answer::Duplicate
                } else {
                    Answer::RefundDue
                });
            }
            c.stage = if c.seats != 0 && c.valid == c.seats {
                TICKETS
            } else {
                PAYMENT
            };
            // The seats still to book, and none of their tickets begun.
            (r.want, r.todo) = (c.seats, 0);
            r.kind = Kind::Confirm(c);
        }
        if c.stage == TICKETS {
            loop {
                if r.todo == 0 {
                    let Some(seat) = seats_of(r.want).next() else {
                        break;
                    };
                    self.book_seat(actor, r, seat);
                    r.want &= !(1 << seat);
                    r.todo = 1 << seat;
                }
                match self.inno_insert(actor, r, c.hold, c.holder, false) {
                    Poll::Wait => return Poll::Wait,
                    Poll::Done(StepResult::Ok { .. }) => {}
                    Poll::Done(e) => return Poll::Done(e),
                }
            }
            c.stage = PAYMENT;
            r.kind = Kind::Confirm(c);
        }
        self.insert_payment(actor, r, c)
    }

    /// `update show_seats set status = 'BOOKED'` of a seat the call has locked.
    fn book_seat(&mut self, actor: usize, r: &mut Running, seat: usize) {
        let old = self.db.val(self.db.newest[seat]);
        let new = SeatVal {
            status: SeatStatus::Booked,
            ..old
        };
        if self.resized(old, new) {
            self.inno_moves(actor, seat);
        }
        self.db.update(seat, r.tx, new);
        self.inno.add_undo(r.tx);
        self.inno.stmt[actor].wrote |= 1 << seat;
    }

    /// The payment's insert ('issued' when the tickets are in, else 'refund_due' and its
    /// refund_outbox row), once no other transaction's gap lock is in the way.
    fn insert_payment(&mut self, actor: usize, r: &mut Running, c: Confirm) -> Poll {
        self.inno.table_lock(r.tx, IX_PAY);
        let next = self.next_payment(c.hold);
        let granted = r.pending.take().is_some();
        if !granted
            && self
                .inno
                .locks
                .conflict(r.tx, next, Mode::X, Span::Insert)
                .is_some()
        {
            r.pending = Some((0, 0, true));
            return self
                .inno_wait(actor, r.tx, next, Mode::X, Span::Insert)
                .map_or(Poll::Wait, Poll::Done);
        }
        self.inno.locks.inherit_gaps(next, Rec::Payment(c.hold));
        let issued = c.valid == c.seats && c.seats != 0;
        let payment = Row {
            table: Table::Payment,
            xmin: r.tx,
            seat: 0,
            holder: c.holder,
            hold: c.hold,
            mask: issued as u64,
        };
        self.db.insert(payment);
        self.inno.add_undo(r.tx);
        if issued {
            return answer(Answer::Issued);
        }
        self.inno.table_lock(r.tx, IX_REFUND);
        self.db.insert(Row {
            table: Table::Refund,
            ..payment
        });
        self.inno.add_undo(r.tx);
        answer(Answer::RefundDue)
    }

    /// Whether another statement set free in this entry, with `actor`'s, has put a payment in
    /// the gap of `payments` where `hold`'s goes (no payment lies between their keys).
    fn meets_a_fellow(&self, actor: usize, hold: u16) -> bool {
        let resumed = self.inno.resumed;
        if resumed & (1 << actor) == 0 {
            return false;
        }
        let name = |h: u16| self.names.holds[h as usize].as_bytes();
        let pays: Vec<&Row> = self
            .db
            .rows
            .iter()
            .filter(|p| p.table == Table::Payment)
            .collect();
        pays.iter().any(|p| {
            let other = self.db.txs[p.xmin as usize].actor as usize;
            let (lo, hi) = if name(p.hold) < name(hold) {
                (name(p.hold), name(hold))
            } else {
                (name(hold), name(p.hold))
            };
            other != actor
                && resumed & (1 << other) != 0
                && !pays.iter().any(|q| name(q.hold) > lo && name(q.hold) < hi)
        })
    }

    /// The payment row of `hold`, committed or not.
    fn payment_of(&self, hold: u16) -> Option<&Row> {
        self.db
            .rows
            .iter()
            .find(|p| p.table == Table::Payment && p.hold == hold)
    }

    /// The record after `hold`'s key in payments' primary key (hold ids compare as bytes): the
    /// next payment, committed or not, or the index's end.
    fn next_payment(&self, hold: u16) -> Rec {
        let name = |h: u16| self.names.holds[h as usize].as_bytes();
        self.db
            .rows
            .iter()
            .filter(|p| p.table == Table::Payment && name(p.hold) > name(hold))
            .min_by(|a, b| name(a.hold).cmp(name(b.hold)))
            .map_or(Rec::PaymentEnd, |p| Rec::Payment(p.hold))
    }
}
