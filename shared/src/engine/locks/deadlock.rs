//! The wait-for graph: whom each waiter waits for, and the deadlock victim, the waiter whose
//! deadlock check finds a cycle first.

use super::super::mvcc::{Db, TxId};
use super::{Locks, WaitOn};

impl Locks {
    /// The actors that `actor` waits for, in actor order.
    pub fn blockers(&self, actor: usize, db: &Db) -> Vec<usize> {
        let mask = self.blocker_mask(actor, db);
        (0..self.waits.len())
            .filter(|&a| mask & (1 << a) != 0)
            .collect()
    }

    /// The actors that `actor` waits for, as a bit mask (actors are at most 8).
    fn blocker_mask(&self, actor: usize, db: &Db) -> u32 {
        let Some(w) = self.waits[actor] else {
            return 0;
        };
        let bit = |t: TxId| 1u32 << db.txs[t as usize].actor;
        match w.on {
            WaitOn::Xact(t) | WaitOn::Update(_, t) => bit(t),
            WaitOn::Row(..) | WaitOn::Account(_) if w.head => {
                w.holder.filter(|&h| db.is_active(h)).map_or(0, bit)
            }
            WaitOn::Row(..) | WaitOn::Account(_) => self
                .queued_on(w.on)
                .filter(|(_, o)| o.queued < w.queued)
                .fold(0, |m, (a, _)| m | 1 << a),
        }
    }

    /// The waiter whose wait began first among those that run into a cycle of waits leading
    /// back to themselves: PostgreSQL's deadlock check runs `deadlock_timeout` after a wait
    /// begins, so the earliest waiter on the cycle is the one that finds it and gives up. A
    /// wait whose one check already ran (`checked`) is passed over: a later waiter's check
    /// finds the cycle.
    ///
    /// Also returns whether the victim's wait and the next one's on a cycle both began during
    /// one entry (one commit or rollback woke them, or the current entry's): their timers
    /// then run out microseconds apart, in the order the machine ran their sessions, and
    /// which one PostgreSQL aborts is a race. That holds whether the cycle closed in that
    /// entry or later: the timers started when the waits did.
    pub fn deadlock_victim(&self, db: &Db) -> Option<(usize, bool)> {
        if self.waits.iter().flatten().count() < 2 {
            return None;
        }
        let edges: Vec<u32> = (0..self.waits.len())
            .map(|a| self.blocker_mask(a, db))
            .collect();
        let mut on_cycles: Vec<(u32, u32, usize)> = (0..self.waits.len())
            .filter_map(|a| {
                self.waits[a]
                    .filter(|w| !w.checked && reaches(&edges, a))
                    .map(|w| (w.since, w.began, a))
            })
            .collect();
        on_cycles.sort_unstable();
        let race = on_cycles.len() >= 2 && on_cycles[0].1 == on_cycles[1].1;
        on_cycles.first().map(|&(_, _, a)| (a, race))
    }

    /// Breaking a deadlock takes `deadlock_timeout` from the start of its victim's wait: every
    /// wait that began before has had its check by then, and the executor lets the checks of
    /// the waits that began after run out before it goes on. So once a deadlock is broken,
    /// every wait still in progress has been checked, and can no longer be a victim.
    pub fn mark_checked(&mut self) {
        for w in self.waits.iter_mut().flatten() {
            w.checked = true;
        }
    }
}

/// Whether `from` reaches itself again along the wait-for edges (bit masks of actors).
fn reaches(edges: &[u32], from: usize) -> bool {
    let mut seen = 0u32;
    let mut frontier = edges[from];
    while frontier & !seen != 0 {
        if frontier & (1 << from) != 0 {
            return true;
        }
        seen |= frontier;
        frontier = (0..edges.len())
            .filter(|&a| seen & (1 << a) != 0)
            .fold(0, |m, a| m | edges[a]);
    }
    frontier & (1 << from) != 0
}
