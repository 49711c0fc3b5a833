//! The run itself: the order's entries one by one, each followed by quiescence and a snapshot.

use std::future::poll_fn;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Poll;
use std::time::Duration;

use shared::client::{Action, Clients};
use shared::outcome::{EntryTrace, StepResult, Tables, Trace};
use shared::schedule::{Op, Schedule, ScheduleError};
use shared::sql::Statement;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::actor::Completion;
use super::phases::Phases;
use super::session::Session;
use super::spacing;
use super::{answer, monitor, ExecError};

/// How long a statement just sent (or the statements still in flight after an answer came in:
/// a commit's answer, then those of the statements it woke) gets to answer before the monitor
/// asks whether it is blocked, on a machine running one or two runs: most answer well within
/// it, and then no question is needed. With more runs at once (`backend verify`) every answer
/// comes later and every question takes CPU from the others: the patience grows with the runs
/// in flight in this process (`first_answer`), up to four times this.
const FIRST_ANSWER: Duration = Duration::from_micros(250);
/// How long to wait for an answer before asking again while a statement runs.
const RUNNING_POLL: Duration = Duration::from_micros(500);
/// How long to wait before asking again while blocked sessions form a cycle, which PostgreSQL's
/// deadlock detector breaks after `deadlock_timeout` (1 s).
const DEADLOCK_POLL: Duration = Duration::from_millis(10);
/// How long past the last wait's `deadlock_timeout` the executor waits after a deadlock is
/// broken, for the deadlock checks of every wait still in progress to have run.
const CHECK_MARGIN: Duration = Duration::from_millis(100);

/// The runs whose entries this process is running now.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// `FIRST_ANSWER`, times one for every two runs in flight (at most four).
fn first_answer() -> Duration {
    let running = RUNNING.load(Ordering::Relaxed).max(1);
    FIRST_ANSWER * running.div_ceil(2).min(4) as u32
}

/// Counts a run in `RUNNING` while it lives.
struct Running;

impl Running {
    fn new() -> Running {
        RUNNING.fetch_add(1, Ordering::Relaxed);
        Running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Sleeps for `d`. Tokio's timers tick in milliseconds; a shorter pause sleeps on a blocking
/// thread instead, so that a blocked statement is noticed within half a millisecond.
async fn pause(d: Duration) {
    if d >= Duration::from_millis(1) {
        tokio::time::sleep(d).await;
    } else {
        let _ = tokio::task::spawn_blocking(move || std::thread::sleep(d)).await;
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

/// Whether the model's run of `schedule` breaks a deadlock (or the model cannot run it, when
/// the executor cannot know either). Only the pace of the run depends on it (`spacing`), never
/// what is compared.
fn deadlock_foreseen(schedule: &Schedule) -> bool {
    match shared::engine::simulate(schedule) {
        Ok(trace) => trace
            .entries
            .iter()
            .any(|e| matches!(&e.result, Some(StepResult::Error { code, .. }) if code == "40P01")),
        Err(_) => true,
    }
}

/// A statement sent and not answered yet.
struct Pending {
    entry: usize,
    op_index: usize,
    /// A `commit` of a transaction that an error had aborted.
    commit_of_failed: bool,
    /// Sent outside a transaction: it commits by itself when it ends.
    autocommit: bool,
}

pub(crate) struct Driver<'a> {
    schedule: &'a Schedule,
    session: &'a mut Session,
    completions: mpsc::UnboundedReceiver<Completion>,
    clients: Clients,
    /// Per actor.
    pending: Vec<Option<Pending>>,
    /// Per actor: the actors its pending statement was last seen blocked by, sorted.
    blockers: Vec<Vec<usize>>,
    pids: Vec<i32>,
    entries: Vec<EntryTrace>,
    /// Something committed a change during the current entry: the tables must be read again.
    committed: bool,
    /// Where the run's time went.
    spent: Phases,
    /// Per actor: when its statement's current wait began, as first seen (a little late).
    wait_began: Vec<Option<Instant>>,
    /// Per actor: the lock its statement was last seen waiting for.
    awaiting: Vec<String>,
    /// A deadlock was broken during the current entry.
    deadlock_broken: bool,
    /// The model foresees a deadlock in this run (or cannot run it): `spacing` holds every
    /// statement that may wait back after every recent wait, and the pace is watched.
    deadlock_foreseen: bool,
    /// Per actor: its current sleep on a lock has had its deadlock check (the executor waited
    /// it out). PostgreSQL checks a sleep once, so this stays set while only the sessions
    /// ahead of it in a queue change, and `watch_pace` measures from `episode_floor`.
    checked: Vec<bool>,
    /// Per actor: a moment its current wait, as the blockers last changed, surely began after
    /// (the monitor's last question before it was seen, or the statement's sending).
    wait_floor: Vec<Option<Instant>>,
    /// Per actor: a moment its wait surely began after, counting only waits for another lock
    /// (a session blocked anew, or on another lock): PostgreSQL's deadlock timer starts again
    /// only then, not when the sessions ahead of it in a queue change.
    episode_floor: Vec<Option<Instant>>,
    /// Per actor: when its current wait was first seen on a deadlock cycle (the cycle surely
    /// closed before), where the model foresees a deadlock.
    cycle_seen: Vec<Option<Instant>>,
    /// Per actor: when its statement in flight was sent.
    sent_at: Vec<Option<Instant>>,
    /// When the monitor last asked which sessions are blocked.
    last_asked: Option<Instant>,
    /// A wait began when another had lasted past `PACE_LIMIT` unchecked, or a deadlock's
    /// victim was not the wait its check should have come first for: what happened.
    pace_lost: Option<String>,
    /// Deadlock victims (first) each with a wait on its cycle that began clearly before it,
    /// unchecked (second): PostgreSQL checks the older wait first, so unless that one fails
    /// too, the checks ran out of order (`spacing::checked_first`).
    victims_out_of_turn: Vec<(usize, usize)>,
    /// The actors whose statement failed with a deadlock in the current batch of answers.
    failed_in_batch: Vec<usize>,
}

impl<'a> Driver<'a> {
    pub fn new(
        schedule: &'a Schedule,
        session: &'a mut Session,
        completions: mpsc::UnboundedReceiver<Completion>,
    ) -> Driver<'a> {
        let n = schedule.actors().len();
        let pids = session.pids();
        Driver {
            schedule,
            session,
            completions,
            clients: Clients::new(schedule),
            pending: (0..n).map(|_| None).collect(),
            blockers: vec![Vec::new(); n],
            pids,
            entries: Vec::with_capacity(schedule.order().len()),
            committed: false,
            spent: Phases::default(),
            wait_began: vec![None; n],
            awaiting: vec![String::new(); n],
            deadlock_broken: false,
            deadlock_foreseen: deadlock_foreseen(schedule),
            checked: vec![false; n],
            wait_floor: vec![None; n],
            episode_floor: vec![None; n],
            cycle_seen: vec![None; n],
            sent_at: vec![None; n],
            last_asked: None,
            pace_lost: None,
            victims_out_of_turn: Vec::new(),
            failed_in_batch: Vec::new(),
        }
    }

    /// Runs the order; the trace, and where the time went (set-up aside).
    pub async fn run(mut self) -> Result<(Trace, Phases), ExecError> {
        let _running = Running::new();
        let started = Instant::now();
        let show = self.schedule.scenario().show;
        let initial = match self.session.initial.take() {
            Some(initial) => initial,
            None => self.snapshot(show).await?,
        };
        let mut tables = initial.clone();
        let mut gone_at_end = None;
        for (k, &a) in self.schedule.order().iter().enumerate() {
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
                    // Nothing was sent, so nothing moved: the tables are the last snapshot's.
                    self.clients.sent(self.schedule, a, k);
                    self.clients
                        .answered(self.schedule, a, op_index, &result, &[]);
                    self.entries[k].result = Some(result);
                    self.entries[k].completed_after = Some(k);
                }
                Action::Send(statement) => {
                    // The committed tables change only when a transaction that wrote commits.
                    if self.send(k, a, statement).await? {
                        if k + 1 == self.schedule.order().len() {
                            // The last snapshot and the end check in one round trip.
                            let started = Instant::now();
                            let (last, gone) = monitor::snapshot_and_gone(
                                self.session.monitor(),
                                show,
                                &self.pids,
                            )
                            .await?;
                            self.spent.snapshots += started.elapsed();
                            self.spent.read += 1;
                            tables = last;
                            gone_at_end = Some(gone);
                        } else {
                            tables = self.snapshot(show).await?;
                        }
                    }
                }
            }
            self.entries[k].tables = tables.clone();
        }
        let checked = Instant::now();
        let gone = match gone_at_end {
            Some(gone) => gone,
            None => monitor::gone(self.session.monitor(), &self.pids).await?,
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

    /// The committed tables, as a fresh transaction reads them now.
    async fn snapshot(&mut self, show: i64) -> Result<Tables, ExecError> {
        let started = Instant::now();
        let tables = monitor::snapshot(self.session.monitor(), show).await;
        self.spent.snapshots += started.elapsed();
        self.spent.read += 1;
        tables
    }

    /// Holds actor `a`'s statement `op` back for as long as `spacing` says.
    async fn space(&mut self, a: usize, op: &Op) {
        let pending: Vec<bool> = self.pending.iter().map(Option::is_some).collect();
        let sessions = spacing::Sessions {
            blockers: &self.blockers,
            pending: &pending,
            began: &self.wait_began,
            deadlock_foreseen: self.deadlock_foreseen,
        };
        let now = Instant::now();
        if let Some(until) = sessions.hold_until(a, op, now) {
            tokio::time::sleep_until(until).await;
            self.spent.held_back += now.elapsed();
        }
    }

    /// Fails if one of the actors' sessions (`gone`: those found gone after the last entry) was
    /// ended from outside (`pg_terminate_backend`) while idle: that leaves no error on its connection, only its effects (its transaction
    /// rolled back, its locks freed, whoever waited on them woken), which are no answer of
    /// PostgreSQL's to the schedule.
    fn all_sessions_alive(&self, gone: &[i32]) -> Result<(), ExecError> {
        match gone.first().and_then(|&pid| self.actor_of(pid)) {
            None => Ok(()),
            Some(a) => Err(ExecError::ConnectionLost(sqlx::Error::Io(
                std::io::Error::new(
                    std::io::ErrorKind::ConnectionAborted,
                    format!(
                        "the session of {} (backend {}) ended during the run",
                        self.schedule.actors()[a].name,
                        self.pids[a]
                    ),
                ),
            ))),
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
        self.sent_at[a] = Some(Instant::now());
        self.pending[a] = Some(Pending {
            entry: k,
            op_index,
            commit_of_failed,
            autocommit,
        });
        let (fetch, tx) = (answer::fetch_of(op), answer::tx_effect_of(op));
        if !self.session.actors[a].send(statement, fetch, tx) {
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
        if self.pending[a].is_some() {
            self.entries[k].waited_for = self.names(&self.blockers[a]);
        }
        if let Some(what) = self.pace_lost.take() {
            return Err(ExecError::TooSlow(what));
        }
        Ok(self.committed)
    }

    /// Waits until every statement in flight has answered or is blocked, with no deadlock
    /// cycle among the blocked ones. Answers that arrive are recorded as completed during `k`.
    async fn quiesce(&mut self, k: usize) -> Result<(), ExecError> {
        let mut patience = Some(first_answer());
        loop {
            let arrived = self.arrived().await;
            if !arrived.is_empty() {
                patience = Some(first_answer());
            }
            for c in arrived {
                self.complete(c, k)?;
            }
            self.watch_victims();
            let waiting: Vec<usize> = (0..self.pending.len())
                .filter(|&a| self.pending[a].is_some())
                .collect();
            if waiting.is_empty() {
                return Ok(());
            }
            if !waiting.iter().any(|&a| self.may_wait(a)) {
                // Nothing in flight can be blocked: no question to ask, only answers to await
                // (however long a busy machine takes to give them).
                self.next_answer(k).await?;
                patience = Some(first_answer());
                continue;
            }
            if let Some(first) = patience.take() {
                // An answer in: the others (woken by it, say) get the same patience again.
                if self.await_answer(first, k).await? {
                    patience = Some(first_answer());
                }
                continue;
            }
            let pids: Vec<i32> = waiting.iter().map(|&a| self.pids[a]).collect();
            let asked = Instant::now();
            let states = monitor::blocking(self.session.monitor(), &pids, &self.pids).await?;
            self.spent.blocking_checks += asked.elapsed();
            self.spent.asked += 1;
            let seen = Instant::now();
            let mut all_blocked = true;
            let mut blocked = vec![false; self.pending.len()];
            let mut began = Vec::new();
            for state in states {
                let Some(a) = self.actor_of(state.pid) else {
                    continue;
                };
                all_blocked &= state.blocked;
                blocked[a] = state.blocked;
                let mut by: Vec<usize> = state
                    .by
                    .iter()
                    .filter_map(|&pid| self.actor_of(pid))
                    .collect();
                by.sort_unstable();
                by.dedup();
                if state.blocked && (by != self.blockers[a] || state.awaiting != self.awaiting[a]) {
                    // Blocked anew, or woken and waiting again (on someone else, or for another
                    // lock: a tuple lock handed on, then the new holder's end): a new wait, with
                    // a deadlock check of its own `deadlock_timeout` from now.
                    self.wait_began[a] = Some(seen);
                    self.wait_floor[a] = self.last_asked.max(self.sent_at[a]);
                    if self.blockers[a].is_empty() || state.awaiting != self.awaiting[a] {
                        // A sleep on another lock: PostgreSQL's deadlock timer starts again, and
                        // the sleep gets a check of its own. Queued on the same lock behind
                        // someone else, the session sleeps on: its one check stays spent.
                        self.episode_floor[a] = self.wait_floor[a];
                        self.cycle_seen[a] = None;
                        self.checked[a] = false;
                    }
                    began.push(a);
                }
                self.blockers[a] = by;
                self.awaiting[a] = state.awaiting;
            }
            self.last_asked = Some(asked);
            for a in began {
                self.watch_pace(a, seen, &blocked);
            }
            if all_blocked && !self.has_cycle(&waiting) {
                return Ok(());
            }
            let poll = if all_blocked {
                DEADLOCK_POLL
            } else {
                RUNNING_POLL
            };
            if self.await_answer(poll, k).await? {
                patience = Some(first_answer());
            }
        }
    }

    /// After a deadlock is broken, waits until the deadlock check of every wait still in
    /// progress has run, then for quiescence again. PostgreSQL checks a wait once, so none of
    /// these can be a deadlock's victim any more, which is what the model assumes
    /// (`Locks::mark_checked`); going on sooner, a cycle closed now would fail whichever of
    /// them was still to be checked.
    async fn let_deadlock_checks_run(&mut self, k: usize) -> Result<(), ExecError> {
        let timeout = Duration::from_millis(shared::sql::DEADLOCK_TIMEOUT_MS);
        let last = (0..self.pending.len())
            .filter(|&a| self.pending[a].is_some())
            .filter_map(|a| self.wait_began[a])
            .max();
        if let Some(last) = last {
            let now = Instant::now();
            tokio::time::sleep_until(last + timeout + CHECK_MARGIN).await;
            self.spent.held_back += now.elapsed();
            for w in 0..self.pending.len() {
                self.checked[w] |= self.pending[w].is_some() && self.wait_floor[w].is_some();
            }
            self.quiesce(k).await?;
        }
        Ok(())
    }

    /// The answers that have arrived, taken without waiting for more.
    ///
    /// Never `UnboundedReceiver::try_recv`: when an actor's task is half-way through a send (its
    /// slot in the channel claimed, the answer not yet published: a worker thread preempted on
    /// a loaded machine), tokio's `try_recv` parks the calling *thread* on tokio's thread-local
    /// parker until the send completes. On a thread inside `block_on` (a `#[tokio::test]` body,
    /// `#[tokio::main]`) that parker is the one `block_on` sleeps on: the nested park consumes
    /// the wake-up meant for the caller's task, which then sleeps for good while everything it
    /// polls (`FuturesUnordered` wakes its parent once, then only queues) waits for it, timers
    /// included. `poll_recv` never parks: an answer half sent only registers this task to be
    /// woken when it lands.
    async fn arrived(&mut self) -> Vec<Completion> {
        poll_fn(|cx| {
            let mut arrived = Vec::new();
            while let Poll::Ready(Some(c)) = self.completions.poll_recv(cx) {
                arrived.push(c);
            }
            Poll::Ready(arrived)
        })
        .await
    }

    /// Waits up to `patience` for an answer; whether one came.
    async fn await_answer(&mut self, patience: Duration, k: usize) -> Result<bool, ExecError> {
        tokio::select! {
            c = self.completions.recv() => self.received(c, k).map(|()| true),
            () = pause(patience) => Ok(false),
        }
    }

    /// Waits for the next answer, however long it takes, and records it.
    async fn next_answer(&mut self, k: usize) -> Result<(), ExecError> {
        let c = self.completions.recv().await;
        self.received(c, k)
    }

    /// Records an answer received (`None`: every actor's task is gone).
    fn received(&mut self, c: Option<Completion>, k: usize) -> Result<(), ExecError> {
        match c {
            Some(c) => self.complete(c, k),
            None => Err(ExecError::Unexpected(
                "every actor connection is gone".to_string(),
            )),
        }
    }

    /// Whether actor `a`'s statement in flight may be waiting for a lock.
    fn may_wait(&self, a: usize) -> bool {
        self.pending[a]
            .as_ref()
            .is_some_and(|p| spacing::may_wait(&self.schedule.actors()[a].program[p.op_index]))
    }

    /// Records an answer: the step result, the rows seen, and the client state it leaves.
    fn complete(&mut self, c: Completion, k: usize) -> Result<(), ExecError> {
        let a = c.actor;
        let p = self.pending[a].take().ok_or_else(|| {
            ExecError::Unexpected(format!(
                "an answer for {} with nothing in flight",
                self.schedule.actors()[a].name
            ))
        })?;
        let op = &self.schedule.actors()[a].program[p.op_index];
        let (result, seen) = answer::step(op, c.answer, p.commit_of_failed, self.clients.clock)?;
        if matches!(&result, StepResult::Error { code, .. } if code == "40P01") {
            self.note_victim(a);
        }
        self.committed |= match op {
            Op::Commit => matches!(result, StepResult::Ok { .. }),
            _ => p.autocommit && writes(op),
        };
        self.clients
            .answered(self.schedule, a, p.op_index, &result, &seen);
        self.blockers[a].clear();
        self.awaiting[a].clear();
        self.wait_began[a] = None;
        self.checked[a] = false;
        self.wait_floor[a] = None;
        self.episode_floor[a] = None;
        self.cycle_seen[a] = None;
        self.sent_at[a] = None;
        self.deadlock_broken |=
            matches!(&result, StepResult::Error { code, .. } if code == "40P01");
        let entry = &mut self.entries[p.entry];
        entry.result = Some(result);
        entry.completed_after = Some(k);
        entry.seen = seen;
        Ok(())
    }

    /// Notes, where the model foresees a deadlock, a wait of actor `a` that began (was seen at
    /// `now`) and closed a cycle through a wait, still `blocked`, that may have had its
    /// deadlock check (`spacing::outlasted`) unbeknown to the model, which would let that wait
    /// find the cycle. A cycle closes when one of its waits begins, so every such cycle is seen.
    fn watch_pace(&mut self, a: usize, now: Instant, blocked: &[bool]) {
        if !self.deadlock_foreseen {
            return;
        }
        let on_cycle: Vec<bool> = (0..blocked.len())
            .map(|w| blocked[w] && self.reaches(a, w) && self.reaches(w, a))
            .collect();
        for w in (0..on_cycle.len()).filter(|&w| on_cycle[w] || w == a) {
            self.cycle_seen[w].get_or_insert(now);
        }
        if self.pace_lost.is_some() {
            return;
        }
        if let Some((w, lasted)) =
            spacing::outlasted(a, now, &on_cycle, &self.episode_floor, &self.checked)
        {
            let names = self.schedule.actors();
            self.pace_lost = Some(format!(
                "{} began to wait when {}'s wait may have lasted {} ms, and PostgreSQL checks a \
                 wait for a deadlock once, {} ms after it began",
                names[a].name,
                names[w].name,
                lasted.as_millis(),
                shared::sql::DEADLOCK_TIMEOUT_MS
            ));
        }
    }

    /// Notes, where the model foresees a deadlock, the waits on the cycle that victim `v`'s
    /// deadlock error broke (the blockers last seen) whose check should have come before `v`'s.
    fn note_victim(&mut self, v: usize) {
        self.failed_in_batch.push(v);
        if !self.deadlock_foreseen {
            return;
        }
        for w in 0..self.pending.len() {
            let on_cycle = w != v
                && self.pending[w].is_some()
                && !self.blockers[w].is_empty()
                && self.reaches(v, w)
                && self.reaches(w, v);
            if on_cycle
                && spacing::checked_first(
                    self.wait_began[w],
                    self.checked[w],
                    self.episode_floor[w],
                    self.cycle_seen[w],
                    self.episode_floor[v],
                )
            {
                self.victims_out_of_turn.push((v, w));
            }
        }
    }

    /// After a batch of answers: a victim noted by `note_victim` whose older wait on the
    /// cycle did not fail as well (it still waits, or the victim's end let it answer) means
    /// that PostgreSQL ran the two deadlock checks out of their turn (a session a loaded
    /// machine left without the CPU for longer than the spacing of waits); the run is then
    /// tried again (`ExecError::TooSlow`), as the model assumes the checks in turn.
    fn watch_victims(&mut self) {
        let failed = std::mem::take(&mut self.failed_in_batch);
        for (v, w) in std::mem::take(&mut self.victims_out_of_turn) {
            // Woken by the victim's end, the older wait may have answered in the same batch.
            if self.pace_lost.is_none() && !failed.contains(&w) {
                let names = self.schedule.actors();
                self.pace_lost = Some(format!(
                    "{} failed a deadlock check while {}, who began to wait before {} on the \
                     same cycle, did not: PostgreSQL checked the later wait first",
                    names[v].name, names[w].name, names[v].name
                ));
            }
        }
    }

    /// Whether `to` can be reached from `from` along the blockers (`from` waits for it,
    /// transitively).
    fn reaches(&self, from: usize, to: usize) -> bool {
        let mut seen = vec![false; self.blockers.len()];
        let mut stack = vec![from];
        while let Some(x) = stack.pop() {
            for &b in &self.blockers[x] {
                if b == to {
                    return true;
                }
                if !std::mem::replace(&mut seen[b], true) {
                    stack.push(b);
                }
            }
        }
        false
    }

    /// Whether the waiting actors' blockers form a cycle (a deadlock not yet broken).
    fn has_cycle(&self, waiting: &[usize]) -> bool {
        // 0: unvisited, 1: on the current path, 2: done.
        fn visit(a: usize, blockers: &[Vec<usize>], mark: &mut [u8]) -> bool {
            match mark[a] {
                1 => return true,
                2 => return false,
                _ => {}
            }
            mark[a] = 1;
            let found = blockers[a].iter().any(|&b| visit(b, blockers, mark));
            mark[a] = 2;
            found
        }
        let mut mark = vec![0u8; self.blockers.len()];
        waiting.iter().any(|&a| visit(a, &self.blockers, &mut mark))
    }

    fn actor_of(&self, pid: i32) -> Option<usize> {
        self.pids.iter().position(|&p| p == pid)
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
        let on = self.names(&self.blockers[a]);
        shared::engine::waiting_error(
            k,
            &actor.name,
            actor.program[p.op_index].name(),
            p.entry,
            &on,
        )
    }
}
