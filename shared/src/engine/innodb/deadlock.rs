//! Waiting, and InnoDB's deadlock detection (innodb_deadlock_detect=ON, MariaDB 10.6+'s
//! `Deadlock` in lock0lock.cc). Each waiting transaction names ONE transaction it waits for
//! (`wait_trx`): the owner of the first conflicting lock in the record's queue when it began to
//! wait, and, when locks go and it must still wait, of the first one still ahead of it. A new
//! wait is checked at once by following those names (Brent's cycle detection, `find_cycle`);
//! after locks went, a waiter that now names a transaction that waits itself is checked again.
//!
//! The victim (`Deadlock::report`) is the lightest transaction on the cycle by TRX_WEIGHT, its
//! undo records plus its lock structs (table locks included), the first such one met walking the
//! cycle; but the transaction being checked is preferred on a tie. So of two alike, the one whose
//! wait closed the cycle is rolled back; one that has changed rows is spared (checked on
//! MariaDB 10.11: a locker is rolled back rather than an updater, whoever closed the cycle).
//! Its whole transaction is rolled back with 1213, at once, not after a timeout.

use crate::outcome::StepResult;

use super::super::mvcc::TxId;
use super::super::trace::Events;
use super::super::Engine;
use super::end::deadlock;
use super::lock::{Mode, Rec, Span};

impl Engine<'_> {
    /// `actor`'s statement (transaction `tx`) waits for a lock on `rec`: the lock is queued and
    /// the wait checked for a deadlock at once. The error when `tx` itself is the victim.
    pub(super) fn inno_wait(
        &mut self,
        actor: usize,
        tx: TxId,
        rec: Rec,
        mode: Mode,
        span: Span,
    ) -> Option<StepResult> {
        let first = self
            .inno
            .locks
            .conflict(tx, rec, mode, span)
            .map(|l| l.tx)
            .expect("a wait has a conflicting lock");
        let in_the_way = self
            .inno
            .locks
            .list
            .iter()
            .filter(|l| l.tx != tx && l.rec == rec && super::lock::has_to_wait(rec, mode, span, l))
            .fold(0u32, |m, l| m | 1 << l.actor);
        if self.inno.resumed & (1 << actor) != 0 && self.inno.resumed & in_the_way != 0 {
            // Two statements one commit or rollback set free meet on this record: InnoDB runs
            // them at once, and which gets there first is the machine's choice.
            self.race();
        }
        self.inno.locks.enqueue(tx, actor, rec, mode, span);
        self.inno.wait_trx[actor] = Some(first);
        match self.victim(tx) {
            Some(v) if v == tx => Some(deadlock()),
            Some(v) => {
                self.inno
                    .victims
                    .push(self.db.txs[v as usize].actor as usize);
                None
            }
            None => None,
        }
    }

    /// The transaction a waiting one names, if it waits.
    fn wait_trx(&self, tx: TxId) -> Option<TxId> {
        let actor = self.db.txs[tx as usize].actor as usize;
        // An actor has one transaction at a time; its wait ends (and is forgotten) when the lock
        // is granted or the statement ends.
        self.inno.wait_trx[actor].filter(|_| self.db.is_active(tx))
    }

    /// A transaction of a cycle reached from `trx` along `wait_trx` (Brent's algorithm, as
    /// `Deadlock::find_cycle` walks it), or `None`.
    fn find_cycle(&self, trx: TxId) -> Option<TxId> {
        let (mut tortoise, mut hare) = (trx, trx);
        let (mut power, mut l) = (1u32, 1u32);
        while let Some(next) = self.wait_trx(hare) {
            hare = next;
            if tortoise == hare {
                return Some(hare);
            }
            if l == power {
                power <<= 1;
                l = 0;
                tortoise = hare;
            }
            l += 1;
        }
        None
    }

    /// The victim of a deadlock that `trx`'s check finds, if there is one.
    fn victim(&self, trx: TxId) -> Option<TxId> {
        let cycle = self.find_cycle(trx)?;
        let mut victim = None;
        let mut victim_weight = usize::MAX;
        let mut trx_on_cycle = false;
        let mut next = cycle;
        loop {
            next = self.wait_trx(next).expect("a cycle");
            let weight = self.inno.weight(next);
            if weight < victim_weight {
                victim_weight = weight;
                victim = Some(next);
            }
            trx_on_cycle |= next == trx;
            if next == cycle {
                break;
            }
        }
        if trx_on_cycle && self.inno.weight(trx) == victim_weight {
            return Some(trx);
        }
        victim
    }

    /// After an entry: resume the statements whose locks were granted, in grant order; roll back
    /// deadlock victims; check the transactions that waiters named anew; until nothing moves.
    pub(in crate::engine) fn inno_settle(&mut self, ev: &mut Events) {
        loop {
            if !self.inno.victims.is_empty() {
                let victim = self.inno.victims.remove(0);
                if let Some(r) = self.running[victim].take() {
                    self.inno.woken.retain(|&a| a != victim);
                    self.inno_complete(victim, r, deadlock(), ev);
                }
                continue;
            }
            if !self.inno.woken.is_empty() {
                let a = self.inno.woken.remove(0);
                if let Some(mut r) = self.running[a].take() {
                    r.woken_in = Some(self.log.len());
                    self.inno.resumed |= 1 << a;
                    self.inno_drive(a, r, ev);
                }
                continue;
            }
            if !self.inno.to_check.is_empty() {
                self.check_named_anew();
                continue;
            }
            break;
        }
    }

    /// Checks the waiters that named a waiting transaction anew after locks went, in actor order
    /// (InnoDB keeps them in a set ordered by their objects' addresses, which the model takes
    /// to follow the connections'): a tie between two of them on one cycle is a race.
    fn check_named_anew(&mut self) {
        let mut txs = std::mem::take(&mut self.inno.to_check);
        txs.sort_by_key(|&t| self.db.txs[t as usize].actor);
        txs.dedup();
        for &t in &txs {
            if let Some(v) = self.victim(t) {
                let others_on_cycle = txs
                    .iter()
                    .filter(|&&o| o != t && self.victim(o).is_some())
                    .count();
                if v == t && others_on_cycle > 0 {
                    self.race();
                }
                self.inno
                    .victims
                    .push(self.db.txs[v as usize].actor as usize);
                return;
            }
        }
    }
}
