//! After every entry: wake the waiters whose wait is over, in the order their waits began,
//! then break deadlocks, until nothing moves (the executor's quiescence).

use super::stmt;
use super::trace::Events;
use super::Engine;
use crate::sqlstate::SqlState;

impl Engine<'_> {
    /// Wakes the waiters whose wait is over, in the order their waits began, then breaks
    /// deadlocks, until nothing moves.
    pub(super) fn settle(&mut self, ev: &mut Events) {
        if self.innodb() {
            return self.inno_settle(ev);
        }
        if self.running.iter().all(Option::is_none) && self.locks.waits.iter().all(Option::is_none)
        {
            // Nobody waits: nothing to wake, no queue to move up, no cycle.
            return;
        }
        let mut broken = false;
        loop {
            self.locks.promote_heads(&self.db);
            let next = (0..self.running.len())
                .filter(|&a| self.running[a].is_some() && self.locks.runnable(a, &self.db))
                .min_by_key(|&a| self.locks.since(a));
            if let Some(a) = next {
                let mut r = self.running[a].take().expect("a waiter");
                r.woken = self.locks.waits[a].take();
                r.woken_in = Some(self.log.len());
                self.drive(a, r, ev);
                continue;
            }
            if let Some((victim, race)) = self.locks.deadlock_victim(&self.db) {
                if race {
                    self.race();
                }
                // The victim's check ran `deadlock_timeout` after its wait began, so the check
                // of every wait that began before it has run too, and found no cycle: none of
                // them can fail for a cycle that the victim's end closes.
                let since = self.locks.since(victim).expect("a victim waits");
                for w in self.locks.waits.iter_mut().flatten() {
                    w.checked |= w.since < since;
                }
                let r = self.running[victim].take().expect("a waiter");
                self.locks.waits[victim] = None;
                ev.deadlock(victim);
                let failed = stmt::error(SqlState::DeadlockDetected, "deadlock detected");
                self.complete(victim, r, failed, ev);
                broken = true;
                continue;
            }
            break;
        }
        if broken {
            self.locks.mark_checked();
        }
    }

    pub(super) fn blocker_names(&self, actor: usize) -> Vec<String> {
        let blockers = if self.innodb() {
            self.inno_blockers(actor)
        } else {
            self.locks.blockers(actor, &self.db)
        };
        let mut on: Vec<String> = blockers
            .into_iter()
            .map(|b| self.names.names[b].clone())
            .collect();
        on.sort();
        on
    }
}
