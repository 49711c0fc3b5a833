//! The two server-side functions of the migration, step by step as their plpgsql runs, each
//! statement with its own READ COMMITTED snapshot inside the call's own transaction.

use crate::outcome::{Answer, StepResult};
use crate::schedule::SeatStatus;

use super::mvcc::{Row, SeatVal, Snap, Table, TxId};
use super::names::seats_of;
use super::ops::{Cx, Poll};
use super::stmt::{Confirm, Kind, Running, Visit};
use super::Engine;

fn answer(answer: Answer) -> StepResult {
    StepResult::Answer { answer }
}

impl Engine<'_> {
    /// `hold_seats`: a retry of a known attempt only reports on it; otherwise lock every seat
    /// NOWAIT (`busy` if one is taken, with no lock kept), check them all with the decision's
    /// clock, and hold them all or none. It never waits, so it runs to its end at once.
    pub(super) fn hold(
        &mut self,
        actor: usize,
        seats: u64,
        cx: &Cx,
        now: Option<i64>,
    ) -> StepResult {
        let tx = self.db.begin(actor, Default::default());
        let h = cx.new_hold;
        let clock = self.clients.clock;
        let result = match self.known_attempt(h, self.db.snapshot(), tx, clock) {
            Some(answer) => answer,
            None => self.take_seats(actor, tx, seats, h, (now.unwrap_or(clock), cx.minutes)),
        };
        self.end_tx(tx, true);
        answer(result)
    }

    /// A retry of the known attempt `h`, seen through `snap` in `tx`, only reports on it: `held`
    /// while every one of its seats is still its own, booked or held until `now` at least, else
    /// `expired`. `None` for an attempt never made. Both databases' `hold_seats` start so.
    pub(super) fn known_attempt(&self, h: u16, snap: Snap, tx: TxId, now: i64) -> Option<Answer> {
        let mask = self
            .db
            .rows(Table::Attempt, snap, tx)
            .find(|r| r.hold == h)
            .map(|r| r.mask)?;
        let live = seats_of(mask).filter(|&s| {
            let v = self.db.val(self.db.visible(s, snap, tx));
            let live = v.status == SeatStatus::Booked
                || (v.status == SeatStatus::Held && v.until.is_some_and(|u| u >= now));
            v.hold == Some(h) && live
        });
        Some(if live.count() == mask.count_ones() as usize {
            Answer::Held
        } else {
            Answer::Expired
        })
    }

    /// The body of a new hold attempt, in the call's transaction `tx`.
    fn take_seats(
        &mut self,
        actor: usize,
        tx: TxId,
        seats: u64,
        h: u16,
        (now, minutes): (i64, i64),
    ) -> Answer {
        for s in seats_of(seats) {
            let tid = self.db.visible(s, self.db.latest(), tx);
            if self.locks.contended(s, tid, tx, None) {
                // The exception block's subtransaction rolls back: its row locks go with it.
                self.locks.release(tx);
                return Answer::Busy;
            }
            self.locks.take(s, tx, self.log.len());
            self.db.assign_xid(tx);
        }
        let free = seats_of(seats).filter(|&s| {
            let v = self.db.val(self.db.newest[s]);
            v.status == SeatStatus::Available
                || (v.status == SeatStatus::Held && v.until.is_some_and(|u| u < now))
        });
        if free.count() < seats.count_ones() as usize {
            return Answer::Unavailable;
        }
        let val = SeatVal {
            status: SeatStatus::Held,
            holder: Some(actor as u8),
            hold: Some(h),
            until: Some(now + minutes),
            value: 0,
        };
        for s in seats_of(seats) {
            self.db.update(s, tx, val);
        }
        self.db.insert(Row {
            table: Table::Attempt,
            xmin: tx,
            seat: 0,
            holder: actor as u8,
            hold: h,
            mask: seats,
        });
        Answer::Held
    }

    /// `confirm_hold`: lock the seats whose hold is this one (FOR UPDATE, so it may wait),
    /// then decide once per payment with the decision's clock: a recorded decision answers
    /// again; an intact, unexpired hold becomes tickets (whose insert may wait, or clash with
    /// 23505); anything else owes a refund.
    pub(super) fn confirm(&mut self, actor: usize, r: &mut Running) -> Poll {
        let Kind::Confirm(c) = r.kind else {
            unreachable!("a confirm")
        };
        if c.inserting {
            return self.finish_issue(actor, r);
        }
        while let Some(seat) = seats_of(r.todo).next() {
            match self.visit(actor, r, seat) {
                Visit::Wait => return Poll::Wait,
                Visit::Fail(e) => return Poll::Done(e),
                Visit::Done(_) => r.todo &= !(1 << seat),
            }
        }
        self.decide(actor, r, c)
    }

    /// What `confirm_hold` does once it holds the seats' locks, with the decision's clock.
    fn decide(&mut self, actor: usize, r: &mut Running, c: Confirm) -> Poll {
        let now = c.called_at.unwrap_or(self.clients.clock);
        let snap = self.db.snapshot();
        let decided = self
            .db
            .rows(Table::Payment, snap, r.tx)
            .find(|p| p.hold == c.hold);
        if let Some(p) = decided {
            return Poll::Done(answer(if p.mask == 1 {
                Answer::Duplicate
            } else {
                Answer::RefundDue
            }));
        }
        let valid = seats_of(c.seats).filter(|&s| {
            let v = self.db.val(self.db.visible(s, snap, r.tx));
            v.hold == Some(c.hold)
                && v.status == SeatStatus::Held
                && v.until.is_some_and(|u| u >= now)
        });
        if c.seats != 0 && valid.count() == c.seats.count_ones() as usize {
            for s in seats_of(c.seats) {
                let old = self.db.val(self.db.newest[s]);
                self.db.update(
                    s,
                    r.tx,
                    SeatVal {
                        status: SeatStatus::Booked,
                        ..old
                    },
                );
            }
            r.kind = Kind::Confirm(Confirm {
                inserting: true,
                ..c
            });
            (r.todo, r.want, r.count) = (c.seats, c.seats, 0);
            return self.finish_issue(actor, r);
        }
        let payment = Row {
            table: Table::Payment,
            xmin: r.tx,
            seat: 0,
            holder: c.holder,
            hold: c.hold,
            mask: 0,
        };
        self.db.insert(payment);
        self.db.insert(Row {
            table: Table::Refund,
            ..payment
        });
        Poll::Done(answer(Answer::RefundDue))
    }

    /// The tickets of an issued confirm, then its payment row.
    fn finish_issue(&mut self, actor: usize, r: &mut Running) -> Poll {
        let Kind::Confirm(c) = r.kind else {
            unreachable!("a confirm")
        };
        match self.insert_tickets(actor, r, c.hold, c.holder, false) {
            Poll::Wait => Poll::Wait,
            Poll::Done(StepResult::Ok { .. }) => {
                let payment = Row {
                    table: Table::Payment,
                    xmin: r.tx,
                    seat: 0,
                    holder: c.holder,
                    hold: c.hold,
                    mask: 1,
                };
                self.db.insert(payment);
                Poll::Done(answer(Answer::Issued))
            }
            Poll::Done(e) => Poll::Done(e),
        }
    }
}
