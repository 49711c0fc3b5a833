//! The InnoDB model (MariaDB 10.11; MySQL 8's differences noted where they matter): the same
//! operations, schedule and trace as the PostgreSQL model, on the engine's skeleton (clients,
//! names, row versions, trace, settle loop), with InnoDB's rules where they differ. Every rule
//! here was checked on a MariaDB 10.11 server with several sessions (the model's fixtures
//! `tests/model/innodb-*.json` are those sessions).
//!
//! - Reads: a plain SELECT is a consistent read through a read view, made at the transaction's
//!   first consistent read under REPEATABLE READ (not at START TRANSACTION), per statement under
//!   READ COMMITTED; under SERIALIZABLE, inside a transaction, InnoDB turns it into a locking
//!   read in share mode (S locks). Outside a `begin` a statement runs in autocommit at the
//!   session's level, REPEATABLE READ (the executor sets InnoDB's default).
//! - Locking reads and UPDATEs lock each row, wait for it, and then read its NEWEST committed
//!   version: no serialization failure, so a second writer under REPEATABLE READ overwrites.
//! - Rows an UPDATE examines stay locked until the transaction ends under REPEATABLE READ and
//!   SERIALIZABLE, matching or not; READ COMMITTED unlocks a row it did not change. A READ
//!   COMMITTED scan (release, sweep) reads a row another transaction locks "semi-consistently":
//!   its last committed version, and passes it by without waiting if that does not match. A
//!   lookup of listed seats waits like any locking read (semi-consistency is for scans only).
//! - Deadlocks are found the moment a wait closes a cycle, and the lightest transaction of the
//!   cycle (`weight`) is rolled back whole (1213): `deadlock`; a cycle that locks going closes
//!   is found when the transaction that let them go ends (`check`). Every other error (1062,
//!   1205) undoes only its statement; the transaction, its earlier writes and all its locks
//!   stay (`end`).
//! - The clock is a parameter of each statement, read when it is sent (MySQL's NOW() is the
//!   start of the calling statement): `now: evaluation` reads as the statement's start.
//! - The ticket insert and its unique key, with InnoDB's gap locks: `unique`.
//!
//! - MySQL 8 differs where the model does not follow it: NOWAIT answers 3572, not 1205; a
//!   released lock goes to the waiter that CATS prefers (the oldest transaction), not the first
//!   in the queue; deadlocks are found by a background thread, and performance_schema's
//!   data_lock_waits replaces INNODB_LOCK_WAITS.
//! - `hold` runs the procedure `hold_seats` (`funcs`), `confirm` the procedure `confirm_hold`
//!   (`confirm`).

mod accounts;
mod check;
mod confirm;
mod deadlock;
mod end;
mod funcs;
pub(crate) mod lock;
mod read;
mod report;
mod rows;
mod unique;
mod weight;

use crate::outcome::StepResult;
use crate::schedule::{Database, Isolation, Op};

use super::mvcc::TxId;
use super::ops::{Cx, Poll};
use super::stmt::{Facts, Kind, Running, Upd};
use super::trace::Events;
use super::Engine;
use lock::Table;

/// Table locks a transaction holds: each is a lock struct of its own, counted in its weight.
const IS_SEATS: u8 = 1;
const IX_SEATS: u8 = IS_SEATS << 1;
const IX_TICKETS: u8 = 4;
const IS_PAY: u8 = 8;
const IX_PAY: u8 = IS_PAY << 1;
const IX_REFUND: u8 = 32;
/// A username's `users` (accounts), and its `usernames` shares the tickets' bit. A
/// SERIALIZABLE read of the accounts takes IS, a locking read or an insert IX: a transaction
/// that read and then creates holds both, two structs.
const IX_ACCOUNTS: u8 = 64;
const IS_ACCOUNTS: u8 = 128;

/// What a statement changed, to undo it alone (a statement rollback).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct StmtUndo {
    /// Seats it wrote a version of.
    pub wrote: u64,
    /// Seats it inserted a ticket for.
    pub inserted: u64,
    /// The transaction's undo records before it.
    pub undo_before: u32,
}

/// InnoDB's state besides the rows: its locks, each transaction's weight, who waits for whom.
#[derive(Debug, Default)]
pub(crate) struct Inno {
    pub locks: Table,
    /// Per transaction (`TxId`): undo records written, table locks held.
    undo: Vec<u32>,
    tables: Vec<u8>,
    /// Lock structs made for its waiting locks when another transaction's change moved the
    /// record they wait on (`relocate`).
    moved: Vec<u16>,
    /// Per actor: the transaction its wait names (`trx->lock.wait_trx`): the first conflicting
    /// lock's when the wait began, the first still in the way ahead of it after locks went.
    wait_trx: Vec<Option<TxId>>,
    /// Per actor: what its statement in flight changed.
    stmt: Vec<StmtUndo>,
    /// Actors whose lock was granted (or whose wait was cancelled), to resume in this order.
    woken: Vec<usize>,
    /// Actors chosen as deadlock victims, whose transactions are still to roll back.
    victims: Vec<usize>,
    /// Transactions to check for a deadlock after locks went (`Deadlock::to_check`): the ones
    /// that a waiter still waits for and that wait themselves (`check`).
    to_check: Vec<TxId>,
    /// Per actor: when its connection first touched an InnoDB table (`u32::MAX`: not yet), which
    /// orders its transaction object's address (`check`); and how many have.
    touched: Vec<u32>,
    touches: u32,
    /// Actors whose statements the current entry resumed, as a mask: they run at once in
    /// InnoDB, in whichever order the machine runs their threads.
    resumed: u32,
    /// The locks those statements took in this entry (actor, record, mode), kept after they
    /// go: another of them that reaches the record met it in a race (`inno_contend`).
    taken: Vec<(u8, lock::Rec, lock::Mode)>,
    /// The seats whose rows those statements rewrote elsewhere on the page (`inno_moves`).
    resized: u64,
}

clone_reusing!(Inno {
    locks,
    undo,
    tables,
    moved,
    wait_trx,
    stmt,
    woken,
    victims,
    to_check,
    touched,
    touches,
    resumed,
    taken,
    resized,
});

impl Inno {
    pub fn new(actors: usize) -> Inno {
        Inno {
            wait_trx: vec![None; actors],
            touched: vec![u32::MAX; actors],
            stmt: vec![StmtUndo::default(); actors],
            ..Inno::default()
        }
    }

    fn grow(&mut self, tx: TxId) {
        let n = tx as usize + 1;
        if self.undo.len() < n {
            self.undo.resize(n, 0);
            self.tables.resize(n, 0);
            self.moved.resize(n, 0);
        }
    }

    /// `tx` takes a table lock (IS, IX) unless it holds it or a stronger one.
    fn table_lock(&mut self, tx: TxId, lock: u8) {
        self.grow(tx);
        let held = self.tables[tx as usize];
        // (A confirm takes IS on payments before IX, never after.)
        let stronger = match lock {
            IS_SEATS => IX_SEATS,
            IS_ACCOUNTS => IX_ACCOUNTS,
            _ => 0,
        };
        if held & (lock | stronger) == 0 {
            self.tables[tx as usize] |= lock;
        }
    }

    /// One more undo record of `tx` (a row changed or inserted).
    fn add_undo(&mut self, tx: TxId) {
        self.grow(tx);
        self.undo[tx as usize] += 1;
    }
}

impl Engine<'_> {
    /// Whether this engine runs InnoDB's rules.
    pub(in crate::engine) fn innodb(&self) -> bool {
        self.schedule.database() == Database::Innodb
    }

    /// Sends `actor`'s operation `op_index` in entry `k`, by InnoDB's rules.
    pub(in crate::engine) fn inno_send(
        &mut self,
        actor: usize,
        op_index: usize,
        k: usize,
        cx: &Cx,
        ev: &mut Events,
    ) {
        self.inno.resumed = 0;
        self.inno.taken.clear();
        self.inno.resized = 0;
        let op = &self.schedule.actors()[actor].program[op_index];
        let ok = StepResult::Ok { rows: None };
        match op {
            Op::Begin { isolation } => {
                // START TRANSACTION would commit an open one; a program never has one open here.
                self.open[actor] = Some(self.db.begin(actor, *isolation));
                return self.answer(actor, op_index, k, ok, ev);
            }
            Op::Commit | Op::Rollback => {
                // After a deadlock rolled it back the connection is in autocommit: COMMIT and
                // ROLLBACK then have nothing to end, and answer OK.
                if let Some(tx) = self.open[actor].take().filter(|&t| self.db.is_active(t)) {
                    self.inno_end_tx(tx, matches!(op, Op::Commit));
                }
                return self.answer(actor, op_index, k, ok, ev);
            }
            Op::Advance { .. } => {
                // `update clock`: a MEMORY table, outside every transaction and every lock.
                return self.answer(actor, op_index, k, ok, ev);
            }
            Op::Hold { .. } => {
                self.inno_touch(actor);
                let result = self.inno_hold(actor, op_index, cx);
                return self.answer(actor, op_index, k, result, ev);
            }
            _ => {}
        }
        self.inno_touch(actor);
        let mut kind = super::ops::statement_kind(op, actor, cx);
        // The clock is the statement's parameter, read as it is sent.
        match &mut kind {
            Kind::Update(Upd::Claim { now, .. }) => *now = Some(now.unwrap_or(cx.clock)),
            Kind::Confirm(c) => c.called_at = Some(cx.clock),
            _ => {}
        }
        // `confirm_hold` runs its own transaction (START TRANSACTION … COMMIT).
        let (tx, implicit) = match self.open[actor] {
            Some(tx) if !matches!(kind, Kind::Confirm(_)) => (tx, false),
            _ => (self.db.begin(actor, Isolation::RepeatableRead), true),
        };
        let want = self.names.op_seats[actor][op_index];
        let todo = match kind {
            // A scan of the show by its primary key: every seat is examined.
            Kind::Update(Upd::Release { .. } | Upd::Sweep) => {
                super::ops::all_seats(self.names.seats.len())
            }
            _ => want,
        };
        self.inno.grow(tx);
        self.inno.stmt[actor] = StmtUndo {
            undo_before: self.inno.undo[tx as usize],
            ..StmtUndo::default()
        };
        let mut r = Running {
            entry: k,
            op_index,
            tx,
            implicit,
            kind,
            snap: self.db.latest(),
            todo,
            want,
            count: 0,
            rows: Vec::new(),
            pending: None,
            // The statement's clock, for the sweeper's `held_until < ?`.
            fetched_at: cx.clock,
            facts: Facts::default(),
            woken: None,
            woken_in: None,
            accounts: 0,
        };
        self.inno_confirm_start(&mut r);
        self.inno_drive(actor, r, ev);
    }

    /// Runs `r` as far as it goes: to its end, or to a wait (it is then kept as `actor`'s).
    pub(super) fn inno_drive(&mut self, actor: usize, mut r: Running, ev: &mut Events) {
        let op = &self.schedule.actors()[actor].program[r.op_index];
        let poll = match (op, r.kind) {
            (Op::Read { .. } | Op::Lock { .. }, _) if self.names.username() => {
                self.inno_accounts(actor, &mut r)
            }
            (Op::Read { .. }, _) if !self.share_read(actor, &r) => {
                Poll::Done(self.consistent_read(&mut r))
            }
            (_, Kind::Account) => self.inno_insert_account(actor, &mut r),
            (_, Kind::Book { hold }) => self.inno_insert(actor, &mut r, hold, actor as u8, false),
            (_, Kind::Ignore { hold }) => self.inno_insert(actor, &mut r, hold, actor as u8, true),
            (_, Kind::Confirm(_)) => self.inno_confirm(actor, &mut r),
            _ => self.inno_visit_all(actor, &mut r),
        };
        match poll {
            Poll::Wait => self.running[actor] = Some(r),
            Poll::Done(result) => self.inno_complete(actor, r, result, ev),
        }
    }
}
