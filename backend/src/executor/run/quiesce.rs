//! Quiescence after an entry: every statement in flight has answered or is blocked, and no
//! deadlock cycle is left for PostgreSQL to break. The monitor is asked who is blocked only
//! once a statement that may wait has had time to answer; after a deadlock is broken, the run
//! waits for the checks of the waits still in progress.

use std::time::Duration;

use tokio::time::Instant;

use super::super::{monitor, spacing, ExecError};
use super::answers::first_answer;
use super::buyer::{wait_graph, Buyer};
use super::Driver;

/// How long to wait for an answer before asking again while a statement runs.
const RUNNING_POLL: Duration = Duration::from_micros(500);
/// How long to wait before asking again while blocked sessions form a cycle, which PostgreSQL's
/// deadlock detector breaks after `deadlock_timeout` (1 s).
const DEADLOCK_POLL: Duration = Duration::from_millis(10);
/// How long past the last wait's `deadlock_timeout` the executor waits after a deadlock is
/// broken, for the deadlock checks of every wait still in progress to have run.
const CHECK_MARGIN: Duration = Duration::from_millis(100);

impl Driver<'_> {
    /// Waits until every statement in flight has answered or is blocked, with no deadlock
    /// cycle among the blocked ones. Answers that arrive are recorded as completed during `k`.
    pub(super) async fn quiesce(&mut self, k: usize) -> Result<(), ExecError> {
        let mut patience = Some(first_answer());
        loop {
            let arrived = self.arrived().await;
            if !arrived.is_empty() {
                patience = Some(first_answer());
            }
            for c in arrived {
                self.complete(c, k)?;
            }
            self.pace.after_batch();
            let waiting: Vec<usize> = (0..self.buyers.len())
                .filter(|&a| self.buyers[a].pending.is_some())
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
            let all_blocked = self.ask(&waiting).await?;
            if all_blocked && !wait_graph(&self.buyers).has_cycle(&waiting) {
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

    /// Asks the monitor which of the actors `waiting` are blocked, by whom and for what lock,
    /// records it, and has the pace watched for every wait that began. Whether all are blocked.
    async fn ask(&mut self, waiting: &[usize]) -> Result<bool, ExecError> {
        let pids: Vec<i32> = waiting.iter().map(|&a| self.buyers[a].conn.pid).collect();
        let all = self.pids();
        let asked = Instant::now();
        let states = monitor::blocking(self.monitor, &pids, &all).await?;
        self.spent.blocking_checks += asked.elapsed();
        self.spent.asked += 1;
        let seen = Instant::now();
        let mut all_blocked = true;
        let mut blocked = vec![false; self.buyers.len()];
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
            let last_asked = self.last_asked;
            if self.buyers[a].seen(state.blocked, by, state.awaiting, seen, last_asked) {
                began.push(a);
            }
        }
        self.last_asked = Some(asked);
        for a in began {
            self.pace.wait_began(a, seen, &mut self.buyers, &blocked);
        }
        Ok(all_blocked)
    }

    /// After a deadlock is broken, waits until the deadlock check of every wait still in
    /// progress has run, then for quiescence again. PostgreSQL checks a wait once, so none of
    /// these can be a deadlock's victim any more, which is what the model assumes
    /// (`Locks::mark_checked`); going on sooner, a cycle closed now would fail whichever of
    /// them was still to be checked.
    pub(super) async fn let_deadlock_checks_run(&mut self, k: usize) -> Result<(), ExecError> {
        let timeout = Duration::from_millis(shared::sql::DEADLOCK_TIMEOUT_MS);
        let last = self.buyers.iter().filter_map(Buyer::waiting_since).max();
        if let Some(last) = last {
            let now = Instant::now();
            tokio::time::sleep_until(last + timeout + CHECK_MARGIN).await;
            self.spent.held_back += now.elapsed();
            for b in &mut self.buyers {
                b.wait.checked |= b.pending.is_some() && b.wait.floor.is_some();
            }
            self.quiesce(k).await?;
        }
        Ok(())
    }

    /// Whether actor `a`'s statement in flight may be waiting for a lock.
    fn may_wait(&self, a: usize) -> bool {
        self.buyers[a]
            .pending
            .as_ref()
            .is_some_and(|p| spacing::may_wait(&self.schedule.actors()[a].program[p.op_index]))
    }
}
