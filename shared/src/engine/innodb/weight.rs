//! What a deadlock victim weighs (TRX_WEIGHT, as INNODB_TRX.trx_weight shows it): its undo
//! records plus its lock structs, table locks included, and the structs its waiting locks
//! gained each time another transaction rewrote the row they wait on elsewhere on the page.

use super::super::mvcc::{SeatVal, TxId};
use super::super::Engine;
use super::{lock, Inno};

impl Inno {
    /// TRX_WEIGHT: undo records plus lock structs (table locks included).
    pub(super) fn weight(&self, tx: TxId) -> usize {
        let t = tx as usize;
        let undo = self.undo.get(t).map_or(0, |&u| u as usize);
        let tables = self.tables.get(t).map_or(0, |&b| b.count_ones() as usize);
        let moved = self.moved.get(t).map_or(0, |&m| m as usize);
        undo + tables + moved + self.locks.structs(tx)
    }

    /// The index pages (a mask, as `Table::release` gives it) where `tx` has lock structs
    /// that no longer lock anything: those its waits left on the seats' page as the row moved.
    pub(super) fn moved_pages(&self, tx: TxId) -> u8 {
        let moved = self.moved.get(tx as usize).is_some_and(|&m| m > 0);
        u8::from(moved) << lock::Rec::Seat(0).index()
    }

    /// A seat's record changed size (an update, or its undo, that is not in place): InnoDB
    /// moves the locks on it to the page's infimum and back (lock_rec_store_on_page_infimum,
    /// lock_rec_restore_from_page_infimum), and each waiting lock gets a new struct each way,
    /// the old ones staying with their transactions until they end. A granted lock finds its
    /// own struct again. (Seen on MariaDB 10.11 in INNODB_TRX.trx_lock_structs, which grows by
    /// two for a waiter each time the row it waits on is rewritten.)
    pub(super) fn relocate(&mut self, seat: u8) {
        let waiters: Vec<TxId> = self
            .locks
            .list
            .iter()
            .filter(|l| l.rec == lock::Rec::Seat(seat) && l.waiting)
            .map(|l| l.tx)
            .collect();
        for tx in waiters {
            self.grow(tx);
            self.moved[tx as usize] += 2;
        }
    }
}

impl Engine<'_> {
    /// `actor`'s statement rewrites `seat`'s row elsewhere on the page (`relocate`). If the
    /// entry set it free with others, one of them that waits on the row now may, in the
    /// machine's order, have come to it only after the rewrite (and one that comes later may
    /// have come before it): the structs it gains, and so its weight in a deadlock, hang on
    /// which thread ran first, a race (`inno_wait` names the other order).
    pub(super) fn inno_moves(&mut self, actor: usize, seat: usize) {
        let resumed = self.inno.resumed;
        if resumed & (1 << actor) != 0 {
            let fellow = self.inno.locks.list.iter().any(|l| {
                l.waiting
                    && l.rec == lock::Rec::Seat(seat as u8)
                    && l.actor as usize != actor
                    && resumed & (1 << l.actor) != 0
            });
            if fellow {
                self.race();
            }
            self.inno.resized |= 1 << seat;
        }
        self.inno.relocate(seat as u8);
    }

    /// Whether writing `new` over `old` changes the record's size, so that InnoDB rewrites it
    /// elsewhere on the page rather than in place: a column's byte length, or whether it is
    /// NULL, changes (row_upd_changes_field_size_or_external).
    pub(super) fn resized(&self, old: SeatVal, new: SeatVal) -> bool {
        let names = &self.names;
        let size = |v: SeatVal| {
            (
                v.status.as_sql().len(),
                v.holder.map(|h| names.names[h as usize].len()),
                v.hold.map(|h| names.holds[h as usize].len()),
                v.until.is_some(),
            )
        };
        size(old) != size(new)
    }
}
