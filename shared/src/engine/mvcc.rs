//! Row versions, transactions, snapshots and visibility: the MVCC half of the model.
//!
//! Every table is a `Vec` of versions stamped with the transaction that created them. Commits
//! are atomic events numbered in order, so a snapshot is simply "the commits numbered up to
//! `cseq`" plus the oldest running xid (`xmin`, which only SERIALIZABLE bookkeeping reads).
//! A transaction's row versions vanish the moment it aborts, as its locks do. This file keeps
//! the stored data and writes it; what a snapshot sees of it is `visibility`'s.

mod visibility;

use crate::schedule::{Isolation, SeatStatus};

/// Index of a transaction in `Db::txs`.
pub(crate) type TxId = u16;
/// Index of a seat version in `Db::versions`.
pub(crate) type VerId = u16;
/// The transaction that created the scenario's rows (committed before anything else).
pub(crate) const BOOTSTRAP: TxId = 0;
/// Reads as nobody: sees exactly the committed rows.
pub(crate) const NOBODY: TxId = TxId::MAX;

/// One stored seat row. `holder` indexes the names, `hold` the hold ids (see `Names`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SeatVal {
    pub status: SeatStatus,
    pub holder: Option<u8>,
    pub hold: Option<u16>,
    pub until: Option<i64>,
    /// A counter's value (`Shape`); 0 on a seat.
    pub value: i64,
}

impl SeatVal {
    pub const FREE: SeatVal = SeatVal {
        status: SeatStatus::Available,
        holder: None,
        hold: None,
        until: None,
        value: 0,
    };
}

/// A version of a seat row; `prev` is the version it replaced.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Version {
    pub val: SeatVal,
    pub xmin: TxId,
    pub prev: Option<VerId>,
}

/// A row of one of the small tables (`booking_seats`, `hold_attempts`, `payments`,
/// `refund_outbox`), none of which is ever updated or deleted.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Row {
    pub table: Table,
    pub xmin: TxId,
    /// booking: its seat.
    pub seat: u8,
    pub holder: u8,
    pub hold: u16,
    /// attempt: its seats; payment: 1 if issued.
    pub mask: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Table {
    /// `booking_seats`, and a username scenario's `usernames` (its key the name).
    Booking,
    /// A username scenario's `users`: an account of the name `seat`, by `holder` (no key on
    /// the name).
    User,
    Attempt,
    Payment,
    Refund,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TxState {
    Active,
    Committed,
    Aborted,
}

/// A snapshot: the commits it sees, and the oldest xid running when it was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Snap {
    pub cseq: u32,
    pub xmin: u32,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Tx {
    pub actor: u8,
    pub iso: Isolation,
    pub state: TxState,
    /// The transaction snapshot of REPEATABLE READ / SERIALIZABLE, once taken.
    pub snap: Option<Snap>,
    /// Assigned at the first write or row lock, as PostgreSQL assigns xids.
    pub xid: Option<u32>,
    /// Its SERIALIZABLE bookkeeping, when it is one.
    pub sx: Option<u16>,
    /// Its number in the commit order, once committed.
    pub commit: u32,
}

/// The stored data: versions of every row, and the transactions that wrote them.
#[derive(Debug)]
pub(crate) struct Db {
    pub txs: Vec<Tx>,
    pub versions: Vec<Version>,
    /// Per seat: its newest version (possibly uncommitted, by the row lock's holder).
    pub newest: Vec<VerId>,
    pub rows: Vec<Row>,
    pub commit_seq: u32,
    pub next_xid: u32,
}

clone_reusing!(Db {
    txs,
    versions,
    newest,
    rows,
    commit_seq,
    next_xid,
});

impl Db {
    /// The scenario's rows, created by the bootstrap transaction: its seats, and a ticket for
    /// each seat that starts BOOKED (its booking id is the holder's initial hold id).
    pub fn new(initial: &[SeatVal]) -> Db {
        let boot = Tx {
            actor: u8::MAX,
            iso: Isolation::ReadCommitted,
            state: TxState::Committed,
            snap: None,
            xid: Some(2),
            sx: None,
            commit: 0,
        };
        let versions: Vec<Version> = initial
            .iter()
            .map(|&val| Version {
                val,
                xmin: BOOTSTRAP,
                prev: None,
            })
            .collect();
        // A username taken at the start (value 1, its holder the name itself) has its claim in
        // `usernames`; its account is the value.
        let taken =
            |v: &SeatVal| v.status == SeatStatus::Available && v.value == 1 && v.holder.is_some();
        let rows = initial
            .iter()
            .enumerate()
            .filter(|(_, v)| v.status == SeatStatus::Booked || taken(v))
            .filter_map(|(seat, v)| {
                Some(Row {
                    table: Table::Booking,
                    xmin: BOOTSTRAP,
                    seat: seat as u8,
                    holder: v.holder?,
                    hold: v.hold?,
                    mask: 0,
                })
            })
            .collect();
        Db {
            txs: vec![boot],
            newest: (0..versions.len() as VerId).collect(),
            versions,
            rows,
            commit_seq: 0,
            next_xid: 1000,
        }
    }

    pub fn begin(&mut self, actor: usize, iso: Isolation) -> TxId {
        self.txs.push(Tx {
            actor: actor as u8,
            iso,
            state: TxState::Active,
            snap: None,
            xid: None,
            sx: None,
            commit: 0,
        });
        (self.txs.len() - 1) as TxId
    }

    pub fn assign_xid(&mut self, tx: TxId) {
        let t = &mut self.txs[tx as usize];
        if t.xid.is_none() {
            t.xid = Some(self.next_xid);
            self.next_xid += 1;
        }
    }

    pub fn is_active(&self, tx: TxId) -> bool {
        self.txs[tx as usize].state == TxState::Active
    }

    /// Writes a new version of `seat` over its newest one (the caller holds the row lock).
    pub fn update(&mut self, seat: usize, tx: TxId, val: SeatVal) {
        let prev = self.newest[seat];
        self.versions.push(Version {
            val,
            xmin: tx,
            prev: Some(prev),
        });
        self.newest[seat] = (self.versions.len() - 1) as VerId;
    }

    pub fn insert(&mut self, row: Row) {
        self.rows.push(row);
    }

    pub fn commit(&mut self, tx: TxId) {
        self.commit_seq += 1;
        let t = &mut self.txs[tx as usize];
        t.state = TxState::Committed;
        t.commit = self.commit_seq;
    }

    /// Aborts `tx`: its row versions and rows are gone at once.
    pub fn abort(&mut self, tx: TxId) {
        self.txs[tx as usize].state = TxState::Aborted;
        for seat in 0..self.newest.len() {
            while self.versions[self.newest[seat] as usize].xmin == tx {
                self.newest[seat] = self.versions[self.newest[seat] as usize]
                    .prev
                    .expect("a version below");
            }
        }
        self.rows.retain(|r| r.xmin != tx);
    }
}
