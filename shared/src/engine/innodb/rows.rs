//! A locking statement on the seats (FOR UPDATE, a SERIALIZABLE read in share mode, every
//! UPDATE) visits its rows in key order: it locks each one, waiting if another transaction's
//! lock is in the way, and then reads the row's NEWEST version, whatever its read view saw.
//! An UPDATE writes the row if its WHERE holds there. Under READ COMMITTED a row it leaves
//! unchanged is unlocked at once; a READ COMMITTED scan (release, sweep) reads a row another
//! transaction locks semi-consistently and passes it by, without waiting, if its last
//! committed version does not match. NOWAIT answers 1205 (MariaDB; MySQL 8 answers 3572) and
//! SKIP LOCKED passes the row by.
//!
//! Not modelled yet: MariaDB 10.11 plans `seat_id in (…)` listing most of a small show as a
//! scan of the whole primary key (EXPLAIN type `index`, not `range`: with 5 seats from 4 listed,
//! with 8 or 10 from 4, with 3 or 4 from 3), and a scan is read semi-consistently under READ
//! COMMITTED; the model takes every list as point lookups (schedules/deadlock-the-first-waiter-
//! fails-when-a-slow-statement-came-between.json on InnoDB parts from MariaDB there).

use crate::outcome::{Answer, StepResult};
use crate::schedule::{Isolation, SeatStatus, Wait};
use crate::sqlstate::SqlState;

use super::super::mvcc::{SeatVal, VerId};
use super::super::names::seats_of;
use super::super::ops::Poll;
use super::super::stmt::{error, Fact, Kind, Running, Upd, Visit};
use super::super::Engine;
use super::lock::{Mode, Rec, Span};
use super::{IS_SEATS, IX_SEATS};

/// MariaDB's answer to NOWAIT on a locked row.
pub(super) fn lock_wait_timeout() -> StepResult {
    error(
        SqlState::LockWaitTimeout,
        "Lock wait timeout exceeded; try restarting transaction",
    )
}

impl Engine<'_> {
    /// Visits the remaining rows of a locking statement in seat order.
    pub(super) fn inno_visit_all(&mut self, actor: usize, r: &mut Running) -> Poll {
        let mode = if self.share_read(actor, r) {
            Mode::S
        } else {
            Mode::X
        };
        self.inno
            .table_lock(r.tx, if mode == Mode::S { IS_SEATS } else { IX_SEATS });
        while let Some(seat) = seats_of(r.todo).next() {
            match self.inno_visit(actor, r, seat, mode) {
                Visit::Wait => return Poll::Wait,
                Visit::Fail(e) => return Poll::Done(e),
                Visit::Done(v) => {
                    if let (Some(v), Kind::Lock(_)) = (v, r.kind) {
                        r.rows.push((seat as u8, v));
                    }
                    r.todo &= !(1 << seat);
                }
            }
        }
        Poll::Done(match r.kind {
            Kind::Update(Upd::Release { .. }) => StepResult::Answer {
                answer: if r.count > 0 {
                    Answer::Released
                } else {
                    Answer::Expired
                },
            },
            Kind::Lock(_) => StepResult::Ok {
                rows: Some(r.rows.len() as u64),
            },
            _ => StepResult::Ok {
                rows: Some(r.count as u64),
            },
        })
    }

    /// SKIP LOCKED skipped `seat`: its point lookup did not end at its match, so InnoDB read on
    /// to the next record and, under REPEATABLE READ and SERIALIZABLE, locked it as a search
    /// that finds no match does: the gap before the next seat (X, gap only), or the supremum
    /// (X, next-key) after the show's last. Neither ever makes anyone wait (no seat is ever
    /// inserted), but each is a lock struct, counted in the deadlock victim's weight. Found by
    /// a random schedule on MariaDB 10.11: SHOW ENGINE INNODB STATUS lists them, and
    /// INNODB_TRX.trx_lock_structs counts them.
    fn inno_skip_gap(&mut self, actor: usize, tx: super::super::mvcc::TxId, seat: usize) {
        if self.isolation(tx) == Isolation::ReadCommitted {
            return;
        }
        let (rec, span) = if seat + 1 < self.names.seats.len() {
            (Rec::Seat(seat as u8 + 1), Span::Gap)
        } else {
            (Rec::SeatEnd, Span::NextKey)
        };
        if !self.inno.locks.holds(tx, rec, Mode::X, span) {
            self.inno.locks.grant(tx, actor, rec, Mode::X, span);
        }
    }

    /// Locks `seat` for `r` (or resumes after its wait for it), then reads and updates it.
    pub(super) fn inno_visit(
        &mut self,
        actor: usize,
        r: &mut Running,
        seat: usize,
        mode: Mode,
    ) -> Visit {
        let rec = Rec::Seat(seat as u8);
        let waited = r.pending.take().is_some();
        let held = !waited && self.inno.locks.holds(r.tx, rec, mode, Span::Record);
        if !waited && !held {
            self.inno_contend(actor, rec, mode);
            let scan = matches!(r.kind, Kind::Update(Upd::Release { .. } | Upd::Sweep));
            let conflict = self
                .inno
                .locks
                .conflict(r.tx, rec, mode, Span::Record)
                .is_some();
            if conflict && scan && self.isolation(r.tx) == Isolation::ReadCommitted {
                // Semi-consistent read: the last committed version decides whether to wait.
                let committed = self.db.committed(seat);
                if !self.inno_matches(r, committed) {
                    r.facts.push(seat as u8, Fact::NoMatch(committed.status));
                    return Visit::Done(None);
                }
            }
            if conflict {
                match r.kind {
                    Kind::Lock(Wait::Nowait) => return Visit::Fail(lock_wait_timeout()),
                    Kind::Lock(Wait::SkipLocked) => {
                        r.facts.push(seat as u8, Fact::Skipped);
                        self.inno_skip_gap(actor, r.tx, seat);
                        return Visit::Done(None);
                    }
                    _ => {}
                }
                r.pending = Some((seat as u8, 0, false));
                return self
                    .inno_wait(actor, r.tx, rec, mode, Span::Record)
                    .map_or(Visit::Wait, Visit::Fail);
            }
            self.inno.locks.grant(r.tx, actor, rec, mode, Span::Record);
        }
        let v = self.db.newest[seat];
        let val = self.db.val(v);
        let Kind::Update(upd) = r.kind else {
            r.facts.push(seat as u8, Fact::Took);
            return Visit::Done(Some(v));
        };
        if !self.inno_matches(r, val) {
            r.facts.push(
                seat as u8,
                if waited {
                    Fact::Recheck(val.status)
                } else {
                    Fact::NoMatch(val.status)
                },
            );
            // READ COMMITTED lets go of a lock this statement took at once (not one the
            // transaction held before, nor one granted after a wait, which InnoDB does not count
            // as new: prebuilt->new_rec_locks), on a row the transaction has not changed
            // (row_unlock_for_mysql).
            let own = self.db.versions[v as usize].xmin == r.tx;
            if self.isolation(r.tx) == Isolation::ReadCommitted && !held && !waited && !own {
                self.inno.locks.unlock(r.tx, rec);
                self.inno_regrant(0);
            }
            return Visit::Done(None);
        }
        let new = super::super::rows::updated_row(upd, r.fetched_at, val);
        if self.overwrites(r, seat, v) {
            r.facts.overwrote(seat as u8);
        }
        if new != val {
            // A row set to what it holds is not changed: no new version, no undo record.
            if self.resized(val, new) {
                self.inno_moves(actor, seat);
            }
            self.db.update(seat, r.tx, new);
            self.inno.add_undo(r.tx);
            self.inno.stmt[actor].wrote |= 1 << seat;
        }
        r.count += 1;
        r.facts.push(seat as u8, Fact::Took);
        Visit::Done(Some(v))
    }

    /// The statement's WHERE on a row version, with the clock it was sent with.
    pub(super) fn inno_matches(&self, r: &Running, val: SeatVal) -> bool {
        let expired =
            |now: i64| val.status == SeatStatus::Held && val.until.is_some_and(|u| u < now);
        match r.kind {
            Kind::Update(Upd::Claim { now, .. }) => {
                val.status == SeatStatus::Available || expired(now.unwrap_or(r.fetched_at))
            }
            Kind::Update(Upd::Release { hold }) => {
                val.hold == Some(hold) && val.status == SeatStatus::Held
            }
            Kind::Update(Upd::Sweep) => expired(r.fetched_at),
            Kind::Update(Upd::Take { take, bounded, .. }) => !bounded || val.value >= take,
            _ => true,
        }
    }

    /// Whether an update of `seat`'s newest version `v` overwrites a commit that the
    /// transaction's read view does not see (REPEATABLE READ's lost update).
    fn overwrites(&self, r: &Running, seat: usize, v: VerId) -> bool {
        let t = self.db.txs[r.tx as usize];
        t.snap
            .is_some_and(|snap| self.db.visible(seat, snap, r.tx) != v)
    }
}
