//! `hold_seats` on InnoDB, as the migration's procedure runs it (`call hold_seats(…)`, in a
//! transaction of its own at the session's REPEATABLE READ): a retry of a known attempt only
//! reports on it (consistent reads); otherwise it locks the seats one by one in seat order
//! without waiting (the procedure sets innodb_lock_wait_timeout to 0, and a handler turns the
//! 1205 into 'busy'), checks them on their newest rows with the clock it was called with, and
//! holds them all or none. The locks it took before a busy seat stay until its transaction
//! ends, which is the end of the call: nobody can meet them. It never waits, so it ends within
//! its entry.
//! `confirm_hold` is `confirm`'s.

use crate::outcome::{Answer, StepResult};
use crate::schedule::{Isolation, SeatStatus};

use super::super::mvcc::{Row, SeatVal, Table};
use super::super::names::seats_of;
use super::super::ops::Cx;
use super::super::Engine;
use super::lock::{Mode, Rec, Span};
use super::IX_SEATS;

impl Engine<'_> {
    /// `call hold_seats(…)` by `actor` for its operation `op_index`.
    pub(super) fn inno_hold(&mut self, actor: usize, op_index: usize, cx: &Cx) -> StepResult {
        let seats = self.names.op_seats[actor][op_index];
        let tx = self.db.begin(actor, Isolation::RepeatableRead);
        let (h, now) = (cx.new_hold, cx.clock);
        let answer = match self.known_attempt(h, self.db.snapshot(), tx, now) {
            Some(answer) => answer,
            None => self.hold_new(actor, tx, seats, (h, now, cx.minutes)),
        };
        self.inno_end_tx(tx, true);
        StepResult::Answer { answer }
    }

    /// The body of a new attempt in the call's transaction `tx`.
    fn hold_new(
        &mut self,
        actor: usize,
        tx: super::super::mvcc::TxId,
        seats: u64,
        (h, now, minutes): (u16, i64, i64),
    ) -> Answer {
        self.inno.table_lock(tx, IX_SEATS);
        for s in seats_of(seats) {
            let rec = Rec::Seat(s as u8);
            if self
                .inno
                .locks
                .conflict(tx, rec, Mode::X, Span::Record)
                .is_some()
            {
                return Answer::Busy;
            }
            self.inno.locks.grant(tx, actor, rec, Mode::X, Span::Record);
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
            self.inno.add_undo(tx);
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
}
