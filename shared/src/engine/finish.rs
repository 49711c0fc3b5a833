//! How operations end: the client hears the answer (with the rows it returned, judged by the
//! clock as it arrives); an error aborts the transaction at once, an autocommit statement
//! commits; `commit` may fail under SERIALIZABLE.

use crate::client;
use crate::outcome::{SeenRow, StepResult};

use super::mvcc::TxId;
use super::stmt::{self, Running};
use super::trace::Events;
use super::Engine;

impl Engine<'_> {
    /// `commit`: ROLLBACK for a failed transaction; under SERIALIZABLE, the pre-commit check
    /// may fail it with 40001.
    pub(super) fn commit(&mut self, actor: usize, op_index: usize, k: usize, ev: &mut Events) {
        let tx = self.open[actor]
            .take()
            .expect("the parser puts commit after begin");
        if self.clients.commit_of_failed(actor) || !self.db.is_active(tx) {
            if self.db.is_active(tx) {
                self.end_tx(tx, false);
            }
            return self.answer(actor, op_index, k, StepResult::RolledBack, ev);
        }
        if let Some(sx) = self.db.txs[tx as usize].sx {
            if self.ssi.precommit(sx).is_err() {
                self.end_tx(tx, false);
                return self.answer(actor, op_index, k, stmt::rw_dependencies(), ev);
            }
        }
        self.end_tx(tx, true);
        self.answer(actor, op_index, k, StepResult::Ok { rows: None }, ev);
    }

    /// An operation that answered at once, with no rows.
    pub(super) fn answer(
        &mut self,
        actor: usize,
        op_index: usize,
        k: usize,
        result: StepResult,
        ev: &mut Events,
    ) {
        self.clients
            .answered(self.schedule, actor, op_index, &result, &[]);
        ev.done(actor, (k, op_index), result, Vec::new(), Default::default());
    }

    /// A statement finishes: the client hears the answer (with the rows it returned, judged by
    /// the clock now), an error aborts its transaction, an autocommit statement commits.
    pub(super) fn complete(
        &mut self,
        actor: usize,
        r: Running,
        result: StepResult,
        ev: &mut Events,
    ) {
        let seen: Vec<SeenRow> = if result.is_error() {
            Vec::new()
        } else {
            self.seen(&r.rows)
        };
        self.clients
            .answered(self.schedule, actor, r.op_index, &result, &seen);
        if result.is_error() {
            if self.db.is_active(r.tx) {
                self.end_tx(r.tx, false);
            }
        } else if r.implicit {
            self.end_tx(r.tx, true);
        }
        ev.done(actor, (r.entry, r.op_index), result, seen, r.facts);
    }

    pub(super) fn seen(&self, rows: &[(u8, u16)]) -> Vec<SeenRow> {
        rows.iter()
            .map(|&(seat, v)| {
                let val = self.db.val(v);
                if self.names.username() {
                    return client::seen_taken(&self.names.seats[seat as usize]);
                }
                if let Some(take) = self.names.take() {
                    return client::seen_counter(&self.names.seats[seat as usize], val.value, take);
                }
                let holder = val.holder.map(|h| self.names.names[h as usize].clone());
                client::seen_row(
                    &self.names.seats[seat as usize],
                    val.status,
                    holder,
                    val.until,
                    self.clients.clock,
                )
            })
            .collect()
    }

    /// Ends a transaction: its versions become visible (or vanish), its row locks go.
    pub(super) fn end_tx(&mut self, tx: TxId, commit: bool) {
        if commit {
            self.db.commit(tx);
        } else {
            self.db.abort(tx);
        }
        self.locks.release(tx);
        if let Some(sx) = self.db.txs[tx as usize].sx {
            self.ssi.end(sx, commit, self.db.next_xid);
        }
    }
}
