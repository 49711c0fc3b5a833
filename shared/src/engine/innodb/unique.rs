//! The ticket insert and `booking_seats`' unique key, its clustered index, on InnoDB (each rule
//! checked on MariaDB 10.11):
//!
//! - An insert that meets its key already there asks for a shared lock on that record (the
//!   duplicate check). An uncommitted inserter's implicit lock becomes an explicit X lock first,
//!   so the check waits. Once granted, the key is there: 1062, the statement alone is undone,
//!   and the S lock stays until the transaction ends (it covers the record, not the gap: an
//!   insert of the seat before it does not wait).
//! - When the inserter rolls back, its record leaves the index, and every lock on it passes to
//!   the gap before the next record (lock_rec_inherit_to_gap: any lock under REPEATABLE READ or
//!   SERIALIZABLE, only S locks under READ COMMITTED), the waiting duplicate checks' included,
//!   which are woken and try again. Each then needs an insert intention on that gap, which
//!   conflicts with the others' S gap locks: two or more such waiters deadlock, and one inserts.
//! - An insert asks for an insert intention on the gap before the next record (the next seat's
//!   ticket, or the index's end), which waits for other transactions' gap locks there; the new
//!   record takes on the gap locks of the next one (lock_rec_inherit_to_gap_if_gap_lock).

use crate::outcome::StepResult;
use crate::sqlstate::SqlState;

use super::super::mvcc::{Row, Table, TxId};
use super::super::names::seats_of;
use super::super::ops::Poll;
use super::super::stmt::{error, Fact, Running};
use super::super::Engine;
use super::lock::{Mode, Rec, Span};
use super::IX_TICKETS;

impl Engine<'_> {
    /// Inserts a ticket per remaining seat, in seat order.
    pub(super) fn inno_insert(
        &mut self,
        actor: usize,
        r: &mut Running,
        hold: u16,
        holder: u8,
        ignore: bool,
    ) -> Poll {
        self.inno.table_lock(r.tx, IX_TICKETS);
        while let Some(seat) = seats_of(r.todo).next() {
            let intention_granted = r.pending.take().is_some_and(|p| p.2);
            let rec = Rec::Ticket(seat as u8);
            let dup = self
                .db
                .rows
                .iter()
                .find(|row| row.table == Table::Booking && row.seat as usize == seat)
                .map(|row| row.xmin);
            if !intention_granted {
                let mode = if dup.is_some() { Mode::S } else { Mode::X };
                self.inno_contend(actor, rec, mode);
            }
            if let Some(owner) = dup {
                if owner == r.tx {
                    if ignore {
                        r.todo &= !(1 << seat);
                        continue;
                    }
                    return Poll::Done(self.duplicate(seat));
                }
                if self.db.is_active(owner)
                    && !self.inno.locks.holds(owner, rec, Mode::X, Span::Record)
                {
                    // The inserter's implicit lock on its record becomes explicit.
                    let owner_actor = self.db.txs[owner as usize].actor as usize;
                    self.inno
                        .locks
                        .grant(owner, owner_actor, rec, Mode::X, Span::Record);
                }
                let granted = self.inno.locks.holds(r.tx, rec, Mode::S, Span::Record)
                    || self
                        .inno
                        .locks
                        .conflict(r.tx, rec, Mode::S, Span::Record)
                        .is_none();
                if granted {
                    if !self.inno.locks.holds(r.tx, rec, Mode::S, Span::Record) {
                        self.inno
                            .locks
                            .grant(r.tx, actor, rec, Mode::S, Span::Record);
                    }
                    if ignore {
                        // INSERT IGNORE: a warning, 0 rows; the shared lock stays.
                        r.todo &= !(1 << seat);
                        continue;
                    }
                    return Poll::Done(self.duplicate(seat));
                }
                r.pending = Some((seat as u8, 0, false));
                return self
                    .inno_wait(actor, r.tx, rec, Mode::S, Span::Record)
                    .map_or(Poll::Wait, Poll::Done);
            }
            let next = self.next_ticket(seat);
            if !intention_granted
                && self
                    .inno
                    .locks
                    .conflict(r.tx, next, Mode::X, Span::Insert)
                    .is_some()
            {
                r.pending = Some((seat as u8, 0, true));
                return self
                    .inno_wait(actor, r.tx, next, Mode::X, Span::Insert)
                    .map_or(Poll::Wait, Poll::Done);
            }
            self.inno.locks.inherit_gaps(next, rec);
            self.db.insert(Row {
                table: Table::Booking,
                xmin: r.tx,
                seat: seat as u8,
                holder,
                hold,
                mask: 0,
            });
            self.inno.add_undo(r.tx);
            self.inno.stmt[actor].inserted |= 1 << seat;
            r.count += 1;
            r.facts.push(seat as u8, Fact::Took);
            r.todo &= !(1 << seat);
        }
        Poll::Done(StepResult::Ok {
            rows: Some(r.count as u64),
        })
    }

    /// The record after `seat`'s key in `booking_seats`' index: the next seat that has a
    /// ticket, committed or not, or the index's end.
    fn next_ticket(&self, seat: usize) -> Rec {
        self.db
            .rows
            .iter()
            .filter(|r| r.table == Table::Booking && r.seat as usize > seat)
            .map(|r| r.seat)
            .min()
            .map_or(Rec::TicketEnd, Rec::Ticket)
    }

    /// `seat`'s ticket leaves the index (its insert is undone): the locks on it pass to the
    /// gap before the next record, and the waits for it end, to be tried again. The inserter's
    /// own explicit lock passes too (lock_rec_inherit_to_gap takes every lock on the record):
    /// when only its statement is undone (a 1062 of a later row), its transaction keeps a gap
    /// lock that the retried inserts wait for. The row goes at once: a ticket of `tx` undone
    /// after it hands its locks on past it (checked on MariaDB 10.11: tickets inserted for A4
    /// then A3 and rolled back pass a duplicate check's lock on A3 to the index's end).
    pub(super) fn remove_ticket(&mut self, tx: TxId, seat: usize) {
        let rec = Rec::Ticket(seat as u8);
        let heir = self.next_ticket(seat);
        let on: Vec<_> = self
            .inno
            .locks
            .list
            .iter()
            .filter(|l| l.rec == rec)
            .map(|l| (l.tx, l.actor, l.mode, l.span, l.waiting))
            .collect();
        for &(t, a, mode, span, _) in &on {
            let rc = self.isolation(t) == crate::schedule::Isolation::ReadCommitted;
            if span != Span::Insert && (!rc || mode == Mode::S) {
                self.inno.locks.grant(t, a as usize, heir, mode, Span::Gap);
            }
        }
        self.inno.locks.list.retain(|l| l.rec != rec);
        self.db
            .rows
            .retain(|r| !(r.table == Table::Booking && r.xmin == tx && r.seat as usize == seat));
        for &(_, a, _, _, waiting) in &on {
            if waiting {
                // Its wait is cancelled: it tries its insert again from the duplicate check.
                self.inno_wait_ends(a as usize);
                self.inno.woken.push(a as usize);
                if let Some(p) = self.running[a as usize]
                    .as_mut()
                    .and_then(|r| r.pending.as_mut())
                {
                    p.2 = false;
                }
            }
        }
    }

    /// MariaDB's 1062 for `seat`'s ticket.
    fn duplicate(&self, seat: usize) -> StepResult {
        if self.names.username() {
            return error(
                SqlState::DuplicateEntry,
                &format!(
                    "Duplicate entry '{}' for key 'PRIMARY'",
                    self.names.seats[seat]
                ),
            );
        }
        error(
            SqlState::DuplicateEntry,
            &format!(
                "Duplicate entry '{}-{}' for key 'booking_seats_show_id_seat_id_key'",
                self.schedule.scenario().show,
                self.names.seats[seat]
            ),
        )
    }
}
