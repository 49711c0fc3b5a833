//! A plain SELECT of the seats on InnoDB: a consistent read through a read view, which
//! REPEATABLE READ makes at the transaction's first consistent read (not at START TRANSACTION)
//! and READ COMMITTED makes per statement; or, under SERIALIZABLE inside a transaction, a
//! locking read in share mode (InnoDB adds LOCK IN SHARE MODE), which `rows` runs.

use crate::outcome::StepResult;
use crate::schedule::{Isolation, Op};

use super::super::names::seats_of;
use super::super::stmt::Running;
use super::super::Engine;

impl Engine<'_> {
    /// Whether `r` is a plain read that InnoDB runs as a locking read in share mode:
    /// SERIALIZABLE, autocommit off.
    pub(super) fn share_read(&self, actor: usize, r: &Running) -> bool {
        let op = &self.schedule.actors()[actor].program[r.op_index];
        matches!(op, Op::Read { .. })
            && !r.implicit
            && self.isolation(r.tx) == Isolation::Serializable
    }

    /// A consistent read of the op's seats through the statement's read view.
    pub(super) fn consistent_read(&mut self, r: &mut Running) -> StepResult {
        let t = self.db.txs[r.tx as usize];
        let view = match t.snap {
            Some(view) if t.iso != Isolation::ReadCommitted => view,
            _ => {
                let view = self.db.snapshot();
                if t.iso != Isolation::ReadCommitted {
                    self.db.txs[r.tx as usize].snap = Some(view);
                }
                view
            }
        };
        r.snap = view;
        for seat in seats_of(r.want) {
            r.rows.push((seat as u8, self.db.visible(seat, view, r.tx)));
        }
        StepResult::Ok {
            rows: Some(r.rows.len() as u64),
        }
    }
}
