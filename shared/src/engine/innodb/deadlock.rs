//! Waiting, and InnoDB's deadlock detection (innodb_deadlock_detect=ON, MariaDB 10.6+'s
//! `Deadlock` in lock0lock.cc). Each waiting transaction names ONE transaction it waits for
//! (`wait_trx`): the owner of the first conflicting lock in the record's queue when it began to
//! wait, and, when locks go and it must still wait, of the first one still ahead of it. A new
//! wait is checked at once by following those names (Brent's cycle detection, `find_cycle`);
//! after locks went, the transactions that waiters name and that wait themselves are checked
//! (`check`).
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
        let moved = matches!(rec, Rec::Seat(s) if self.inno.resized & (1 << s) != 0);
        if self.inno.resumed & (1 << actor) != 0 && moved {
            // A statement set free with it rewrote the row elsewhere on the page in this
            // entry: had this thread come first, its wait would have gained the structs.
            self.race();
        }
        self.inno.locks.enqueue(tx, actor, rec, mode, span);
        self.inno.wait_trx[actor] = Some(first);
        // Deadlock::check_and_resolve: the victim's wait is cancelled at once; the checks that
        // this leaves wait for the next transaction to end.
        let v = self.victim(tx)?;
        self.inno_cancel(v);
        if v == tx {
            return Some(deadlock());
        }
        self.inno
            .victims
            .push(self.db.txs[v as usize].actor as usize);
        None
    }

    /// `actor`'s statement comes to `rec` for a lock in `mode` (not one the queue granted it).
    /// If the entry set it free with others and one of them took a conflicting lock on `rec` the
    /// same way in this entry, held still or let go of as its transaction ended (an autocommit
    /// statement), which of the two got there first was the machine's choice: a race. Locks
    /// the queue granted are no race: they were the waiters' before any thread ran.
    pub(super) fn inno_contend(&mut self, actor: usize, rec: Rec, mode: Mode) {
        if self.inno.resumed & (1 << actor) == 0 {
            return;
        }
        let conflicting = |&(a, r, m): &(u8, Rec, Mode)| {
            a as usize != actor && r == rec && (m == Mode::X || mode == Mode::X)
        };
        if self.inno.taken.iter().any(conflicting) {
            self.race();
        }
        self.inno.taken.push((actor as u8, rec, mode));
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
    pub(super) fn victim(&self, trx: TxId) -> Option<TxId> {
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

    /// After an entry: roll back deadlock victims; resume the statements whose locks were
    /// granted, in grant order; run the deadlock checks left over; until nothing moves.
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
                self.inno_deadlock_check();
                continue;
            }
            break;
        }
    }
}
