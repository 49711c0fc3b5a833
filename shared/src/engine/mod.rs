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
//! `tables` and `reason` (what is reported), `live` (what the committed rows do not show:
//! row locks, their queues, uncommitted writes); `copy` (copying an engine into another's
//! buffers), `settle` (the wake-ups and deadlock checks after an entry), `read` (what a caller
//! reads of an engine: its trace, its races).

/// `Clone` whose `clone_from` reuses each field's buffers (`Vec::clone_from` keeps its
/// allocation), for the state the explorer copies at every branch of its walk. The fields are
/// named exhaustively: a field added to the type and not here does not compile.
macro_rules! clone_reusing {
    ($t:ident $(<$lt:lifetime>)? { $($f:ident),* $(,)? }) => {
        impl $(<$lt>)? Clone for $t $(<$lt>)? {
            fn clone(&self) -> Self {
                let $t { $($f),* } = self;
                $t { $($f: $f.clone()),* }
            }

            fn clone_from(&mut self, source: &Self) {
                let $t { $($f),* } = self;
                $($f.clone_from(&source.$f);)*
            }
        }
    };
}

mod accounts;
mod copy;
mod finish;
mod funcs;
mod innodb;
mod live;
mod locks;
mod mvcc;
mod names;
mod ops;
mod read;
mod reason;
mod rows;
mod settle;
mod ssi;
mod stmt;
mod tables;
mod trace;
mod unique;

use std::sync::Arc;

use crate::client::{Action, ActorState, Clients};
use crate::outcome::{StepResult, Trace};
use crate::schedule::{Op, Schedule, ScheduleError};

use locks::Locks;
use mvcc::{Db, TxId};
use ssi::Ssi;
use stmt::{Facts, Running};
use trace::{Events, Log, View};

pub(crate) use names::{title as capitalise, Names};
pub(crate) use reason::join;
pub(crate) use tables::Committed;
pub(crate) use trace::{Compact, Done, Node};

/// The model's state after some entries of an order. Cheap to copy: the explorer copies it at
/// every branch, into an engine whose buffers it reuses (`clone_from`); the trace so far is
/// shared between copies.
pub struct Engine<'s> {
    schedule: &'s Schedule,
    names: Arc<Names>,
    clients: Clients,
    db: Db,
    locks: Locks,
    ssi: Ssi,
    /// InnoDB's locks and waits (empty on PostgreSQL).
    inno: innodb::Inno,
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
            inno: innodb::Inno::new(n),
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

    /// Whether `actor`'s statement still waits for a lock: `blocked` gives `Waiting`, without
    /// naming whom it waits for.
    pub fn waiting(&self, actor: usize) -> bool {
        self.running[actor].is_some()
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
        // The client side decides whether a write or a book is skipped and what a payment or
        // a Redis op does; every other op is sent as is, and the model needs no SQL text, so the
        // statement that `prepare` would build is not asked for (nor is it for a write or a
        // book that the client will send: building its SQL costs more than the model's step).
        let op = &self.schedule.actors()[actor].program[op_index];
        // An operation whose condition does not hold is not sent (`Clients::prepare` says
        // `Skipped` exactly then).
        let unmet = self.clients.unmet(self.schedule, actor, op_index);
        let decided = match op {
            _ if unmet.is_some() => Some(StepResult::Skipped),
            Op::Write { seats, .. } | Op::Book { seats }
                if !remembers_taken(&self.clients.actors[actor], seats) =>
            {
                debug_assert!(matches!(
                    self.clients.clone().prepare(self.schedule, actor),
                    Action::Send(_)
                ));
                None
            }
            Op::Write { .. }
            | Op::Book { .. }
            | Op::Pay { .. }
            | Op::RedisHold { .. }
            | Op::RedisRelease => match self.clients.prepare(self.schedule, actor) {
                Action::Done(result) => Some(result),
                Action::Send(_) => None,
            },
            _ => None,
        };
        self.clients.sent(self.schedule, actor, k);
        self.locks.start_entry();
        let mut ev = Events::default();
        match decided {
            Some(result) => {
                self.clients
                    .answered(self.schedule, actor, op_index, &result, &[]);
                let mut facts = Facts::default();
                facts.unmet = unmet;
                ev.done(actor, (k, op_index), result, Vec::new(), facts);
            }
            None => self.send(actor, op_index, k, &cx, &mut ev),
        }
        self.settle(&mut ev);
        self.record(actor, op_index, k, ev);
        self.view = View::default();
        Ok(())
    }
}

/// Whether the client will skip a write or a book of `seats`: it remembers one of them as taken
/// (`Clients::prepare` answers `Skipped` exactly then).
fn remembers_taken(a: &ActorState, seats: &[String]) -> bool {
    seats.iter().any(|s| a.remembered.get(s) == Some(&false))
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
