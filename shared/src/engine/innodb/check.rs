//! What InnoDB does when a lock goes (MariaDB 10.6+'s lock0lock.cc), and the deadlock checks it
//! leaves for later. A lock that leaves a page (a transaction's end, a cancelled wait:
//! lock_rec_dequeue_from_page) makes InnoDB look at every lock still waiting on that page: one
//! that nothing ahead of it conflicts with any more is granted; the others name anew the first
//! transaction ahead that they wait for (`wait_trx`), and if THAT transaction waits itself, it
//! is put in the set of transactions to check (`Deadlock::to_check`): the blocker, not the
//! waiter. A wait that ends (granted or cancelled) takes the transaction it named out of the
//! set again (lock_reset_lock_and_trx_wait). A lock let go of alone (READ COMMITTED's
//! lock_rec_unlock) grants what it can and puts nothing in the set.
//!
//! The set is checked when the ending transaction has let go of all its locks (lock_release
//! calls lock_sys_t::deadlock_check): its members one at a time, from the set's first, each
//! taken out and, if its wait leads into a cycle, the cycle's victim chosen (`victim`) and its
//! wait cancelled at once, which may add to the set; the victim's transaction is rolled back
//! afterwards, by its own thread. The set is ordered by the transaction objects' addresses:
//! InnoDB hands each connection's object out of a pool, lowest free address first, when it
//! first touches an InnoDB table, so a run alone checks them in the order their connections
//! first touched a table. A concurrent run that frees an object meanwhile can change that order,
//! so where another member checked first would choose another victim, the model names a race.
//! (Checked on MariaDB 10.11.19: `innodb-the-deadlock-check-after-a-commit-starts-at-the-first-
//! connection-to-touch-the-table.json` and the deep queues where a SERIALIZABLE reader makes its
//! shared lock exclusive while others wait.)

use super::super::mvcc::TxId;
use super::super::Engine;

impl Engine<'_> {
    /// `actor`'s connection sends a statement that touches an InnoDB table: the first gives its
    /// transaction object its place in the pool.
    pub(super) fn inno_touch(&mut self, actor: usize) {
        if self.inno.touched[actor] == u32::MAX {
            self.inno.touched[actor] = self.inno.touches;
            self.inno.touches += 1;
        }
    }

    /// Grants the waits that no lock ahead holds up any more, in queue order, and names anew
    /// whom the others wait for. `dequeued`: the index pages (`Rec::index`, as a mask) that a
    /// lock left, whose waiters' blockers that wait themselves go into the set to check; 0 for
    /// a lock let go of alone.
    pub(super) fn inno_regrant(&mut self, dequeued: u8) {
        for i in 0..self.inno.locks.list.len() {
            let l = self.inno.locks.list[i];
            if !l.waiting {
                continue;
            }
            let a = l.actor as usize;
            let first = self.inno.locks.blockers(i).next().map(|b| b.tx);
            match first {
                None => {
                    self.inno.locks.list[i].waiting = false;
                    self.inno_wait_ends(a);
                    self.inno.woken.push(a);
                }
                Some(t) => {
                    self.inno.wait_trx[a] = Some(t);
                    let blocker = self.db.txs[t as usize].actor as usize;
                    let page = dequeued & (1 << l.rec.index()) != 0;
                    if page
                        && self.inno.wait_trx[blocker].is_some()
                        && !self.inno.to_check.contains(&t)
                    {
                        self.inno.to_check.push(t);
                    }
                }
            }
        }
    }

    /// `actor`'s wait ends, granted or cancelled: the transaction it named leaves the set.
    pub(super) fn inno_wait_ends(&mut self, actor: usize) {
        if let Some(named) = self.inno.wait_trx[actor].take() {
            self.inno.to_check.retain(|&t| t != named);
        }
    }

    /// The deadlock victim `tx`'s wait is cancelled (lock_cancel_waiting_and_release): its
    /// waiting lock leaves the queue, which may grant the locks behind it; its transaction is
    /// rolled back by its own thread afterwards.
    pub(super) fn inno_cancel(&mut self, tx: TxId) {
        let actor = self.db.txs[tx as usize].actor as usize;
        if let Some(i) = self.inno.locks.waiting_of(tx) {
            let page = self.inno.locks.list.remove(i).rec.index();
            self.inno_regrant(1 << page);
        }
        self.inno_wait_ends(actor);
    }

    /// lock_sys_t::deadlock_check: every transaction in the set, the first first; a cycle its
    /// wait leads into is broken by cancelling its victim's wait, and the victim is to roll back.
    pub(in crate::engine) fn inno_deadlock_check(&mut self) {
        while let Some(t) = self.first_to_check() {
            self.inno.to_check.retain(|&o| o != t);
            let Some(v) = self.victim(t) else {
                continue;
            };
            let others = self.inno.to_check.clone();
            if others
                .iter()
                .any(|&o| self.victim(o).is_some_and(|w| w != v))
            {
                // Checked first, another member would roll another back: which one InnoDB
                // checks first is where their objects lie in memory.
                self.race();
            }
            self.inno_cancel(v);
            self.inno
                .victims
                .push(self.db.txs[v as usize].actor as usize);
        }
    }

    /// The set's first: the transaction whose connection first touched an InnoDB table.
    fn first_to_check(&self) -> Option<TxId> {
        self.inno.to_check.iter().copied().min_by_key(|&t| {
            let actor = self.db.txs[t as usize].actor as usize;
            (self.inno.touched[actor], actor)
        })
    }
}
