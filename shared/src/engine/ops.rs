//! The operations: what each one sends does to the model, one function per kind of statement,
//! and how a statement finishes (the client hears the answer; an error aborts the transaction,
//! an autocommit statement commits). What an operation's SQL binds, and the statement it
//! sends, are `cx`'s.

mod cx;

use crate::outcome::{Answer, StepResult};
use crate::schedule::{Now, Op};
use crate::sqlstate::SqlState;

use super::mvcc::TxId;
use super::names::seats_of;
use super::stmt::{self, Facts, Kind, Running, Upd, Visit};
use super::trace::Events;
use super::Engine;
use cx::statement;
pub(super) use cx::statement as statement_kind;
pub(crate) use cx::Cx;

/// How far a statement got.
pub(crate) enum Poll {
    Done(StepResult),
    Wait,
}

fn ok(rows: u32) -> StepResult {
    StepResult::Ok {
        rows: Some(rows as u64),
    }
}

impl Engine<'_> {
    /// Sends `actor`'s operation `op_index` in entry `k`.
    pub(super) fn send(
        &mut self,
        actor: usize,
        op_index: usize,
        k: usize,
        cx: &Cx,
        ev: &mut Events,
    ) {
        if self.innodb() {
            return self.inno_send(actor, op_index, k, cx, ev);
        }
        let op = &self.schedule.actors()[actor].program[op_index];
        if let Op::Commit = op {
            return self.commit(actor, op_index, k, ev);
        }
        if let Some(result) = self.at_once(actor, op_index, cx) {
            return self.answer(actor, op_index, k, result, ev);
        }
        let kind = statement(op, actor, cx);
        let (tx, implicit) = match self.open[actor] {
            Some(tx) => (tx, false),
            None => (self.db.begin(actor, Default::default()), true),
        };
        let snap = self.statement_snapshot(tx);
        let want = match kind {
            Kind::Update(Upd::Release { .. } | Upd::Sweep) => all_seats(self.names.seats.len()),
            Kind::Confirm(c) => c.seats,
            _ => self.names.op_seats[actor][op_index],
        };
        let todo = match kind {
            Kind::Book { .. } | Kind::Confirm(_) | Kind::Account | Kind::Ignore { .. } => want,
            Kind::Lock(_) if self.names.username() => want,
            // `clock_now()` in its WHERE makes the filter dear: for two seats the planner moves
            // `seat_id = any($2)` into the index condition, so only they are fetched; from three
            // on, the index descents cost more and it scans the whole show again.
            Kind::Update(Upd::Claim { now: None, .. }) if want.count_ones() <= 2 => want,
            _ => self.scan(tx, want),
        };
        let mut r = Running {
            entry: k,
            op_index,
            tx,
            implicit,
            kind,
            snap,
            todo,
            want,
            count: 0,
            rows: Vec::new(),
            pending: None,
            fetched_at: 0,
            facts: Facts::default(),
            woken: None,
            woken_in: None,
            accounts: 0,
        };
        if let Kind::Confirm(c) = &mut r.kind {
            // `confirm_hold` first selects the seats whose hold is this one.
            c.seats = (0..self.names.seats.len())
                .filter(|&s| self.db.val(self.db.visible(s, snap, tx)).hold == Some(c.hold))
                .fold(0, |m, s| m | 1 << s);
            (r.todo, r.want) = (c.seats, c.seats);
        }
        if let (Op::Read { .. }, true) = (op, self.names.username()) {
            let result = self.read_accounts(&mut r);
            return self.complete(actor, r, result, ev);
        }
        if let Op::Read { .. } = op {
            let result = self.read(&mut r);
            return self.complete(actor, r, result, ev);
        }
        self.drive(actor, r, ev);
    }

    /// The operations that answer at once, without a statement that visits rows.
    fn at_once(&mut self, actor: usize, op_index: usize, cx: &Cx) -> Option<StepResult> {
        let op = &self.schedule.actors()[actor].program[op_index];
        let ok = StepResult::Ok { rows: None };
        Some(match op {
            Op::Begin { isolation } => {
                self.open[actor] = Some(self.db.begin(actor, *isolation));
                ok
            }
            Op::Rollback => {
                if let Some(tx) = self.open[actor].take().filter(|&t| self.db.is_active(t)) {
                    self.end_tx(tx, false);
                }
                ok
            }
            _ if self.clients.actors[actor].failed => stmt::error(
                SqlState::InFailedTransaction,
                "current transaction is aborted, commands ignored until end of transaction block",
            ),
            Op::Advance { .. } => {
                // setval: its own transaction, which takes an xid.
                let tx = self.db.begin(actor, Default::default());
                self.db.assign_xid(tx);
                self.end_tx(tx, true);
                ok
            }
            Op::Hold { now, .. } => {
                let seats = self.names.op_seats[actor][op_index];
                self.hold(actor, seats, cx, cx.now(now.unwrap_or(Now::Evaluation)))
            }
            _ => return None,
        })
    }

    /// The seats a statement of `tx` naming `want` fetches. With the plans PostgreSQL picks
    /// for the seat statements (custom plans: `plan_cache_mode = force_custom_plan`), one seat
    /// is an index lookup of that seat, but two or more are a scan of the whole show in key
    /// order with `seat_id = any($2)` as a filter: every seat is fetched, which matters only
    /// to SERIALIZABLE (each fetch takes a SIREAD lock and checks for a conflict out). (Not a
    /// claim that reads `clock_now()` as it goes: see its caller.) A counter's table is keyed by
    /// its id alone: `key = any($1)` is the index condition of its primary key, and only the
    /// listed rows are fetched, however many.
    fn scan(&self, tx: TxId, want: u64) -> u64 {
        let counter = self.schedule.scenario().kind.is_counter();
        if self.db.txs[tx as usize].sx.is_some() && want.count_ones() > 1 && !counter {
            all_seats(self.names.seats.len())
        } else {
            want
        }
    }

    /// The snapshot of a statement of `tx`: a new one under READ COMMITTED; under REPEATABLE
    /// READ and SERIALIZABLE the transaction's, taken by its first statement.
    fn statement_snapshot(&mut self, tx: TxId) -> super::mvcc::Snap {
        let t = self.db.txs[tx as usize];
        if t.iso == crate::schedule::Isolation::ReadCommitted {
            return self.db.snapshot();
        }
        if let Some(snap) = t.snap {
            return snap;
        }
        let snap = self.db.snapshot();
        self.db.txs[tx as usize].snap = Some(snap);
        if t.iso == crate::schedule::Isolation::Serializable {
            self.db.txs[tx as usize].sx = Some(self.ssi.register(snap.xmin));
        }
        snap
    }

    /// A plain SELECT of the op's seats: every row as the snapshot sees it.
    fn read(&mut self, r: &mut Running) -> StepResult {
        for seat in seats_of(r.todo) {
            let v = self.db.visible(seat, r.snap, r.tx);
            if let Err(e) = self.ssi_read(r.tx, seat, v) {
                return e;
            }
            if r.want & (1 << seat) != 0 {
                r.rows.push((seat as u8, v));
            }
        }
        ok(r.rows.len() as u32)
    }

    /// Runs `r` as far as it goes: to its end, or to a wait (it is then kept as `actor`'s).
    pub(super) fn drive(&mut self, actor: usize, mut r: Running, ev: &mut Events) {
        let poll = match r.kind {
            Kind::Lock(_) if self.names.username() => self.lock_accounts(actor, &mut r),
            Kind::Lock(_) | Kind::Update(_) => self.visit_all(actor, &mut r),
            Kind::Book { hold } => self.insert_tickets(actor, &mut r, hold, actor as u8, false),
            Kind::Ignore { hold } => self.insert_tickets(actor, &mut r, hold, actor as u8, true),
            Kind::Account => self.insert_account(&mut r, actor as u8),
            Kind::Confirm(_) => self.confirm(actor, &mut r),
        };
        match poll {
            Poll::Wait => self.running[actor] = Some(r),
            Poll::Done(result) => self.complete(actor, r, result, ev),
        }
    }

    /// Visits the remaining rows of a locking statement in seat order.
    pub(super) fn visit_all(&mut self, actor: usize, r: &mut Running) -> Poll {
        while let Some(seat) = seats_of(r.todo).next() {
            if r.want & (1 << seat) == 0 {
                // Fetched by the scan and filtered out by `seat_id = any($2)`.
                let v = self.db.visible(seat, r.snap, r.tx);
                if let Err(e) = self.ssi_read(r.tx, seat, v) {
                    return Poll::Done(e);
                }
                r.todo &= !(1 << seat);
                continue;
            }
            match self.visit(actor, r, seat) {
                Visit::Wait => return Poll::Wait,
                Visit::Fail(e) => return Poll::Done(e),
                Visit::Done(v) => {
                    if let (Some(v), Kind::Lock(_)) = (v, r.kind) {
                        r.rows.push((seat as u8, v));
                    }
                    r.todo &= !(1 << seat);
                }
            }
        }
        Poll::Done(match r.kind {
            Kind::Update(Upd::Release { .. }) => StepResult::Answer {
                answer: if r.count > 0 {
                    Answer::Released
                } else {
                    Answer::Expired
                },
            },
            Kind::Lock(_) => ok(r.rows.len() as u32),
            _ => ok(r.count),
        })
    }
}

/// The mask of every seat of a show with `n` seats.
pub(super) fn all_seats(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1 << n) - 1
    }
}
