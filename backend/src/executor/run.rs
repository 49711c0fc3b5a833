//! The run itself: the order's entries one by one, each followed by quiescence and a snapshot.
//!
//! Each actor's statement in flight and what the monitor saw of its wait are a `Buyer`
//! (`buyer.rs`); waiting for quiescence and asking the monitor who is blocked are
//! `quiesce.rs`'s, taking the answers in `answers.rs`'s, and the watch over the order of
//! PostgreSQL's deadlock checks `pace.rs`'s.

mod answers;
mod buyer;
mod pace;
mod quiesce;

use shared::client::{Action, Clients};
use shared::outcome::{EntryTrace, StepResult, Tables, Trace};
use shared::schedule::{Op, Schedule, ScheduleError};
use shared::sql::Statement;
use sqlx::PgConnection;
use tokio::time::Instant;

use self::answers::Running;
use self::buyer::{wait_graph, Buyer, Pending};
use self::pace::PaceWatch;
use super::phases::Phases;
use super::session::{Completions, Session};
use super::spacing;
use super::statement::Counting;
use super::{answer, monitor, ExecError};

/// Whether the model's run of `schedule` breaks a deadlock (or the model cannot run it, when
/// the executor cannot know either). Only the pace of the run depends on it (`spacing`, the
/// pace watch), never what is compared.
fn deadlock_foreseen(schedule: &Schedule) -> bool {
    match shared::engine::simulate(schedule) {
        Ok(trace) => trace.entries.iter().any(
            |e| matches!(&e.result, Some(StepResult::Error { code, .. }) if code.is_deadlock()),
        ),
        Err(_) => true,
    }
}

pub(crate) struct Driver<'a> {
    schedule: &'a Schedule,
    /// The run's own connection: the snapshots, and who is blocked by whom.
    monitor: &'a mut PgConnection,
    /// Per actor, in the order of `Schedule::actors()`.
    buyers: Vec<Buyer<'a>>,
    completions: Completions,
    clients: Clients,
    /// The tables as seeded, when the set-up read them.
    initial: Option<Tables>,
    entries: Vec<EntryTrace>,
    /// Something committed a change during the current entry: the tables must be read again.
    committed: bool,
    /// Where the run's time went.
    spent: Phases,
    /// A deadlock was broken during the current entry.
    deadlock_broken: bool,
    /// The model foresees a deadlock in this run (or cannot run it): `spacing` holds every
    /// statement that may wait back after every recent wait, and the pace is watched.
    deadlock_foreseen: bool,
    /// When the monitor last asked which sessions are blocked.
    last_asked: Option<Instant>,
    pace: PaceWatch,
}

impl<'a> Driver<'a> {
    pub fn new(
        schedule: &'a Schedule,
        session: &'a mut Session,
        completions: Completions,
    ) -> Driver<'a> {
        let initial = session.initial.take();
        let (monitor, conns) = session.parts();
        let deadlock_foreseen = deadlock_foreseen(schedule);
        Driver {
            schedule,
            monitor,
            buyers: conns.iter().map(Buyer::new).collect(),
            completions,
            clients: Clients::new(schedule),
            initial,
            entries: Vec::with_capacity(schedule.order().len()),
            committed: false,
            spent: Phases::default(),
            deadlock_broken: false,
            deadlock_foreseen,
            last_asked: None,
            pace: PaceWatch::new(deadlock_foreseen),
        }
    }

    /// Runs the order; the trace, and where the time went (set-up aside).
    pub async fn run(mut self) -> Result<(Trace, Phases), ExecError> {
        let _running = Running::new();
        let started = Instant::now();
        let show = self.schedule.scenario().show;
        let initial = match self.initial.take() {
            Some(initial) => initial,
            None => self.snapshot(show).await?,
        };
        let mut tables = initial.clone();
        let mut gone_at_end = None;
        let last = self.schedule.order().len().saturating_sub(1);
        for (k, &a) in self.schedule.order().iter().enumerate() {
            // The committed tables change only when a transaction that wrote commits.
            if self.entry(k, a).await? {
                if k == last {
                    // The last snapshot and the end check in one round trip.
                    let (snapshot, gone) = self.last_snapshot(show).await?;
                    tables = snapshot;
                    gone_at_end = Some(gone);
                } else {
                    tables = self.snapshot(show).await?;
                }
            }
            self.entries[k].tables = tables.clone();
        }
        let checked = Instant::now();
        let gone = match gone_at_end {
            Some(gone) => gone,
            None => monitor::gone(self.monitor, &self.pids()).await?,
        };
        self.all_sessions_alive(&gone)?;
        let mut spent = self.spent;
        spent.end_check = checked.elapsed();
        spent.entries = started.elapsed().saturating_sub(
            spent.snapshots + spent.blocking_checks + spent.held_back + spent.end_check,
        );
        spent.runs = 1;
        let trace = Trace {
            entries: self.entries,
            initial,
            races: Vec::new(),
        };
        Ok((trace, spent))
    }

    /// Entry `k`, actor `a`'s next operation: answered by the client alone, or sent, followed
    /// by quiescence. Whether something committed a change meanwhile.
    async fn entry(&mut self, k: usize, a: usize) -> Result<bool, ExecError> {
        if let Some(p) = &self.buyers[a].pending {
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
                // Nothing was sent, so nothing moved: the tables are the last snapshot's.
                self.clients.sent(self.schedule, a, k);
                self.clients
                    .answered(self.schedule, a, op_index, &result, &[]);
                self.entries[k].result = Some(result);
                self.entries[k].completed_after = Some(k);
                Ok(false)
            }
            Action::Send(statement) => self.send(k, a, statement).await,
        }
    }

    /// The committed tables, as a fresh transaction reads them now.
    async fn snapshot(&mut self, show: i64) -> Result<Tables, ExecError> {
        let started = Instant::now();
        let tables = monitor::snapshot(self.monitor, show).await;
        self.spent.snapshots += started.elapsed();
        self.spent.read += 1;
        tables.map(|t| monitor::complete(self.schedule, t))
    }

    /// `snapshot`, and which of the actors' sessions are gone, in one round trip.
    async fn last_snapshot(&mut self, show: i64) -> Result<(Tables, Vec<i32>), ExecError> {
        let started = Instant::now();
        let pids = self.pids();
        let (tables, gone) = monitor::snapshot_and_gone(self.monitor, show, &pids).await?;
        self.spent.snapshots += started.elapsed();
        self.spent.read += 1;
        Ok((monitor::complete(self.schedule, tables), gone))
    }

    /// Holds actor `a`'s statement `op` back for as long as `spacing` says.
    async fn space(&mut self, a: usize, op: &Op) {
        let began: Vec<Option<Instant>> = self.buyers.iter().map(Buyer::waiting_since).collect();
        let now = Instant::now();
        let until = spacing::Sessions {
            waits: &wait_graph(&self.buyers),
            began: &began,
            deadlock_foreseen: self.deadlock_foreseen,
        }
        .hold_until(a, op, now);
        if let Some(until) = until {
            tokio::time::sleep_until(until).await;
            self.spent.held_back += now.elapsed();
        }
    }

    /// Sends entry `k`, actor `a`'s next statement, and waits for quiescence. Whether something
    /// committed a change meanwhile.
    async fn send(&mut self, k: usize, a: usize, statement: Statement) -> Result<bool, ExecError> {
        let op_index = self.clients.actors[a].next;
        let op = &self.schedule.actors()[a].program[op_index];
        let commit_of_failed = matches!(op, Op::Commit) && self.clients.commit_of_failed(a);
        let autocommit = !self.clients.actors[a].in_tx;
        self.space(a, op).await;
        self.clients.sent(self.schedule, a, k);
        self.spent.sent += 1;
        let buyer = &mut self.buyers[a];
        buyer.sent_at = Some(Instant::now());
        buyer.pending = Some(Pending {
            entry: k,
            op_index,
            commit_of_failed,
            autocommit,
        });
        let counting = Counting::of(self.schedule.scenario());
        let (fetch, tx) = (answer::fetch_of(op, counting), answer::tx_effect_of(op));
        if !buyer.conn.send(statement, fetch, tx) {
            let actor = &self.entries[k].actor;
            return Err(ExecError::Unexpected(format!(
                "the connection of {actor} is gone"
            )));
        }
        self.committed = false;
        self.deadlock_broken = false;
        self.quiesce(k).await?;
        if self.deadlock_broken {
            self.let_deadlock_checks_run(k).await?;
        }
        if self.buyers[a].pending.is_some() {
            self.entries[k].waited_for = self.names(&self.buyers[a].wait.by);
        }
        if let Some(what) = self.pace.lost(self.schedule.actors()) {
            return Err(ExecError::TooSlow(what));
        }
        Ok(self.committed)
    }

    /// Fails if one of the actors' sessions (`gone`: those found gone after the last entry) was
    /// ended from outside (`pg_terminate_backend`) while idle: that leaves no error on its
    /// connection, only its effects (its transaction rolled back, its locks freed, whoever
    /// waited on them woken), which are no answer of PostgreSQL's to the schedule.
    fn all_sessions_alive(&self, gone: &[i32]) -> Result<(), ExecError> {
        match gone.first().and_then(|&pid| self.actor_of(pid)) {
            None => Ok(()),
            Some(a) => Err(ExecError::ConnectionLost(sqlx::Error::Io(
                std::io::Error::new(
                    std::io::ErrorKind::ConnectionAborted,
                    format!(
                        "the session of {} (backend {}) ended during the run",
                        self.schedule.actors()[a].name,
                        self.buyers[a].conn.pid
                    ),
                ),
            ))),
        }
    }

    /// The actors' backend pids, in the order of `Schedule::actors()`.
    fn pids(&self) -> Vec<i32> {
        self.buyers.iter().map(|b| b.conn.pid).collect()
    }

    fn actor_of(&self, pid: i32) -> Option<usize> {
        self.buyers.iter().position(|b| b.conn.pid == pid)
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
        let on = self.names(&self.buyers[a].wait.by);
        shared::engine::waiting_error(
            k,
            &actor.name,
            actor.program[p.op_index].name(),
            p.entry,
            &on,
        )
    }
}
