//! What a transaction sees: snapshots, the visibility of a row version to a reader, the update
//! chain between versions, and the committed rows a fresh statement reads.

use super::{Db, Row, SeatVal, Snap, Table, TxId, TxState, VerId, NOBODY};

impl Db {
    /// A snapshot taken now: every commit so far, and the oldest running xid.
    pub fn snapshot(&self) -> Snap {
        let running = self
            .txs
            .iter()
            .filter(|t| t.state == TxState::Active)
            .filter_map(|t| t.xid);
        Snap {
            cseq: self.commit_seq,
            xmin: running.min().unwrap_or(self.next_xid),
        }
    }

    /// Whether `creator`'s changes are visible to `me` reading with `snap`.
    pub fn sees(&self, creator: TxId, snap: Snap, me: TxId) -> bool {
        let t = &self.txs[creator as usize];
        creator == me || (t.state == TxState::Committed && t.commit <= snap.cseq)
    }

    /// The version of `seat` that `me` sees with `snap`.
    pub fn visible(&self, seat: usize, snap: Snap, me: TxId) -> VerId {
        let mut v = self.newest[seat];
        loop {
            let ver = &self.versions[v as usize];
            if self.sees(ver.xmin, snap, me) {
                return v;
            }
            v = ver
                .prev
                .expect("the scenario's version is visible to everyone");
        }
    }

    /// The version that replaced `v`, if any.
    pub fn successor(&self, seat: usize, v: VerId) -> Option<VerId> {
        let mut cur = self.newest[seat];
        while cur != v {
            let prev = self.versions[cur as usize].prev?;
            if prev == v {
                return Some(cur);
            }
            cur = prev;
        }
        None
    }

    /// Whether version `v` of `seat` was replaced by a committed update (TM_Updated).
    pub fn replaced(&self, seat: usize, v: VerId) -> bool {
        self.successor(seat, v)
            .is_some_and(|s| !self.is_active(self.versions[s as usize].xmin))
    }

    /// The newest committed version of `seat`: what a fresh statement reads.
    pub fn committed(&self, seat: usize) -> SeatVal {
        let snap = Snap {
            cseq: self.commit_seq,
            xmin: 0,
        };
        self.versions[self.visible(seat, snap, NOBODY) as usize].val
    }

    /// `committed`, a username's value its accounts: the scenario's and the committed
    /// inserts since.
    pub fn committed_shown(&self, seat: usize) -> SeatVal {
        let mut v = self.committed(seat);
        v.value += self
            .rows(Table::User, self.latest(), NOBODY)
            .filter(|r| r.seat as usize == seat)
            .count() as i64;
        v
    }

    pub fn val(&self, v: VerId) -> SeatVal {
        self.versions[v as usize].val
    }

    /// The rows of `table` that `me` sees with `snap`.
    pub fn rows<'a>(
        &'a self,
        table: Table,
        snap: Snap,
        me: TxId,
    ) -> impl Iterator<Item = &'a Row> + 'a {
        self.rows
            .iter()
            .filter(move |r| r.table == table && self.sees(r.xmin, snap, me))
    }

    /// A snapshot that sees every commit so far (a fresh READ COMMITTED statement's view).
    pub fn latest(&self) -> Snap {
        Snap {
            cseq: self.commit_seq,
            xmin: 0,
        }
    }
}
