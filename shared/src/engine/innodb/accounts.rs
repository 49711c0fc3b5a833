//! A username on InnoDB (each rule run on MariaDB 10.11 first: the `innodb-username-*` cases of
//! `tests/model/`): the accounts of the name are records of `users`' index on the name, which
//! is not unique; each account is its own record (`Rec::Account`, the scenario's `0`), after
//! them the index's supremum (`Rec::AccountEnd`: the scenario has one name).
//!
//! - A plain read is a consistent read (the read view's accounts); under SERIALIZABLE inside a
//!   transaction a locking read in share mode.
//! - A locking read (`for update`, or that share-mode read) locks every account record of the
//!   name, and under REPEATABLE READ and SERIALIZABLE the gap before each and the supremum after
//!   them (next-key locks): on a free name it locks the gap alone, which never makes another
//!   locker wait, so two both pass. READ COMMITTED locks the records alone: nothing on a free
//!   name. An account another transaction inserted and has not committed is locked by it
//!   (its implicit lock made explicit), and the locker waits for it. An account the locker's
//!   own transaction inserted is passed with no lock asked for, its gap included: it waits for
//!   nobody there, not even for a locker queued on it (MariaDB, unlike MySQL 8, returns before
//!   asking whatever the gap mode). Every other account a `lock` (FOR UPDATE) locks, it then
//!   locks in `users`' clustered index too (`Rec::AccountRow`), a struct more in its weight; a
//!   shared read does not.
//! - `write` inserts an account at the end of the name's records: an insert intention on the
//!   supremum's gap, which waits for another transaction's gap or next-key lock there. Two that
//!   locked the gap and then both insert wait on each other: a deadlock (1213).
//! - `book` and `claim` are `unique.rs`'s insert into `usernames`; `claim` (`insert ignore`) ends
//!   where a duplicate is 1062, with 0 rows and its shared lock on the record kept.

use crate::outcome::StepResult;
use crate::schedule::Isolation;

use super::super::mvcc::{Row, Table, TxId};
use super::super::ops::Poll;
use super::super::stmt::{Fact, Running};
use super::super::Engine;
use super::lock::{Mode, Rec, Span};
use super::{IS_ACCOUNTS, IX_ACCOUNTS};

impl Engine<'_> {
    /// The name's account records in index order (the scenario's first, then by id), each with
    /// the transaction that inserted it (`None`: the scenario's).
    fn account_records(&self, seat: usize) -> Vec<(Rec, Option<TxId>)> {
        let mut recs = Vec::new();
        if self.names.initial[seat].value > 0 {
            recs.push((Rec::Account(0), None));
        }
        let mut rows: Vec<&Row> = self
            .db
            .rows
            .iter()
            .filter(|r| r.table == Table::User && r.seat as usize == seat)
            .collect();
        rows.sort_by_key(|r| r.mask);
        recs.extend(
            rows.iter()
                .map(|r| (Rec::Account(r.mask as u16), Some(r.xmin))),
        );
        recs
    }

    /// A username's `read` or `lock` on InnoDB.
    pub(super) fn inno_accounts(&mut self, actor: usize, r: &mut Running) -> Poll {
        let seat = r.want.trailing_zeros() as usize;
        let share = self.share_read(actor, r);
        let op = &self.schedule.actors()[actor].program[r.op_index];
        if matches!(op, crate::schedule::Op::Read { .. }) && !share {
            // A consistent read: the accounts its read view sees.
            let _ = self.consistent_read(r);
            let seen = self.names.initial[seat].value as usize
                + self
                    .db
                    .rows
                    .iter()
                    .filter(|row| row.table == Table::User && row.seat as usize == seat)
                    .filter(|row| self.db.sees(row.xmin, r.snap, r.tx))
                    .count();
            let v = self.db.newest[seat];
            r.rows = vec![(seat as u8, v); seen];
            return Poll::Done(StepResult::Ok {
                rows: Some(seen as u64),
            });
        }
        let mode = if share { Mode::S } else { Mode::X };
        let gaps = self.isolation(r.tx) != Isolation::ReadCommitted;
        let span = if gaps { Span::NextKey } else { Span::Record };
        self.inno
            .table_lock(r.tx, if share { IS_ACCOUNTS } else { IX_ACCOUNTS });
        r.pending = None;
        let mut locked = 0;
        for (rec, inserter) in self.account_records(seat) {
            if inserter == Some(r.tx) {
                // Its own account, not committed yet: the implicit lock of its insert is all it
                // needs, and it asks for no lock on the record or its gap, so waits for none
                // (lock_sec_rec_read_check_and_lock returns at once).
                locked += 1;
                continue;
            }
            if let Some(owner) = inserter.filter(|&o| o != r.tx && self.db.is_active(o)) {
                if !self.inno.locks.holds(owner, rec, Mode::X, Span::Record) {
                    // The inserter's implicit lock on its record becomes explicit.
                    let a = self.db.txs[owner as usize].actor as usize;
                    self.inno.locks.grant(owner, a, rec, Mode::X, Span::Record);
                }
            }
            if let Some(done) = self.inno_lock_rec(actor, r.tx, rec, mode, span) {
                return done;
            }
            // FOR UPDATE fetches the whole row (build_template's whole_row for an X lock), so
            // it locks the account's row in the clustered index too, the record alone: a lock
            // struct of another page, which weighs in a deadlock (it never waits: whoever holds
            // the row holds its record in the index on the name first). A shared read is
            // answered from the index on the name alone.
            let Rec::Account(id) = rec else {
                unreachable!("an account's record")
            };
            if mode == Mode::X
                && !self
                    .inno
                    .locks
                    .holds(r.tx, Rec::AccountRow(id), mode, Span::Record)
            {
                self.inno
                    .locks
                    .grant(r.tx, actor, Rec::AccountRow(id), mode, Span::Record);
            }
            locked += 1;
        }
        if gaps {
            if let Some(done) = self.inno_lock_rec(actor, r.tx, Rec::AccountEnd, mode, span) {
                return done;
            }
        } else {
            // READ COMMITTED locks no gap, but its scan passed the end of the name's accounts:
            // an insert set free with it that had run first would have been met there.
            self.inno_contend(actor, Rec::AccountEnd, mode);
        }
        let v = self.db.newest[seat];
        r.rows = vec![(seat as u8, v); locked];
        r.facts.push(seat as u8, Fact::Took);
        r.todo = 0;
        Poll::Done(StepResult::Ok {
            rows: Some(locked as u64),
        })
    }

    /// Takes `mode`/`span` on `rec` for `tx` unless it holds it: `None` once it has it, or
    /// the wait (or the deadlock) it meets.
    fn inno_lock_rec(
        &mut self,
        actor: usize,
        tx: TxId,
        rec: Rec,
        mode: Mode,
        span: Span,
    ) -> Option<Poll> {
        if self.inno.locks.holds(tx, rec, mode, span)
            || self.inno.locks.holds(tx, rec, Mode::X, span)
        {
            return None;
        }
        self.inno_contend(actor, rec, mode);
        if self.inno.locks.conflict(tx, rec, mode, span).is_none() {
            self.inno
                .locks
                .grant_before_waiting(tx, actor, rec, mode, span);
            return None;
        }
        Some(
            self.inno_wait(actor, tx, rec, mode, span)
                .map_or(Poll::Wait, Poll::Done),
        )
    }

    /// A username's `write`: an account inserted at the end of the name's records, after an
    /// insert intention on the supremum's gap. An insert whose intention waited and was granted
    /// is tried again from the start (row_ins_sec_index_entry after the lock wait): it checks
    /// the gap again, and waits again for a gap lock that a statement set free with it took
    /// there first (`inno_wait` names that race).
    pub(super) fn inno_insert_account(&mut self, actor: usize, r: &mut Running) -> Poll {
        // Only a username's write is an account: never without the `shapes` feature.
        if !crate::schedule::SHAPES {
            unreachable!("an account is inserted only on a username");
        }
        let seat = r.want.trailing_zeros() as usize;
        self.inno.table_lock(r.tx, IX_ACCOUNTS);
        let retried = r.pending.take().is_some();
        if !retried {
            // The row goes into the clustered index first: its undo record is written before
            // the name's index is reached, so a wait there weighs it.
            self.inno.add_undo(r.tx);
        }
        if self
            .inno
            .locks
            .conflict(r.tx, Rec::AccountEnd, Mode::X, Span::Insert)
            .is_some()
        {
            r.pending = Some((seat as u8, 0, true));
            return self
                .inno_wait(actor, r.tx, Rec::AccountEnd, Mode::X, Span::Insert)
                .map_or(Poll::Wait, Poll::Done);
        }
        if retried {
            // Set free with others: one of them that locks the gap after this insert would,
            // had its thread run first, have made it wait again (`inno_contend`).
            self.inno_contend(actor, Rec::AccountEnd, Mode::X);
        }
        // A granted insert intention that had waited stays the transaction's until it ends.
        let id = self
            .db
            .rows
            .iter()
            .filter(|row| row.table == Table::User)
            .map(|row| row.mask)
            .max()
            .unwrap_or(0)
            + 1;
        // The new record takes on the gap locks of the supremum after it.
        let gaps: Vec<_> = self
            .inno
            .locks
            .list
            .iter()
            .filter(|l| l.rec == Rec::AccountEnd && !l.waiting && l.span != Span::Insert)
            .map(|l| (l.tx, l.actor, l.mode))
            .collect();
        for (tx, a, mode) in gaps {
            self.inno
                .locks
                .grant(tx, a as usize, Rec::Account(id as u16), mode, Span::Gap);
        }
        self.db.insert(Row {
            table: Table::User,
            xmin: r.tx,
            seat: seat as u8,
            holder: actor as u8,
            hold: 0,
            mask: id,
        });
        r.count += 1;
        r.facts.push(seat as u8, Fact::Took);
        r.todo = 0;
        Poll::Done(StepResult::Ok { rows: Some(1) })
    }

    /// `tx`'s accounts leave the index (it rolled back): the locks on each pass to the gap
    /// before the next record, and the waits for them end, to be tried again.
    pub(super) fn remove_accounts(&mut self, tx: TxId) {
        let mine: Vec<u64> = self
            .db
            .rows
            .iter()
            .filter(|row| row.table == Table::User && row.xmin == tx)
            .map(|row| row.mask)
            .collect();
        for id in mine {
            let rec = Rec::Account(id as u16);
            let heir = self
                .db
                .rows
                .iter()
                .filter(|row| row.table == Table::User && row.mask > id)
                .map(|row| row.mask)
                .min()
                .map_or(Rec::AccountEnd, |m| Rec::Account(m as u16));
            let on: Vec<_> = self
                .inno
                .locks
                .list
                .iter()
                .filter(|l| l.rec == rec)
                .map(|l| (l.tx, l.actor, l.mode, l.span, l.waiting))
                .collect();
            // lock_rec_inherit_to_gap: waiting locks too, and under READ COMMITTED only S.
            for &(t, a, mode, span, _) in &on {
                let rc = self.isolation(t) == Isolation::ReadCommitted;
                if span != Span::Insert && (!rc || mode == Mode::S) {
                    self.inno.locks.grant(t, a as usize, heir, mode, Span::Gap);
                }
            }
            self.inno.locks.list.retain(|l| l.rec != rec);
            for &(_, a, _, _, waiting) in &on {
                if waiting {
                    self.inno_wait_ends(a as usize);
                    self.inno.woken.push(a as usize);
                }
            }
        }
    }
}
