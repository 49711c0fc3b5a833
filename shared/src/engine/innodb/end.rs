//! How statements and transactions end on InnoDB. A deadlock rolls the victim's whole
//! transaction back (1213), and its connection is then in autocommit until the next `begin`;
//! every other error (a duplicate 1062, NOWAIT's 1205) undoes its statement alone: the
//! transaction stays open with its earlier writes and every lock it took, the failed
//! statement's included (innodb_rollback_on_timeout is OFF), and a later COMMIT commits them.
//! An autocommit statement commits, or rolls back, as it ends.

use crate::outcome::StepResult;

use super::super::mvcc::{Table, TxId};
use super::super::names::seats_of;
use super::super::stmt::{error, Running};
use super::super::trace::Events;
use super::super::Engine;

pub(super) const DEADLOCK: &str =
    "Deadlock found when trying to get lock; try restarting transaction";

/// The victim's error.
pub(super) fn deadlock() -> StepResult {
    error(crate::sqlstate::SqlState::LockDeadlock, DEADLOCK)
}

impl Engine<'_> {
    /// A statement finishes: the client hears the answer; an error undoes the statement, or
    /// (a deadlock) the transaction; an autocommit statement commits or rolls back.
    pub(super) fn inno_complete(
        &mut self,
        actor: usize,
        r: Running,
        result: StepResult,
        ev: &mut Events,
    ) {
        self.inno.wait_trx[actor] = None;
        let seen = if result.is_error() {
            Vec::new()
        } else {
            self.seen(&r.rows)
        };
        self.clients
            .answered(self.schedule, actor, r.op_index, &result, &seen);
        let deadlock = matches!(&result, StepResult::Error { code, .. } if code.is_deadlock());
        if deadlock {
            ev.deadlock(actor);
            if self.open[actor] == Some(r.tx) {
                self.open[actor] = None;
            }
            if self.db.is_active(r.tx) {
                self.inno_end_tx(r.tx, false);
            }
        } else if result.is_error() {
            self.undo_statement(actor, r.tx);
            if r.implicit {
                self.inno_end_tx(r.tx, false);
            }
        } else if r.implicit {
            self.inno_end_tx(r.tx, true);
        }
        ev.done(actor, (r.entry, r.op_index), result, seen, r.facts);
    }

    /// Ends a transaction: its rows become visible or are undone (a ticket it inserted leaves
    /// its index, handing the locks on it to the gap), and its locks go, granting the waits
    /// they held up.
    pub(super) fn inno_end_tx(&mut self, tx: TxId, commit: bool) {
        if commit {
            self.db.commit(tx);
        } else {
            let tickets: Vec<u8> = self
                .db
                .rows
                .iter()
                .filter(|r| r.table == Table::Booking && r.xmin == tx)
                .map(|r| r.seat)
                .collect();
            // The undo log is read newest first (trx_roll_pop_top_rec): the last ticket inserted
            // leaves first, so the locks on an earlier one pass to a record still there.
            for seat in tickets.into_iter().rev() {
                self.remove_ticket(tx, seat as usize);
            }
            self.remove_accounts(tx);
            for seat in 0..self.db.newest.len() {
                // Each undo record rewrites the row, the newest first.
                while self.db.versions[self.db.newest[seat] as usize].xmin == tx {
                    self.undo_row(tx, seat);
                }
            }
            self.db.abort(tx);
        }
        // Every lock struct it has leaves its page, the empty ones its waits left behind when
        // their row moved included: each makes InnoDB look at that page's waiters again.
        let pages = self.inno.locks.release(tx) | self.inno.moved_pages(tx);
        self.inno_regrant(pages);
        // lock_release ends with the deadlock checks its waits named.
        self.inno_deadlock_check();
    }

    /// Undoes the statement in flight of `actor` alone (a statement rollback): its row versions
    /// and tickets go, its locks stay.
    fn undo_statement(&mut self, actor: usize, tx: TxId) {
        let undo = self.inno.stmt[actor];
        for seat in seats_of(undo.wrote) {
            self.undo_row(tx, seat);
        }
        // Its tickets were inserted in seat order, and are undone the last first.
        let inserted: Vec<usize> = seats_of(undo.inserted).collect();
        for seat in inserted.into_iter().rev() {
            self.remove_ticket(tx, seat);
        }
        self.inno.grow(tx);
        self.inno.undo[tx as usize] = undo.undo_before;
        self.inno_regrant(0);
    }

    /// Undoes `tx`'s uncommitted version of `seat`, if the newest is one: the row is rewritten
    /// as it was, which moves the locks on it if its size changes back.
    fn undo_row(&mut self, tx: TxId, seat: usize) {
        let v = self.db.newest[seat];
        let ver = self.db.versions[v as usize];
        if ver.xmin != tx {
            return;
        }
        let prev = ver.prev.expect("a version below");
        if self.resized(ver.val, self.db.val(prev)) {
            self.inno.relocate(seat as u8);
        }
        self.db.newest[seat] = prev;
    }
}
