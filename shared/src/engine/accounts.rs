//! A username on PostgreSQL (each rule run on PostgreSQL 15 first: the `username-*` cases of
//! `tests/model/`): the accounts of a name are rows of `users`, whose index on the name is not
//! unique.
//!
//! - `read` counts the accounts its snapshot sees; nothing waits for an insert that is not
//!   committed, so two checks both find the name free.
//! - `lock` (`for update`) locks the accounts it sees, and locks nothing where there are none:
//!   two lockers of a free name both pass. `order by user_id` puts the locking above the sort:
//!   the scan finds every account its snapshot sees first, then each is locked in user_id order
//!   (the scenario's account first, then the others in the order they were inserted), each
//!   with a row lock and a queue of its own (`locks::Account`), waiting where another
//!   transaction holds it. Lockers that saw different accounts lock different rows: one that
//!   saw only a newer account holds it alone, and one that sees the older too locks that one
//!   first, then waits for the newer; if the first then locks again, it waits for the older,
//!   and the two deadlock. An account is never updated or deleted, so a wait for one ends with
//!   the lock, under every isolation level. Its own uncommitted accounts no other transaction
//!   sees, so none holds a lock on them: a locker takes them without waiting (two that each
//!   created the name and then lock it both pass).
//! - `write` inserts an account: nothing to wait for, no key to refuse it.
//! - SERIALIZABLE: a read (or lock) of the name takes a SIREAD lock on the page of the index
//!   where the name would be (one page: the whole index), and an insert into it by another
//!   serializable transaction is a rw-conflict from the reader to the inserter; a read that
//!   does not see a concurrent serializable transaction's account is one from the reader to it
//!   (`Ssi::read_accounts`, `Ssi::insert_account`). Two that check and then create: the second
//!   commit (or the second insert, if the first had committed) fails with 40001.
//! - `claim` (`on conflict do nothing`) is `unique.rs`'s insert: it waits for an uncommitted
//!   claim of the name, then inserts (that one rolled back) or answers 0 rows; under REPEATABLE
//!   READ and SERIALIZABLE a claim its snapshot does not see is 40001 instead.

use crate::outcome::StepResult;

use super::locks::{Account, WaitOn};
use super::mvcc::{Row, Table, TxId, BOOTSTRAP};
use super::ops::Poll;
use super::stmt::{rw_dependencies, Fact, Running};
use super::Engine;

impl Engine<'_> {
    /// The accounts of the name `seat` that `r`'s snapshot sees (the scenario's and those
    /// inserted since), with SERIALIZABLE's bookkeeping of the index scan.
    pub(super) fn accounts_seen(&mut self, r: &Running, seat: usize) -> Result<u32, StepResult> {
        let v = self.db.visible(seat, r.snap, r.tx);
        let mut seen = self.db.val(v).value as u32;
        let mut unseen: Vec<TxId> = Vec::new();
        for row in self
            .db
            .rows
            .iter()
            .filter(|row| row.table == Table::User && row.seat as usize == seat)
        {
            if self.db.sees(row.xmin, r.snap, r.tx) {
                seen += 1;
            } else {
                unseen.push(row.xmin);
            }
        }
        if let Some(me) = self.db.txs[r.tx as usize].sx {
            let writers: Vec<_> = unseen
                .iter()
                .filter_map(|&t| self.db.txs[t as usize].sx)
                .collect();
            self.ssi
                .read_accounts(me, &writers)
                .map_err(|_| rw_dependencies())?;
        }
        Ok(seen)
    }

    /// A username's `read`: a row per account its snapshot sees.
    pub(super) fn read_accounts(&mut self, r: &mut Running) -> StepResult {
        let seat = r.want.trailing_zeros() as usize;
        match self.accounts_seen(r, seat) {
            Ok(n) => {
                let v = self.db.visible(seat, r.snap, r.tx);
                r.rows = vec![(seat as u8, v); n as usize];
                StepResult::Ok {
                    rows: Some(n as u64),
                }
            }
            Err(e) => e,
        }
    }

    /// A username's `lock`: the scan and the sort find the accounts its snapshot sees (none:
    /// nothing to lock); then each is locked in user_id order, waiting for it where another
    /// transaction holds it or queues for it ahead; a row returned per account. (`count`: the
    /// accounts locked so far.)
    pub(super) fn lock_accounts(&mut self, actor: usize, r: &mut Running) -> Poll {
        let seat = r.want.trailing_zeros() as usize;
        if r.todo != 0 {
            match self.accounts_seen(r, seat) {
                Ok(n) => r.accounts = n,
                Err(e) => return Poll::Done(e),
            }
            r.todo = 0;
        }
        while r.count < r.accounts {
            let a = self
                .accounts_of(seat)
                .filter(|a| self.db.sees(a.xmin, r.snap, r.tx))
                .nth(r.count as usize)
                .expect("the accounts its snapshot saw");
            if !self.lock_account(actor, r, a) {
                return Poll::Wait;
            }
            r.count += 1;
        }
        if r.accounts > 0 {
            r.facts.push(seat as u8, Fact::Took);
        }
        let v = self.db.visible(seat, r.snap, r.tx);
        r.rows = vec![(seat as u8, v); r.accounts as usize];
        Poll::Done(StepResult::Ok {
            rows: Some(r.accounts as u64),
        })
    }

    /// Every account of the name `seat`, committed or not, in user_id order: the scenario's
    /// first, then those inserted since, in the order they were.
    fn accounts_of(&self, seat: usize) -> impl Iterator<Item = Account> + '_ {
        let initial = self.db.val(self.db.newest[seat]).value.max(0) as u8;
        let seeded = (0..initial).map(move |k| Account {
            seat: seat as u8,
            xmin: BOOTSTRAP,
            k,
        });
        let users = move |row: &&Row| row.table == Table::User && row.seat as usize == seat;
        let inserted = self
            .db
            .rows
            .iter()
            .filter(users)
            .enumerate()
            .map(move |(i, row)| {
                let before = self.db.rows.iter().filter(users).take(i);
                Account {
                    seat: seat as u8,
                    xmin: row.xmin,
                    k: before.filter(|b| b.xmin == row.xmin).count() as u8,
                }
            });
        seeded.chain(inserted)
    }

    /// Locks account `a` for `r`, or queues for it: false if it waits. Its own uncommitted
    /// account no other transaction sees, so none holds a lock on it: it takes it at once.
    fn lock_account(&mut self, actor: usize, r: &mut Running, a: Account) -> bool {
        if a.xmin == r.tx {
            return true;
        }
        let k = self.log.len();
        let woken_now = r.woken_in == Some(k);
        let on = WaitOn::Account(a);
        let resumed = r.woken.is_some_and(|w| w.on == on);
        if !resumed && woken_now && self.locks.account_locked_by_woken(a) {
            // Woken by this entry's commit or rollback while waiting for another account, it
            // comes to one that a statement woken by the same commit took first in the model:
            // in PostgreSQL both run at once, and either may get it.
            self.race();
        }
        if self.locks.account_contended(a, r.tx, r.woken.as_ref()) {
            if self.locks.account_holder(a).is_none() {
                // Nobody holds it: its woken head has not run yet. PostgreSQL races here.
                self.race();
            }
            self.locks
                .enqueue_account(actor, a, r.woken.take(), &self.db);
            return false;
        }
        self.locks.take_account(a, r.tx, woken_now);
        self.db.assign_xid(r.tx);
        // It lets go of the tuple lock once it has locked the account.
        self.leave_queue(r);
        true
    }

    /// The transaction the page shows holding the name `seat`'s lock: the holder of its
    /// oldest account that someone queues for, else of its oldest locked account.
    pub(super) fn account_lock_holder(&self, seat: usize) -> Option<TxId> {
        if !self.locks.any_account_locked() {
            return None;
        }
        let queued = |a: Account| {
            self.locks
                .waits
                .iter()
                .flatten()
                .any(|w| w.on == WaitOn::Account(a))
        };
        let held = || {
            self.accounts_of(seat)
                .filter_map(|a| self.locks.account_holder(a).map(|h| (a, h)))
        };
        held()
            .find(|&(a, _)| queued(a))
            .or_else(|| held().next())
            .map(|(_, h)| h)
    }

    /// A username's `write`: `insert into users`, which nothing refuses or waits for.
    pub(super) fn insert_account(&mut self, r: &mut Running, holder: u8) -> Poll {
        // Only a username's write is an account: never without the `shapes` feature.
        if !crate::schedule::SHAPES {
            unreachable!("an account is inserted only on a username");
        }
        let seat = r.want.trailing_zeros() as usize;
        if let Some(me) = self.db.txs[r.tx as usize].sx {
            if self.ssi.insert_account(me).is_err() {
                return Poll::Done(rw_dependencies());
            }
        }
        self.db.assign_xid(r.tx);
        self.db.insert(Row {
            table: Table::User,
            xmin: r.tx,
            seat: seat as u8,
            holder,
            hold: 0,
            mask: 0,
        });
        r.count += 1;
        r.facts.push(seat as u8, Fact::Took);
        r.todo = 0;
        Poll::Done(StepResult::Ok { rows: Some(1) })
    }
}
