//! The unique index of `booking_seats` (one ticket per show and seat): an insert whose key
//! has a committed row fails with 23505; one whose key another transaction inserted and has
//! not committed waits for that transaction, then fails (it committed) or goes on (it rolled
//! back). The same insert into a username scenario's `usernames` (the name its key), and with
//! `ignore` its `on conflict do nothing`: a committed duplicate is 0 rows, or 40001 under
//! REPEATABLE READ and SERIALIZABLE if the transaction's snapshot does not see it
//! (ExecCheckTIDVisible).

use crate::outcome::StepResult;
use crate::sqlstate::SqlState;

use super::locks::WaitOn;
use super::mvcc::{Row, Table};
use super::names::seats_of;
use super::ops::Poll;
use super::stmt::{concurrent_update, error, rw_dependencies, Fact, Running};
use super::Engine;
use crate::schedule::Isolation;

impl Engine<'_> {
    /// A SERIALIZABLE transaction's write (CheckForSerializableConflictIn): it fails if the
    /// transaction was doomed.
    fn ssi_wrote(&mut self, r: &Running) -> Result<(), super::ssi::Failure> {
        match self.db.txs[r.tx as usize].sx {
            Some(sx) => self.ssi.wrote(sx),
            None => Ok(()),
        }
    }

    /// Inserts a ticket per remaining seat: a key another transaction inserted and has not
    /// committed is waited for; a key committed (or inserted by this transaction) is 23505.
    pub(super) fn insert_tickets(
        &mut self,
        actor: usize,
        r: &mut Running,
        hold: u16,
        holder: u8,
        ignore: bool,
    ) -> Poll {
        r.woken = None;
        let k = self.log.len();
        let woken = r.woken_in == Some(k);
        while let Some(seat) = seats_of(r.todo).next() {
            r.pending = None;
            // A plain INSERT writes the heap before its unique check (heap_insert's SSI check,
            // which fails a doomed transaction); ON CONFLICT checks the key first (with a dirty
            // snapshot, no SSI check), waits there, and writes only if no key is left.
            if !ignore && self.ssi_wrote(r).is_err() {
                return Poll::Done(rw_dependencies());
            }
            self.db.assign_xid(r.tx);
            let clash = self
                .db
                .rows
                .iter()
                .find(|row| row.table == Table::Booking && row.seat as usize == seat)
                .map(|row| row.xmin);
            if let Some(xmin) = clash {
                if woken && xmin != r.tx && self.locks.ticketed_by_woken(seat, k) {
                    // Another waiter that the same commit or rollback woke got here first in
                    // the model; PostgreSQL runs the two in whichever order the machine does,
                    // and the one that inserts second waits for or fails on the first's key.
                    self.race();
                }
                if xmin != r.tx && self.db.is_active(xmin) {
                    self.locks.wait_for_tx(actor, xmin, WaitOn::Xact(xmin));
                    r.pending = Some((seat as u8, 0, false));
                    return Poll::Wait;
                }
                if ignore {
                    let snapshot_level = self.isolation(r.tx) != Isolation::ReadCommitted;
                    let snap = self.db.txs[r.tx as usize].snap.unwrap_or(r.snap);
                    if snapshot_level && !self.db.sees(xmin, snap, r.tx) {
                        return Poll::Done(concurrent_update());
                    }
                    r.todo &= !(1 << seat);
                    continue;
                }
                return Poll::Done(error(
                    SqlState::UniqueViolation,
                    if self.names.username() {
                        "duplicate key value violates unique constraint \"usernames_pkey\""
                    } else {
                        "duplicate key value violates unique constraint \"booking_seats_show_id_seat_id_key\""
                    },
                ));
            }
            if ignore && self.ssi_wrote(r).is_err() {
                return Poll::Done(rw_dependencies());
            }
            if woken && self.locks.ticketed_by_woken(seat, k) {
                // Another waiter that the same commit or rollback woke inserted this key first in
                // the model, then failed and took it back: in PostgreSQL this one may get there
                // first, and the other then waits for it instead.
                self.race();
            }
            self.db.insert(Row {
                table: Table::Booking,
                xmin: r.tx,
                seat: seat as u8,
                holder,
                hold,
                mask: 0,
            });
            if woken {
                self.locks.ticket_by_woken(seat, k);
            }
            r.count += 1;
            r.facts.push(seat as u8, Fact::Took);
            r.todo &= !(1 << seat);
        }
        Poll::Done(StepResult::Ok {
            rows: Some(r.count as u64),
        })
    }
}
