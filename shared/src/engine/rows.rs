//! A statement in flight, and how a locking statement visits one row: evaluate its WHERE on
//! the version its snapshot sees, lock the row (or queue for it), and after a wait either go
//! on with that evaluation (the holder only locked, or rolled back) or, under READ COMMITTED,
//! re-check the WHERE on the newest version (EvalPlanQual); under REPEATABLE READ and
//! SERIALIZABLE a row replaced by a transaction the snapshot does not see is error 40001.

use crate::outcome::StepResult;
use crate::schedule::{Isolation, SeatStatus, Wait};

use super::mvcc::{SeatVal, Snap, TxId, VerId};
use super::Engine;

/// A statement sent and not finished: where it is, and what it has done so far.
#[derive(Clone, Debug)]
pub(crate) struct Running {
    pub entry: usize,
    pub op_index: usize,
    pub tx: TxId,
    /// An autocommit statement's own transaction, which ends with it.
    pub implicit: bool,
    pub kind: Kind,
    pub snap: Snap,
    /// Seats still to fetch, lowest index first.
    pub todo: u64,
    /// The seats its WHERE names; the others in `todo` are only fetched (see `scan`).
    pub want: u64,
    /// Rows updated, locked, inserted.
    pub count: u32,
    /// Rows a locking read returned: (seat, version).
    pub rows: Vec<(u8, VerId)>,
    /// The row it waits on, with the version it evaluated and whether that version was
    /// already found replaced (READ COMMITTED re-checks whatever is newest after the wait).
    pub pending: Option<(u8, VerId, bool)>,
    /// What happened to each row, for the reason line.
    pub facts: Vec<(u8, Fact)>,
    /// Its wait before it was woken: it keeps its place if it must wait for the row again.
    pub woken: Option<super::locks::Wait>,
}

/// What a statement did with one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fact {
    /// Updated, locked or inserted.
    Took,
    /// Its WHERE was false on the version it saw: this status.
    NoMatch(SeatStatus),
    /// After a wait, the re-check on the newest version failed: this status (the lock stays).
    Recheck(SeatStatus),
    /// Locked by someone else: skipped (SKIP LOCKED).
    Skipped,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    Lock(Wait),
    Update(Upd),
    Book { hold: u16 },
    Confirm(Confirm),
}

/// The UPDATE statements.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Upd {
    /// The conditional claim; `now: None` reads the clock at each evaluation.
    Claim {
        holder: u8,
        hold: u16,
        minutes: i64,
        now: Option<i64>,
    },
    /// The unconditional write of these values.
    Write(SeatVal),
    /// Back to AVAILABLE where the hold is this one and still HELD.
    Release { hold: u16 },
    /// Back to AVAILABLE where the hold ran out by `clock_now()`.
    Sweep,
}

/// `confirm_hold` in flight: its hold, its `p_called_at` (`None`: evaluation), the seats it
/// locks, and whether it has moved on to inserting the tickets.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Confirm {
    pub hold: u16,
    pub holder: u8,
    pub called_at: Option<i64>,
    pub seats: u64,
    pub inserting: bool,
}

/// The result of visiting a row.
pub(crate) enum Visit {
    /// Finished with this row: the version it took, if any.
    Done(Option<VerId>),
    /// Queued for the row lock.
    Wait,
    Fail(StepResult),
}

pub(crate) fn error(code: &str, message: &str) -> StepResult {
    StepResult::Error {
        code: code.to_string(),
        message: message.to_string(),
    }
}

pub(crate) fn concurrent_update() -> StepResult {
    error(
        "40001",
        "could not serialize access due to concurrent update",
    )
}

pub(crate) fn rw_dependencies() -> StepResult {
    error(
        "40001",
        "could not serialize access due to read/write dependencies among transactions",
    )
}

impl Engine<'_> {
    /// Visits `seat` for the locking statement `r` of `actor`, or resumes the visit that
    /// waited on it.
    pub(crate) fn visit(&mut self, actor: usize, r: &mut Running, seat: usize) -> Visit {
        let tx = r.tx;
        let (v, mut replaced) = match r.pending.take() {
            Some((_, v, replaced)) => (v, replaced),
            None => {
                let v = self.db.visible(seat, r.snap, tx);
                if let Err(f) = self.ssi_read(tx, seat, v) {
                    return Visit::Fail(f);
                }
                let val = self.db.val(v);
                if !self.matches(&r.kind, val) {
                    r.facts.push((seat as u8, Fact::NoMatch(val.status)));
                    return Visit::Done(None);
                }
                if matches!(r.kind, Kind::Update(_)) {
                    self.db.assign_xid(tx);
                }
                (v, false)
            }
        };
        // Replaced by a committed update since the version we evaluated (TM_Updated)?
        let committed_successor = self
            .db
            .successor(seat, v)
            .is_some_and(|s| !self.db.is_active(self.db.versions[s as usize].xmin));
        if !replaced && committed_successor {
            if self.isolation(tx) != Isolation::ReadCommitted {
                return Visit::Fail(concurrent_update());
            }
            replaced = true;
        }
        if self.locks.contended(seat, tx) {
            return match r.kind {
                Kind::Lock(Wait::Nowait) => Visit::Fail(error(
                    "55P03",
                    "could not obtain lock on row in relation \"show_seats\"",
                )),
                Kind::Lock(Wait::SkipLocked) => {
                    r.facts.push((seat as u8, Fact::Skipped));
                    Visit::Done(None)
                }
                _ => {
                    self.locks.enqueue(actor, seat, r.woken.take());
                    r.pending = Some((seat as u8, v, replaced));
                    Visit::Wait
                }
            };
        }
        r.woken = None;
        self.locks.take(seat, tx);
        self.db.assign_xid(tx);
        let target = if replaced { self.db.newest[seat] } else { v };
        if replaced && !self.matches(&r.kind, self.db.val(target)) {
            r.facts
                .push((seat as u8, Fact::Recheck(self.db.val(target).status)));
            return Visit::Done(None);
        }
        if let Kind::Update(upd) = r.kind {
            if let Err(f) = self.ssi_write(tx, seat, target) {
                return Visit::Fail(f);
            }
            let val = self.updated(upd);
            self.db.update(seat, tx, val);
        }
        r.count += 1;
        r.facts.push((seat as u8, Fact::Took));
        Visit::Done(Some(target))
    }

    pub(crate) fn isolation(&self, tx: TxId) -> Isolation {
        self.db.txs[tx as usize].iso
    }

    /// The statement's WHERE on a row version, with `clock_now()` read now.
    fn matches(&self, kind: &Kind, val: SeatVal) -> bool {
        let clock = self.clients.clock;
        let expired =
            |now: i64| val.status == SeatStatus::Held && val.until.is_some_and(|u| u < now);
        match kind {
            Kind::Lock(_) | Kind::Confirm(_) | Kind::Book { .. } | Kind::Update(Upd::Write(_)) => {
                true
            }
            Kind::Update(Upd::Claim { now, .. }) => {
                val.status == SeatStatus::Available || expired(now.unwrap_or(clock))
            }
            Kind::Update(Upd::Release { hold }) => {
                val.hold == Some(*hold) && val.status == SeatStatus::Held
            }
            Kind::Update(Upd::Sweep) => expired(clock),
        }
    }

    /// The row an UPDATE writes (each sets all four columns, so nothing of the old row stays).
    fn updated(&self, upd: Upd) -> SeatVal {
        match upd {
            Upd::Claim {
                holder,
                hold,
                minutes,
                now,
            } => SeatVal {
                status: SeatStatus::Held,
                holder: Some(holder),
                hold: Some(hold),
                until: Some(now.unwrap_or(self.clients.clock) + minutes),
            },
            Upd::Write(val) => val,
            Upd::Release { .. } | Upd::Sweep => SeatVal::FREE,
        }
    }

    /// SERIALIZABLE bookkeeping of a read of version `v` of `seat`.
    pub(crate) fn ssi_read(&mut self, tx: TxId, seat: usize, v: VerId) -> Result<(), StepResult> {
        let Some(me) = self.db.txs[tx as usize].sx else {
            return Ok(());
        };
        let replaced_by = self
            .db
            .successor(seat, v)
            .and_then(|s| self.db.txs[self.db.versions[s as usize].xmin as usize].sx);
        let own = self.db.versions[v as usize].xmin == tx;
        self.ssi
            .read(me, seat as u8, v, replaced_by, own)
            .map_err(|_| rw_dependencies())
    }

    /// SERIALIZABLE bookkeeping of an update of version `v` of `seat`.
    fn ssi_write(&mut self, tx: TxId, seat: usize, v: VerId) -> Result<(), StepResult> {
        let Some(me) = self.db.txs[tx as usize].sx else {
            return Ok(());
        };
        self.ssi
            .write(me, seat as u8, v)
            .map_err(|_| rw_dependencies())
    }
}
