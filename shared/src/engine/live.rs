//! What the committed tables do not show after an entry: per seat, who holds its row lock,
//! who waits for it and in what order, and what an open transaction wrote to it or inserted
//! for it and has not committed. Read off the engine's state after each entry (it changes
//! nothing), kept in compact form in the entry's node, and rendered into `EntryTrace::locks`
//! for the page's seat map. PostgreSQL is only asked for committed rows, so the executor
//! leaves it empty.

use std::sync::Arc;

use crate::outcome::{PendingWrite, SeatLock};

use super::locks::WaitOn;
use super::mvcc::{SeatVal, Table, TxId};
use super::names::Names;
use super::Engine;

/// One seat beyond its committed row, in indices (actors index `Names::names`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LiveSeat {
    pub seat: u8,
    /// The actor whose open transaction holds the row lock.
    pub holder: Option<u8>,
    /// The actors waiting for this seat, first in line first.
    pub queue: Vec<u8>,
    /// The newest version of the row, written by an open transaction: (its actor, the row).
    pub write: Option<(u8, SeatVal)>,
    /// The actor whose open transaction inserted this seat's ticket.
    pub ticket: Option<u8>,
    /// On a username, the actors whose open transaction created an account of the name.
    pub accounts: Vec<u8>,
}

impl LiveSeat {
    fn is_empty(&self) -> bool {
        self.holder.is_none()
            && self.queue.is_empty()
            && self.write.is_none()
            && self.ticket.is_none()
            && self.accounts.is_empty()
    }

    pub fn render(&self, names: &Names) -> SeatLock {
        let name = |a: u8| names.names[a as usize].clone();
        SeatLock {
            seat: names.seats[self.seat as usize].clone(),
            holder: self.holder.map(name),
            queue: self.queue.iter().map(|&a| name(a)).collect(),
            write: self.write.map(|(by, val)| PendingWrite {
                by: name(by),
                status: val.status,
                holder: val.holder.map(name),
                until: val.until,
                value: names.take().map(|_| val.value),
            }),
            ticket: self.ticket.map(name),
            accounts: self.accounts.iter().map(|&a| name(a)).collect(),
        }
    }
}

/// The live state of every seat that has any, in seat order; shared between entries while it
/// does not change (`None` when there is none).
pub(crate) type Live = Option<Arc<[LiveSeat]>>;

impl Engine<'_> {
    /// The actor whose open transaction holds the row lock of `seat` now, if any (read from
    /// the lock table itself; the tests hold the trace's `locks` against it).
    pub fn lock_holder(&self, seat: &str) -> Option<&str> {
        let s = self.names.seats.iter().position(|id| id == seat)?;
        let tx = self.row_lock_holder(s).filter(|&t| self.db.is_active(t))?;
        Some(&self.names.names[self.db.txs[tx as usize].actor as usize])
    }

    /// The transaction holding the row lock of `seat`; on a username, whose accounts are
    /// locked one by one, the holder of one of them (`account_lock_holder`).
    fn row_lock_holder(&self, seat: usize) -> Option<TxId> {
        self.locks.holder[seat].or_else(|| self.account_lock_holder(seat))
    }

    /// The live state of the seats now, sharing `last` when it is the same.
    pub(super) fn live(&self, last: &Live) -> Live {
        let seats: Vec<LiveSeat> = (0..self.names.seats.len())
            .map(|s| self.live_seat(s))
            .filter(|l| !l.is_empty())
            .collect();
        match last {
            _ if seats.is_empty() => None,
            Some(prev) if **prev == *seats => last.clone(),
            _ => Some(seats.into()),
        }
    }

    fn live_seat(&self, seat: usize) -> LiveSeat {
        let actor = |t: TxId| self.db.txs[t as usize].actor;
        let open = |t: &TxId| self.db.is_active(*t);
        let newest = self.db.versions[self.db.newest[seat] as usize];
        let ticket = self
            .db
            .rows
            .iter()
            .find(|r| r.table == Table::Booking && r.seat as usize == seat && open(&r.xmin))
            .map(|r| actor(r.xmin));
        let accounts = self
            .db
            .rows
            .iter()
            .filter(|r| r.table == Table::User && r.seat as usize == seat && open(&r.xmin))
            .map(|r| actor(r.xmin))
            .collect();
        let innodb = self.innodb();
        let mut live = LiveSeat {
            seat: seat as u8,
            holder: self.row_lock_holder(seat).filter(open).map(actor),
            queue: if innodb { Vec::new() } else { self.queue(seat) },
            write: Some(newest.xmin)
                .filter(open)
                .map(|t| (actor(t), newest.val)),
            ticket,
            accounts,
        };
        if innodb {
            self.inno_live(seat, &mut live);
        }
        live
    }

    /// The actors whose statement waits for `seat`: the row lock's queue in its order, then
    /// those that wait for the end of the transaction updating the row or inserting its
    /// ticket, in the order their waits began.
    fn queue(&self, seat: usize) -> Vec<u8> {
        let mut waiting: Vec<(u8, u32, u8)> = self
            .locks
            .waits
            .iter()
            .enumerate()
            .filter(|&(a, _)| self.running[a].is_some())
            .filter_map(|(a, w)| {
                let w = w.as_ref()?;
                let (place, on) = match w.on {
                    WaitOn::Row(s, _) => (0, (s, w.queued)),
                    WaitOn::Account(acct) => (0, (acct.seat, w.queued)),
                    WaitOn::Update(s, _) => (1, (s, w.since)),
                    WaitOn::Xact(_) => {
                        let s = self.running[a].as_ref()?.pending?.0;
                        (1, (s, w.since))
                    }
                };
                (on.0 as usize == seat).then_some((place, on.1, a as u8))
            })
            .collect();
        waiting.sort_unstable();
        waiting.into_iter().map(|(_, _, a)| a).collect()
    }
}
