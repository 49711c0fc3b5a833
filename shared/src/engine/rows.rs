//! How a locking statement (an UPDATE, a FOR UPDATE) visits one row: evaluate its WHERE on
//! the version its snapshot sees; lock the row, or wait for it; after a wait, go on with that
//! evaluation if the version was not replaced (the holder only locked, or rolled back), or, if
//! a committed update replaced it, re-check the WHERE on the newest version under READ
//! COMMITTED (EvalPlanQual, which keeps the lock even when the re-check fails) and fail with
//! 40001 under REPEATABLE READ and SERIALIZABLE. A re-check that finds the newest version being
//! updated, and a FOR UPDATE locking the rest of the update chain after its wait, wait for that
//! transaction outside the row's queue.
//!
//! Where PostgreSQL's sessions race for a row is `race`'s; the WHERE, the SERIALIZABLE
//! bookkeeping and the row an UPDATE writes are `check`'s.

mod check;
mod race;

use crate::outcome::StepResult;
use crate::schedule::{Isolation, Wait};
use crate::sqlstate::SqlState;

use super::locks::WaitOn;
use super::mvcc::{TxId, VerId, NOBODY};
use super::stmt::{concurrent_update, error, Fact, Kind, Running, Visit};
use super::Engine;
use check::updated;
pub(super) use check::updated as updated_row;

impl Engine<'_> {
    /// Visits `seat` for the locking statement `r` of `actor`, or resumes the visit that
    /// waited on it.
    pub(crate) fn visit(&mut self, actor: usize, r: &mut Running, seat: usize) -> Visit {
        let resumed = r.pending.is_some();
        let (v, mut replaced) = match r.pending.take() {
            Some((_, v, replaced)) => (v, replaced),
            None => match self.fetch(r, seat) {
                Ok(Some(v)) => (v, false),
                Ok(None) => return Visit::Done(None),
                Err(e) => return Visit::Fail(e),
            },
        };
        let k = self.log.len();
        let woken_now = r.woken_in == Some(k);
        if !resumed && woken_now && self.locks.locked_by_woken(seat, k) {
            // Woken by this entry's commit or rollback while waiting for another row, it comes
            // to one that a statement woken by the same commit took first in the model. In
            // PostgreSQL both run at once; a row whose locker ended is free to whichever
            // reaches it (no tuple lock is asked for), so either may get it, and what this
            // statement finds (the row locked, replaced or free) depends on which.
            self.race();
        }
        // Replaced by a committed update since the version we evaluated (TM_Updated)? A
        // locking read that had waited for the row and saw that update begin first locks the
        // rest of the update chain (heap_lock_updated_tuple), waiting for whoever holds the
        // newest version; one that finds the row already replaced, and an UPDATE, do not.
        // (The walk stops, with TM_Updated, at a version that a committed transaction updated:
        // it waits only if the version after ours is the newest committed one.)
        let newest_committed = self.db.visible(seat, self.db.latest(), NOBODY);
        let chain_lock = resumed
            && self.follows_chain(r, seat, v)
            && self.db.successor(seat, v) == Some(newest_committed);
        let other = self.locks.holder[seat].filter(|&h| h != r.tx);
        if !replaced && self.db.replaced(seat, v) {
            if let (true, Some(h)) = (chain_lock, other) {
                return self.follow_chain(actor, r, seat, (v, false, true), h);
            }
            if self.isolation(r.tx) != Isolation::ReadCommitted {
                if chain_lock {
                    // The walk along the chain locks the newest version before the statement
                    // finds its own version replaced and fails: the lock stays until the
                    // transaction ends.
                    self.race_the_queue_head(actor, r, seat, woken_now);
                    self.race_a_later_row(actor, seat, woken_now);
                    self.locks.take(seat, r.tx, k);
                    self.db.assign_xid(r.tx);
                }
                self.leave_queue(r);
                return Visit::Fail(concurrent_update());
            }
            replaced = true;
        }
        if replaced
            && !chain_lock
            && r.woken.is_some_and(|w| matches!(w.on, WaitOn::Row(..)))
            && self.breaks_up_queue(actor, r)
        {
            self.race();
        }
        if let (true, Some(h)) = (replaced, other) {
            let updating = self.db.versions[self.db.newest[seat] as usize].xmin == h;
            if chain_lock || updating {
                return self.follow_chain(actor, r, seat, (v, replaced, chain_lock), h);
            }
        }
        let tid = newest_committed;
        if self.locks.contended(seat, tid, r.tx, r.woken.as_ref()) {
            return self.contend(actor, r, seat, (tid, v, replaced));
        }
        if woken_now && !resumed && self.locks.queued_for_seat(seat, actor) {
            // Woken while waiting for another row, it takes this one ahead of the waiters in
            // its queue, whom the same commit or rollback set free (nobody holds the row): in
            // PostgreSQL they run at once, and either may get it.
            self.race();
        }
        self.race_the_queue_head(actor, r, seat, woken_now);
        self.locks.take(seat, r.tx, k);
        if woken_now {
            self.locks.lock_by_woken(seat, k);
        }
        self.db.assign_xid(r.tx);
        let visit = self.lock_row(r, seat, if replaced { None } else { Some(v) });
        // It lets go of the tuple lock once it has locked (and, an UPDATE, written) the row:
        // the next in line reads the row as this statement left it.
        self.leave_queue(r);
        visit
    }

    /// Fetches the version of `seat` that the statement's snapshot sees and evaluates its
    /// WHERE: the version, or `None` if the row does not match.
    fn fetch(&mut self, r: &mut Running, seat: usize) -> Result<Option<VerId>, StepResult> {
        let v = self.db.visible(seat, r.snap, r.tx);
        self.ssi_read(r.tx, seat, v)?;
        let val = self.db.val(v);
        if !self.matches(&r.kind, val) {
            r.facts.push(seat as u8, Fact::NoMatch(val.status));
            return Ok(None);
        }
        if matches!(r.kind, Kind::Update(_)) {
            // heap_update takes the xid before it looks at the row's lockers.
            self.db.assign_xid(r.tx);
        }
        r.fetched_at = self.clients.clock;
        Ok(Some(v))
    }

    /// The row is locked (or queued for) by someone else: fail (NOWAIT), skip (SKIP LOCKED)
    /// or wait in the queue of its newest committed version `tid`.
    fn contend(
        &mut self,
        actor: usize,
        r: &mut Running,
        seat: usize,
        (tid, v, replaced): (VerId, VerId, bool),
    ) -> Visit {
        if self.locks.holder[seat].is_none() {
            // Nobody holds the row: its woken head has not run yet. PostgreSQL races here.
            self.race();
        }
        match r.kind {
            Kind::Lock(Wait::Nowait) => Visit::Fail(self.lock_not_available()),
            Kind::Lock(Wait::SkipLocked) => {
                r.facts.push(seat as u8, Fact::Skipped);
                Visit::Done(None)
            }
            _ => {
                self.locks
                    .enqueue(actor, seat, tid, r.woken.take(), &self.db);
                r.pending = Some((seat as u8, v, replaced));
                Visit::Wait
            }
        }
    }

    /// Waits for `holder`, which holds a newer version of a row that this statement found
    /// replaced. EvalPlanQual waits for the transaction itself, outside the row's queue; a
    /// locking read that follows the update chain from the head of the queue (`chain`) waits
    /// in its place there, keeping the tuple lock, so the waiters behind it stay behind it.
    fn follow_chain(
        &mut self,
        actor: usize,
        r: &mut Running,
        seat: usize,
        (v, replaced, chain): (VerId, bool, bool),
        holder: TxId,
    ) -> Visit {
        if matches!(r.kind, Kind::Lock(Wait::Nowait)) {
            return Visit::Fail(self.lock_not_available());
        }
        if matches!(r.kind, Kind::Lock(Wait::SkipLocked)) {
            r.facts.push(seat as u8, Fact::Skipped);
            return Visit::Done(None);
        }
        let update = matches!(r.kind, Kind::Update(_));
        if (update && resumed_now(r) || from_chain(r))
            && self.locks.taken_during(seat, self.log.len())
        {
            // The holder took the row in this very wake-up: PostgreSQL races between its lock
            // and its update (an UPDATE's re-check that meets the lock alone queues for it),
            // or between it and this walk along the chain, which asks for no tuple lock.
            self.race();
        }
        match r.woken.take() {
            // Following the chain from its place at the head of the row's queue, it keeps it.
            Some(place) if chain && matches!(place.on, WaitOn::Row(..)) => {
                self.locks.wait_on_chain(actor, place, holder);
            }
            woken => {
                r.woken = woken;
                self.leave_queue(r);
                self.locks
                    .wait_for_tx(actor, holder, WaitOn::Update(seat as u8, holder));
            }
        }
        r.pending = Some((seat as u8, v, replaced));
        Visit::Wait
    }

    /// With the row lock taken: re-check the WHERE on the newest version if the evaluated
    /// one was replaced (`evaluated: None`, EvalPlanQual, the lock stays even if it fails),
    /// then write (an UPDATE) or return the row (a locking read).
    fn lock_row(&mut self, r: &mut Running, seat: usize, evaluated: Option<VerId>) -> Visit {
        let target = evaluated.unwrap_or(self.db.newest[seat]);
        let val = self.db.val(target);
        if evaluated.is_none() && !self.matches(&r.kind, val) {
            r.facts.push(seat as u8, Fact::Recheck(val.status));
            return Visit::Done(None);
        }
        if let Kind::Update(upd) = r.kind {
            if let Err(f) = self.ssi_write(r.tx, seat, target) {
                return Visit::Fail(f);
            }
            // The new row was computed when the row was fetched, unless re-checked now.
            let clock = if evaluated.is_some() {
                r.fetched_at
            } else {
                self.clients.clock
            };
            self.db.update(seat, r.tx, updated(upd, clock, val));
        }
        r.count += 1;
        r.facts.push(seat as u8, Fact::Took);
        Visit::Done(Some(target))
    }

    /// NOWAIT's 55P03, naming the table of the scenario's rows as PostgreSQL does (a counter's
    /// own table, or `show_seats`).
    fn lock_not_available(&self) -> StepResult {
        let table = crate::sql::counter::table(self.schedule.scenario().kind)
            .map_or("show_seats", |t| t.name);
        error(
            SqlState::LockNotAvailable,
            &format!("could not obtain lock on row in relation \"{table}\""),
        )
    }

    /// Notes that the current entry's outcome depends on a race between PostgreSQL sessions.
    pub(super) fn race(&mut self) {
        let k = self.log.len();
        if self.races.last() != Some(&k) {
            self.races.push(k);
        }
    }

    /// A woken waiter is done with the version it queued on (it took the row, or found it
    /// replaced): the tuple lock passes on at once, so the next in line starts its new wait
    /// before this statement goes on to other rows.
    pub(super) fn leave_queue(&mut self, r: &mut Running) {
        if r.woken.take().is_some() {
            self.locks.promote_heads(&self.db);
        }
    }
}

/// Whether `r` is running because a commit or rollback woke it during this entry.
fn resumed_now(r: &Running) -> bool {
    r.woken.is_some()
}

/// Whether `r` was woken from waiting on a row's update chain itself (not from behind the
/// tuple lock of an older version, which its predecessor held until it had locked the newer
/// one).
fn from_chain(r: &Running) -> bool {
    r.woken
        .is_some_and(|w| w.chain || matches!(w.on, WaitOn::Update(..)))
}
