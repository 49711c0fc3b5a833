//! The PostgreSQL model: a deterministic, sans-I/O state machine of PostgreSQL 15's row
//! locking and isolation for exactly the SQL of `crate::sql`, stepped one entry of the order
//! at a time.
//!
//! An entry sends its actor's next operation (through the same `Clients` that the real
//! executor drives). A statement that meets a row lock waits; it completes, in the trace, during
//! the entry whose commit, rollback or error releases it. After every entry: wake-ups in the
//! order the waits began, then deadlock checks, until nothing moves (the executor's
//! quiescence). Files: `mvcc` (versions, snapshots), `locks` (row locks, queues, deadlocks),
//! `ssi` (SERIALIZABLE), `stmt` (a statement in flight), `rows` (how it visits a row, and
//! inserts tickets), `ops`, `funcs` and `finish` (the operations, the two server-side
//! functions, how they end), `unique` (the ticket insert and its unique key), `trace`,
//! `tables` and `reason` (what is reported).

mod finish;
mod funcs;
mod locks;
mod mvcc;
mod names;
mod ops;
mod reason;
mod rows;
mod ssi;
mod stmt;
mod tables;
mod trace;
mod unique;

use std::sync::Arc;

use crate::client::{Action, Clients};
use crate::outcome::{EntryTrace, Trace};
use crate::schedule::{Op, Schedule, ScheduleError};

use locks::Locks;
use mvcc::{Db, TxId};
use names::Names;
use ssi::Ssi;
use stmt::Running;
use trace::{Events, Log, View};

/// The model's state after some entries of an order. Cheap to clone: the explorer clones it at
/// every branch (the trace so far is shared between clones).
#[derive(Clone)]
pub struct Engine<'s> {
    schedule: &'s Schedule,
    names: Arc<Names>,
    clients: Clients,
    db: Db,
    locks: Locks,
    ssi: Ssi,
    /// Per actor: its open transaction (`begin` … `commit`), aborted or not.
    open: Vec<Option<TxId>>,
    /// Per actor: its statement that waits.
    running: Vec<Option<Running>>,
    log: Log,
    view: View,
    /// Entries during which two woken waiters raced for a row (see `races`).
    races: Vec<usize>,
}

/// Why an actor cannot send its next operation now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Blocked {
    /// Its program has run to its end.
    Finished,
    /// Its operation sent in `entry` (0-based) still waits for the actors `on` (sorted).
    Waiting { entry: usize, on: Vec<String> },
}

impl<'s> Engine<'s> {
    /// The scenario's initial state, before the first entry.
    pub fn new(schedule: &'s Schedule) -> Engine<'s> {
        let names = Names::new(schedule);
        let db = Db::new(&names.initial);
        let clients = Clients::new(schedule);
        let log = Log::new(tables::Committed::of(&db, names.seats.len(), clients.clock));
        let n = schedule.actors().len();
        Engine {
            schedule,
            clients,
            locks: Locks::new(names.seats.len(), n),
            db,
            ssi: Ssi::default(),
            open: vec![None; n],
            running: vec![None; n],
            log,
            view: View::default(),
            races: Vec::new(),
            names,
        }
    }

    /// Why `actor` (an index into `schedule.actors()`) cannot send its next operation now:
    /// `None` if it can.
    pub fn blocked(&self, actor: usize) -> Option<Blocked> {
        if let Some(r) = &self.running[actor] {
            return Some(Blocked::Waiting {
                entry: r.entry,
                on: self.blocker_names(actor),
            });
        }
        if self.clients.actors[actor].next >= self.schedule.actors()[actor].program.len() {
            return Some(Blocked::Finished);
        }
        None
    }

    /// Sends `actor`'s next operation as the next entry of the order. An error if it cannot
    /// (the schedule is invalid): its statement still waits, or its program is over.
    pub fn step(&mut self, actor: usize) -> Result<(), ScheduleError> {
        let k = self.log.len();
        let name = &self.schedule.actors()[actor].name;
        match self.blocked(actor) {
            None => {}
            Some(Blocked::Waiting { entry, on }) => {
                let op = self.schedule.actors()[actor].program
                    [self.running[actor].as_ref().map_or(0, |r| r.op_index)]
                .name();
                return Err(waiting_error(k, name, op, entry, &on));
            }
            Some(Blocked::Finished) => {
                let message = format!("{name} has no operation left: remove this entry or add one");
                return Err(ScheduleError::new(format!("order[{k}]"), message));
            }
        }
        let op_index = self.clients.actors[actor].next;
        let cx = ops::Cx::of(self, actor);
        // The client side decides whether a write or a book is skipped and what a payment
        // does; every other op is sent as is, and the model needs no SQL text, so the
        // statement that `prepare` would build is not asked for.
        let op = &self.schedule.actors()[actor].program[op_index];
        let decided = match op {
            Op::Write { .. } | Op::Book { .. } | Op::Pay { .. } => {
                match self.clients.prepare(self.schedule, actor) {
                    Action::Done(result) => Some(result),
                    Action::Send(_) => None,
                }
            }
            _ => None,
        };
        self.clients.sent(self.schedule, actor, k);
        let mut ev = Events {
            seq: self.locks.seq(),
            ..Events::default()
        };
        match decided {
            Some(result) => {
                self.clients
                    .answered(self.schedule, actor, op_index, &result, &[]);
                ev.done(actor, (k, op_index), result, Vec::new(), Default::default());
            }
            None => self.send(actor, op_index, k, &cx, &mut ev),
        }
        self.settle(&mut ev);
        self.record(actor, op_index, k, ev);
        self.view = View::default();
        Ok(())
    }

    /// Wakes the waiters whose wait is over, in the order their waits began, then breaks
    /// deadlocks, until nothing moves.
    fn settle(&mut self, ev: &mut Events) {
        loop {
            self.locks.promote_heads();
            let next = (0..self.running.len())
                .filter(|&a| self.running[a].is_some() && self.locks.runnable(a, &self.db))
                .min_by_key(|&a| self.locks.since(a));
            if let Some(a) = next {
                let mut r = self.running[a].take().expect("a waiter");
                r.woken = self.locks.waits[a].take();
                self.drive(a, r, ev);
                continue;
            }
            if let Some((victim, race)) = self.locks.deadlock_victim(&self.db, ev.seq) {
                if race {
                    self.race();
                }
                let r = self.running[victim].take().expect("a waiter");
                self.locks.waits[victim] = None;
                ev.deadlock(victim);
                self.complete(victim, r, stmt::error("40P01", "deadlock detected"), ev);
                continue;
            }
            break;
        }
    }

    fn blocker_names(&self, actor: usize) -> Vec<String> {
        let mut on: Vec<String> = self
            .locks
            .blockers(actor, &self.db)
            .into_iter()
            .map(|b| self.names.names[b].clone())
            .collect();
        on.sort();
        on
    }

    /// The entries (0-based) whose outcome PostgreSQL leaves to a race between sessions that
    /// one commit or rollback woke together: one reached a row that another was first in line
    /// for before that one ran (the head usually wins; the model always lets it); an UPDATE
    /// re-checking a row met the lock of a session that took it in the same wake-up (before
    /// or after that session's own update); or two of them went back to waiting into a
    /// deadlock, and which of their timers runs out first decides the victim. A real run of
    /// such an order may disagree with the model; every other difference is a bug.
    pub fn races(&self) -> &[usize] {
        &self.races
    }

    /// The trace so far: one entry per step.
    pub fn trace(&self) -> &[EntryTrace] {
        self.view.get(&self.log, &self.names, self.schedule)
    }

    /// The whole trace.
    pub fn into_trace(self) -> Trace {
        self.log.into_trace(&self.names, self.schedule)
    }
}

/// Runs the schedule's order in the model.
pub fn simulate(schedule: &Schedule) -> Result<Trace, ScheduleError> {
    let mut engine = Engine::new(schedule);
    for &actor in schedule.order() {
        engine.step(actor)?;
    }
    Ok(engine.into_trace())
}

/// The error of entry `order_index` (0-based), which names `actor` while its `op` sent in
/// `waiting_entry` (0-based) still waits for the actors `on`. The real executor says the same.
pub fn waiting_error(
    order_index: usize,
    actor: &str,
    op: &str,
    waiting_entry: usize,
    on: &[String],
) -> ScheduleError {
    let (who, verb) = match on {
        [] => ("the lock holder".to_string(), "commits or rolls back"),
        [one] => (one.clone(), "commits or rolls back"),
        [init @ .., last] => (
            format!("{} and {last}", init.join(", ")),
            "commit or roll back",
        ),
    };
    ScheduleError::new(
        format!("order[{order_index}]"),
        format!(
            "{actor}'s {op} (entry {}) is still waiting for {who}: {actor} can send nothing until {who} {verb}",
            waiting_entry + 1
        ),
    )
}
