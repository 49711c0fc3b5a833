//! Where the model's order is one of several that PostgreSQL could take: sessions woken by
//! the same commit or rollback run at once, and which reaches a row first decides. These
//! predicates find such a moment for `race` to note.

use crate::schedule::{Isolation, Wait};

use super::super::locks::WaitOn;
use super::super::mvcc::{TxId, VerId};
use super::super::stmt::{Kind, Running};
use super::super::Engine;
use super::from_chain;

impl Engine<'_> {
    /// Whether `r`, woken at the head of a row's queue to find the version it queued on
    /// replaced, and not following the update chain (an UPDATE, or a locking read that did
    /// not see that update begin), leaves behind waiters whose outcome depends on who goes
    /// first: in PostgreSQL it lets go of that version's tuple lock before it goes for the
    /// newest one, which wakes the next in line at once, and both go for the newest version.
    /// (A REPEATABLE READ or SERIALIZABLE waiter behind it that does not follow the chain
    /// fails alike either way.)
    pub(super) fn breaks_up_queue(&self, actor: usize, r: &Running) -> bool {
        let Some(on @ WaitOn::Row(seat, tid)) = r.woken.map(|w| w.on) else {
            return false;
        };
        let (seat, v) = (seat as usize, tid);
        self.locks.others_queued_on(on, actor).any(|b| {
            self.running[b].as_ref().is_some_and(|other| {
                self.isolation(other.tx) == Isolation::ReadCommitted
                    || self.locks.waits[b].is_some_and(|w| {
                        is_locking_read(other) && w.follows_updates(self.updater_of(seat, v))
                    })
            })
        })
    }

    /// Whether the locking read `r`, woken from its wait for `seat` with version `v` replaced,
    /// walks the update chain (see `Wait::follows_updates`).
    pub(super) fn follows_chain(&self, r: &Running, seat: usize, v: VerId) -> bool {
        is_locking_read(r)
            && r.woken
                .is_some_and(|w| w.follows_updates(self.updater_of(seat, v)))
    }

    /// The transaction whose update replaced version `v` of `seat`, if one did.
    fn updater_of(&self, seat: usize, v: VerId) -> Option<TxId> {
        self.db
            .successor(seat, v)
            .map(|s| self.db.versions[s as usize].xmin)
    }

    /// `r`, woken during this entry (`woken_now`) from following the row's update chain, is
    /// about to take the row ahead of the head of the newest version's queue, whom the same
    /// commit or rollback set free: the walk asks for no tuple lock, so in PostgreSQL either
    /// may get it.
    pub(super) fn race_the_queue_head(
        &mut self,
        actor: usize,
        r: &Running,
        seat: usize,
        woken_now: bool,
    ) {
        if woken_now && from_chain(r) && self.others_set_free_for(seat, actor) {
            self.race();
        }
    }

    /// `actor`, woken during this entry from following the row's update chain, locks the
    /// newest version of `seat` before it fails (REPEATABLE READ or SERIALIZABLE), while a
    /// statement that the same commit or rollback set free, waiting for another row, will
    /// still come to `seat`: in PostgreSQL they run at once, and if that one locks the newest
    /// version first, the walk waits for its transaction before it fails.
    pub(super) fn race_a_later_row(&mut self, actor: usize, seat: usize, woken_now: bool) {
        let later = |b: usize| {
            b != actor
                && self.running[b]
                    .as_ref()
                    .is_some_and(|other| other.todo & (1 << seat) != 0)
                && self.locks.runnable(b, &self.db)
        };
        if woken_now && (0..self.running.len()).any(later) {
            self.race();
        }
    }

    /// Whether another statement queued for `seat` has had its wait ended (by the commit or
    /// rollback being settled) and has not run yet.
    fn others_set_free_for(&self, seat: usize, actor: usize) -> bool {
        (0..self.running.len()).any(|b| {
            b != actor
                && self.running[b].is_some()
                && self.locks.waits[b]
                    .is_some_and(|w| matches!(w.on, WaitOn::Row(s, _) if s as usize == seat))
                && self.locks.runnable(b, &self.db)
        })
    }
}

/// Whether `r` is a locking read that waits for its rows (FOR UPDATE, or the confirm
/// function's).
fn is_locking_read(r: &Running) -> bool {
    matches!(r.kind, Kind::Lock(Wait::Wait) | Kind::Confirm(_))
}
