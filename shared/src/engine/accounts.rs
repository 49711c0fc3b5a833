//! A username on PostgreSQL (each rule run on PostgreSQL 15 first: the `username-*` cases of
//! `tests/model/`): the accounts of a name are rows of `users`, whose index on the name is not
//! unique.
//!
//! - `read` counts the accounts its snapshot sees; nothing waits for an insert that is not
//!   committed, so two checks both find the name free.
//! - `lock` (`for update`) locks the accounts it sees, and locks nothing where there are none:
//!   two lockers of a free name both pass. The accounts of a name are locked as one row (the
//!   scenario's seat row): accounts are never updated or deleted, so every locker of a name
//!   that sees any committed account sees its oldest and queues there first. A locker that
//!   sees only accounts its own transaction inserted waits for no one: no other transaction
//!   sees them, so none holds a lock on them (two that each created the name and then lock it
//!   both pass).
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

use super::mvcc::{Row, Table, TxId};
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

    /// A username's `lock`: nothing to lock if its snapshot sees no account; else the name's
    /// accounts, locked as one row, a row returned per account.
    pub(super) fn lock_accounts(&mut self, actor: usize, r: &mut Running) -> Poll {
        let seat = r.want.trailing_zeros() as usize;
        if r.todo != 0 && r.pending.is_none() && r.accounts == 0 {
            match self.accounts_seen(r, seat) {
                Ok(0) => {
                    return Poll::Done(StepResult::Ok { rows: Some(0) });
                }
                Ok(n) if n == self.own_accounts(r.tx, seat) => {
                    // Only its own accounts, which no other transaction sees: nobody holds a
                    // lock on them, and it waits for no one.
                    let v = self.db.visible(seat, r.snap, r.tx);
                    r.rows = vec![(seat as u8, v); n as usize];
                    r.facts.push(seat as u8, Fact::Took);
                    r.todo = 0;
                    return Poll::Done(StepResult::Ok {
                        rows: Some(n as u64),
                    });
                }
                Ok(n) => r.accounts = n,
                Err(e) => return Poll::Done(e),
            }
        }
        match self.visit_all(actor, r) {
            Poll::Done(StepResult::Ok { .. }) => {
                let v = r.rows.first().map(|&(_, v)| v).unwrap_or_default();
                r.rows = vec![(seat as u8, v); r.accounts as usize];
                Poll::Done(StepResult::Ok {
                    rows: Some(r.accounts as u64),
                })
            }
            other => other,
        }
    }

    /// How many accounts of the name `seat` transaction `tx` inserted.
    fn own_accounts(&self, tx: TxId, seat: usize) -> u32 {
        self.db
            .rows
            .iter()
            .filter(|row| row.table == Table::User && row.seat as usize == seat && row.xmin == tx)
            .count() as u32
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
