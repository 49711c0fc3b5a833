//! What a visit checks and writes on a row version: the statement's WHERE, the SERIALIZABLE
//! bookkeeping of a read or an update, and the row an UPDATE writes.

use crate::outcome::StepResult;
use crate::schedule::{Isolation, SeatStatus};

use super::super::mvcc::{SeatVal, TxId, VerId};
use super::super::stmt::{rw_dependencies, Kind, Upd};
use super::super::Engine;

impl Engine<'_> {
    pub(crate) fn isolation(&self, tx: TxId) -> Isolation {
        self.db.txs[tx as usize].iso
    }

    /// The statement's WHERE on a row version, with `clock_now()` read now.
    pub(super) fn matches(&self, kind: &Kind, val: SeatVal) -> bool {
        let clock = self.clients.clock;
        let expired =
            |now: i64| val.status == SeatStatus::Held && val.until.is_some_and(|u| u < now);
        match kind {
            Kind::Lock(_)
            | Kind::Confirm(_)
            | Kind::Book { .. }
            | Kind::Account
            | Kind::Ignore { .. }
            | Kind::Update(Upd::Write(_)) => true,
            Kind::Update(Upd::Claim { now, .. }) => {
                val.status == SeatStatus::Available || expired(now.unwrap_or(clock))
            }
            Kind::Update(Upd::Release { hold }) => {
                val.hold == Some(*hold) && val.status == SeatStatus::Held
            }
            Kind::Update(Upd::Sweep) => expired(clock),
            Kind::Update(Upd::Take { take, bounded, .. }) => !bounded || val.value >= *take,
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
    pub(super) fn ssi_write(&mut self, tx: TxId, seat: usize, v: VerId) -> Result<(), StepResult> {
        let Some(me) = self.db.txs[tx as usize].sx else {
            return Ok(());
        };
        self.ssi
            .write(me, seat as u8, v)
            .map_err(|_| rw_dependencies())
    }
}

/// The row an UPDATE writes over `old`, with `clock_now()` read at `clock` (each UPDATE of a
/// seat sets all four columns, so nothing of the old row stays; a counter's is computed from
/// the row it updates, the newest one if it waited).
pub(crate) fn updated(upd: Upd, clock: i64, old: SeatVal) -> SeatVal {
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
            until: Some(now.unwrap_or(clock) + minutes),
            value: 0,
        },
        Upd::Write(val) => val,
        Upd::Release { .. } | Upd::Sweep => SeatVal::FREE,
        Upd::Take { take, flag, .. } => SeatVal {
            value: if flag { 0 } else { old.value - take },
            ..old
        },
    }
}
