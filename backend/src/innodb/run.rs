//! The run itself: the order's entries one by one, each sent without being awaited and
//! followed by quiescence and a snapshot of the committed tables.
//!
//! Quiescence: every statement in flight has answered or is blocked on a row lock, as two
//! readings of the lock tables in a row say when the blocked ones seem to form a cycle (InnoDB
//! breaks a deadlock as its last wait begins, so a cycle still there on the next reading is one
//! it does not see: MariaDB follows one blocker per waiter). A statement still running is
//! waited for, however long it takes; whether it is blocked is only ever what InnoDB's lock
//! tables say.

use std::time::Duration;

use shared::client::{Action, Clients};
use shared::outcome::{EntryTrace, Tables, Trace};
use shared::schedule::{Op, Schedule, ScheduleError};
use shared::sql::Statement;

use super::actor::{self, Completion};
use super::database::Session;
use crate::executor::answer::fetch_of;
use crate::executor::statement::Counting;
use crate::executor::waits::WaitGraph;
use crate::executor::ExecError;

/// How long a statement just sent (or the others, after an answer came in) gets to answer
/// before the lock tables are read: most answer well within it.
const PATIENCE: Duration = Duration::from_millis(2);

/// A statement sent and not answered yet.
struct Pending {
    entry: usize,
    op_index: usize,
}

pub(super) struct Driver<'a> {
    schedule: &'a Schedule,
    session: &'a mut Session,
    clients: Clients,
    pending: Vec<Option<Pending>>,
    /// Per actor, the actors its statement in flight was last seen blocked by.
    by: Vec<Vec<usize>>,
    entries: Vec<EntryTrace>,
    /// Something committed a change during the current entry: the tables must be read again.
    committed: bool,
}

impl<'a> Driver<'a> {
    pub fn new(schedule: &'a Schedule, session: &'a mut Session) -> Driver<'a> {
        let n = schedule.actors().len();
        Driver {
            schedule,
            session,
            clients: Clients::new(schedule),
            pending: (0..n).map(|_| None).collect(),
            by: vec![Vec::new(); n],
            entries: Vec::with_capacity(schedule.order().len()),
            committed: false,
        }
    }

    /// Runs the order; the trace.
    pub async fn run(mut self) -> Result<Trace, ExecError> {
        let show = self.schedule.scenario().show;
        let initial = complete(self.schedule, self.session.monitor.snapshot(show).await?);
        let mut tables: Tables = initial.clone();
        for (k, &a) in self.schedule.order().iter().enumerate() {
            if self.entry(k, a).await? {
                tables = complete(self.schedule, self.session.monitor.snapshot(show).await?);
            }
            self.entries[k].tables = tables.clone();
        }
        let threads: Vec<i64> = self.session.actors.iter().map(|a| a.thread).collect();
        if let Some(gone) = self.session.monitor.gone(&threads).await?.first() {
            let a = threads.iter().position(|t| t == gone).unwrap_or_default();
            return Err(ExecError::ConnectionLost(sqlx::Error::Io(
                std::io::Error::new(
                    std::io::ErrorKind::ConnectionAborted,
                    format!(
                        "the session of {} (thread {gone}) ended during the run",
                        self.schedule.actors()[a].name
                    ),
                ),
            )));
        }
        Ok(Trace {
            entries: self.entries,
            initial,
            races: Vec::new(),
        })
    }

    /// Entry `k`, actor `a`'s next operation: answered by the client alone, or sent, followed
    /// by quiescence. Whether something committed a change meanwhile.
    async fn entry(&mut self, k: usize, a: usize) -> Result<bool, ExecError> {
        if let Some(p) = &self.pending[a] {
            return Err(self.still_waiting(k, a, p).into());
        }
        let op_index = self.clients.actors[a].next;
        self.entries.push(EntryTrace {
            actor: self.schedule.actors()[a].name.clone(),
            op_index,
            waited_for: Vec::new(),
            result: None,
            completed_after: None,
            seen: Vec::new(),
            tables: Tables::default(),
            reason: String::new(),
            locks: Vec::new(),
        });
        match self.clients.prepare(self.schedule, a) {
            Action::Done(result) => {
                self.clients.sent(self.schedule, a, k);
                self.clients
                    .answered(self.schedule, a, op_index, &result, &[]);
                self.entries[k].result = Some(result);
                self.entries[k].completed_after = Some(k);
                Ok(false)
            }
            // The client names the statement, in the schedule's database's dialect.
            Action::Send(statement) => self.send(k, a, statement).await,
        }
    }

    async fn send(&mut self, k: usize, a: usize, statement: Statement) -> Result<bool, ExecError> {
        let op_index = self.clients.actors[a].next;
        let op = &self.schedule.actors()[a].program[op_index];
        self.clients.sent(self.schedule, a, k);
        self.pending[a] = Some(Pending { entry: k, op_index });
        let counting = Counting::of(self.schedule.scenario());
        if !self.session.actors[a].send(statement, fetch_of(op, counting)) {
            let actor = &self.entries[k].actor;
            return Err(ExecError::Unexpected(format!(
                "the connection of {actor} is gone"
            )));
        }
        self.committed = false;
        self.quiesce(k).await?;
        if self.pending[a].is_some() {
            self.entries[k].waited_for = self.names(&self.by[a]);
        }
        Ok(self.committed)
    }

    /// Waits until every statement in flight has answered or is blocked, with no cycle among
    /// the blocked ones. Answers that arrive are recorded as completed during `k`.
    async fn quiesce(&mut self, k: usize) -> Result<(), ExecError> {
        let mut patience = true;
        let mut cycle_seen = false;
        loop {
            for c in self.arrived().await {
                self.complete(c, k)?;
                patience = true;
                cycle_seen = false;
            }
            let waiting: Vec<usize> = (0..self.pending.len())
                .filter(|&a| self.pending[a].is_some())
                .collect();
            if waiting.is_empty() {
                return Ok(());
            }
            if std::mem::take(&mut patience) {
                if self.await_answer(PATIENCE, k).await? {
                    patience = true;
                    cycle_seen = false;
                }
                continue;
            }
            let threads: Vec<i64> = waiting
                .iter()
                .map(|&a| self.session.actors[a].thread)
                .collect();
            let states = self.session.monitor.blocking(&threads).await?;
            let mut all_blocked = true;
            for (&a, state) in waiting.iter().zip(states) {
                all_blocked &= state.blocked;
                let mut by: Vec<usize> = state
                    .by
                    .iter()
                    .filter_map(|t| self.session.actors.iter().position(|x| x.thread == *t))
                    .collect();
                by.sort_unstable();
                by.dedup();
                self.by[a] = by;
            }
            let graph = WaitGraph::new(self.by.iter().map(Vec::as_slice));
            // A cycle InnoDB is breaking is gone by the next reading (it breaks one as its last
            // wait begins); one still there is not a deadlock to InnoDB (MariaDB follows one
            // blocker per waiter, and the cycle may run through another), so the statements
            // in it wait on.
            let cycle = graph.has_cycle(&waiting);
            if all_blocked && (!cycle || std::mem::replace(&mut cycle_seen, true)) {
                // An answer that came in meanwhile changes what is blocked: look again.
                if self.await_answer(Duration::ZERO, k).await? {
                    patience = true;
                    continue;
                }
                return Ok(());
            }
            // Running, or a cycle seen once: an answer is coming, or the next reading (at
            // least 0.1 s on) says more.
            if self.await_answer(PATIENCE, k).await? {
                patience = true;
                cycle_seen = false;
            }
        }
    }

    /// The answers that have arrived, taken without waiting (never `try_recv`, which may park
    /// the thread: see `executor::run::answers`).
    async fn arrived(&mut self) -> Vec<Completion> {
        let completions = &mut self.session.completions;
        std::future::poll_fn(|cx| {
            let mut arrived = Vec::new();
            while let std::task::Poll::Ready(Some(c)) = completions.poll_recv(cx) {
                arrived.push(c);
            }
            std::task::Poll::Ready(arrived)
        })
        .await
    }

    /// Waits up to `patience` for an answer; whether one came.
    async fn await_answer(&mut self, patience: Duration, k: usize) -> Result<bool, ExecError> {
        let c = tokio::select! {
            c = self.session.completions.recv() => c,
            () = tokio::time::sleep(patience) => return Ok(false),
        };
        match c {
            Some(c) => self.complete(c, k).map(|()| true),
            None => Err(ExecError::Unexpected(
                "every actor connection is gone".to_string(),
            )),
        }
    }

    /// Records an answer, completed during entry `k`: the step result, the rows seen, and the
    /// client state it leaves.
    fn complete(&mut self, c: Completion, k: usize) -> Result<(), ExecError> {
        let a = c.actor;
        let p = self.pending[a].take().ok_or_else(|| {
            ExecError::Unexpected(format!(
                "an answer for {} with nothing in flight",
                self.schedule.actors()[a].name
            ))
        })?;
        self.by[a].clear();
        let op = &self.schedule.actors()[a].program[p.op_index];
        let (result, seen) = actor::step(op, c.answer, self.clients.clock)?;
        // Whether the connection was in a transaction is the server's to say (after a deadlock
        // it is in autocommit, whatever the client remembers): the tables are read again after
        // every answer that may have committed a change, and a change not committed yet reads
        // as before.
        self.committed |= matches!(op, Op::Commit) || writes(op);
        self.clients
            .answered(self.schedule, a, p.op_index, &result, &seen);
        let entry = &mut self.entries[p.entry];
        entry.result = Some(result);
        entry.completed_after = Some(k);
        entry.seen = seen;
        Ok(())
    }

    fn names(&self, actors: &[usize]) -> Vec<String> {
        let mut names: Vec<String> = actors
            .iter()
            .map(|&a| self.schedule.actors()[a].name.clone())
            .collect();
        names.sort();
        names
    }

    /// The error of entry `k`, which names actor `a` while its statement `p` still waits.
    fn still_waiting(&self, k: usize, a: usize, p: &Pending) -> ScheduleError {
        let actor = &self.schedule.actors()[a];
        let on = self.names(&self.by[a]);
        shared::engine::waiting_error(
            k,
            &actor.name,
            actor.program[p.op_index].name(),
            p.entry,
            &on,
        )
    }
}

/// Whether `op`, committed, may have changed a table (or the clock).
fn writes(op: &Op) -> bool {
    matches!(
        op,
        Op::Claim { .. }
            | Op::Write { .. }
            | Op::Book { .. }
            | Op::Hold { .. }
            | Op::Confirm { .. }
            | Op::Release
            | Op::Sweep
            | Op::Advance { .. }
    )
}

/// The tables with every name of a username scenario, those no account has included.
fn complete(schedule: &Schedule, mut tables: Tables) -> Tables {
    shared::sql::username::complete(schedule.scenario(), &mut tables.seats);
    tables
}
