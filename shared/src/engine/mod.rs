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
//! row locks, their queues, uncommitted writes).

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

mod finish;
mod funcs;
mod live;
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

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::client::{Action, ActorState, Clients};
use crate::outcome::{EntryTrace, StepResult, Trace};
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
    /// Per actor: its open transaction (`begin` … `commit`), aborted or not.
    open: Vec<Option<TxId>>,
    /// Per actor: its statement that waits.
    running: Vec<Option<Running>>,
    log: Log,
    view: View,
    /// Entries during which two woken waiters raced for a row (see `races`).
    races: Vec<usize>,
}

impl Clone for Engine<'_> {
    fn clone(&self) -> Self {
        let Engine {
            schedule,
            names,
            clients,
            db,
            locks,
            ssi,
            open,
            running,
            log,
            view,
            races,
        } = self;
        Engine {
            schedule,
            names: names.clone(),
            clients: clients.clone(),
            db: db.clone(),
            locks: locks.clone(),
            ssi: ssi.clone(),
            open: open.clone(),
            running: running.clone(),
            log: log.clone(),
            view: view.clone(),
            races: races.clone(),
        }
    }

    /// Reuses every buffer of `self`, the client side's included.
    fn clone_from(&mut self, source: &Self) {
        let Engine {
            schedule,
            names,
            clients,
            db,
            locks,
            ssi,
            open,
            running,
            log,
            view,
            races,
        } = self;
        if std::ptr::eq(*schedule, source.schedule) {
            copy_clients(clients, &source.clients);
        } else {
            clients.clone_from(&source.clients);
        }
        *schedule = source.schedule;
        names.clone_from(&source.names);
        db.clone_from(&source.db);
        locks.clone_from(&source.locks);
        ssi.clone_from(&source.ssi);
        open.clone_from(&source.open);
        running.clone_from(&source.running);
        log.clone_from(&source.log);
        view.clone_from(&source.view);
        races.clone_from(&source.races);
    }
}

/// Copies the client side of an engine of the same schedule into another's, reusing its
/// buffers (`Clients::clone` allocates every actor's strings and maps anew). The fields it
/// cannot reach (the show, the hold length) come from the schedule and never change.
fn copy_clients(to: &mut Clients, from: &Clients) {
    to.clock = from.clock;
    copy_map(&mut to.provider, &from.provider);
    to.redis.clone_from(&from.redis);
    to.actors.truncate(from.actors.len());
    for (t, f) in to.actors.iter_mut().zip(&from.actors) {
        let ActorState {
            next,
            in_flight,
            in_tx,
            failed,
            tx_clock,
            remembered,
            current_hold,
            holding,
            retry,
            tx_took,
            tx_retryable,
            skipping,
        } = t;
        *next = f.next;
        in_flight.clone_from(&f.in_flight);
        *in_tx = f.in_tx;
        *failed = f.failed;
        *tx_clock = f.tx_clock;
        copy_map(remembered, &f.remembered);
        current_hold.clone_from(&f.current_hold);
        *holding = f.holding;
        *retry = f.retry;
        *tx_took = f.tx_took;
        *tx_retryable = f.tx_retryable;
        *skipping = f.skipping;
    }
    let have = to.actors.len();
    to.actors.extend_from_slice(&from.actors[have..]);
    debug_assert!(to == from, "the client side was copied whole");
}

/// `to.clone_from(from)` for a map, without reallocating when both have the same keys.
fn copy_map<V: Copy>(to: &mut BTreeMap<String, V>, from: &BTreeMap<String, V>) {
    if to.len() == from.len() && to.keys().eq(from.keys()) {
        for (t, f) in to.values_mut().zip(from.values()) {
            *t = *f;
        }
    } else {
        to.clone_from(from);
    }
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

    /// Wakes the waiters whose wait is over, in the order their waits began, then breaks
    /// deadlocks, until nothing moves.
    fn settle(&mut self, ev: &mut Events) {
        if self.running.iter().all(Option::is_none) && self.locks.waits.iter().all(Option::is_none)
        {
            // Nobody waits: nothing to wake, no queue to move up, no cycle.
            return;
        }
        let mut broken = false;
        loop {
            self.locks.promote_heads(&self.db);
            let next = (0..self.running.len())
                .filter(|&a| self.running[a].is_some() && self.locks.runnable(a, &self.db))
                .min_by_key(|&a| self.locks.since(a));
            if let Some(a) = next {
                let mut r = self.running[a].take().expect("a waiter");
                r.woken = self.locks.waits[a].take();
                r.woken_in = Some(self.log.len());
                self.drive(a, r, ev);
                continue;
            }
            if let Some((victim, race)) = self.locks.deadlock_victim(&self.db) {
                if race {
                    self.race();
                }
                // The victim's check ran `deadlock_timeout` after its wait began, so the check
                // of every wait that began before it has run too, and found no cycle: none of
                // them can fail for a cycle that the victim's end closes.
                let since = self.locks.since(victim).expect("a victim waits");
                for w in self.locks.waits.iter_mut().flatten() {
                    w.checked |= w.since < since;
                }
                let r = self.running[victim].take().expect("a waiter");
                self.locks.waits[victim] = None;
                ev.deadlock(victim);
                self.complete(victim, r, stmt::error("40P01", "deadlock detected"), ev);
                broken = true;
                continue;
            }
            break;
        }
        if broken {
            self.locks.mark_checked();
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
    /// or after that session's own update); two of them inserted a ticket for the same seat,
    /// and whichever runs first gets it; two of them went for the same row, one from that
    /// row's queue and one from a wait for another row, or both from behind an UPDATE that
    /// found the row replaced (it lets go of the queue before it locks the newest version);
    /// or two of them went back to waiting (in one wake-up, whenever the cycle closed) and a
    /// deadlock runs through both, and which of their timers runs out first decides the
    /// victim. A real run of
    /// such an order may disagree with the model; every other difference is a bug.
    pub fn races(&self) -> &[usize] {
        &self.races
    }

    /// The trace so far: one entry per step.
    pub fn trace(&self) -> &[EntryTrace] {
        self.view.get(&self.log, &self.names, self.schedule)
    }

    /// The trace so far in the engine's own compact form (see `Compact`).
    pub(crate) fn compact(&self) -> Compact<'_> {
        Compact {
            names: &self.names,
            initial: self.log.initial(),
            nodes: self.log.nodes(),
        }
    }

    /// The run's strings, which the compact record indexes.
    pub(crate) fn names(&self) -> &Names {
        &self.names
    }

    /// The committed rows after the last entry (before the first, if none ran).
    pub(crate) fn committed_now(&self) -> &Committed {
        self.log.committed()
    }

    /// The last entry in compact form, with the committed rows before it.
    pub(crate) fn last_entry(&self) -> Option<(&Committed, &Node)> {
        self.log.last()
    }

    /// The whole trace.
    pub fn into_trace(self) -> Trace {
        self.log.into_trace(&self.names, self.schedule, self.races)
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
