//! The actors' answers as the run takes them in: waited for without parking the thread, and
//! each recorded as its entry's step result, with the client state it leaves.

use std::future::poll_fn;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Poll;
use std::time::Duration;

use shared::outcome::StepResult;
use shared::schedule::Op;

use super::super::actor::Completion;
use super::super::{answer, ExecError};
use super::Driver;

/// How long a statement just sent (or the statements still in flight after an answer came in:
/// a commit's answer, then those of the statements it woke) gets to answer before the monitor
/// asks whether it is blocked, on a machine running one or two runs: most answer well within
/// it, and then no question is needed. With more runs at once (`backend verify`) every answer
/// comes later and every question takes CPU from the others: the patience grows with the runs
/// in flight in this process (`first_answer`), up to four times this.
const FIRST_ANSWER: Duration = Duration::from_micros(250);

/// The runs whose entries this process is running now.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// `FIRST_ANSWER`, times one for every two runs in flight (at most four).
pub(super) fn first_answer() -> Duration {
    let running = RUNNING.load(Ordering::Relaxed).max(1);
    FIRST_ANSWER * running.div_ceil(2).min(4) as u32
}

/// Counts a run in `RUNNING` while it lives.
pub(super) struct Running;

impl Running {
    pub fn new() -> Running {
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

impl Driver<'_> {
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
    pub(super) async fn arrived(&mut self) -> Vec<Completion> {
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
    pub(super) async fn await_answer(
        &mut self,
        patience: Duration,
        k: usize,
    ) -> Result<bool, ExecError> {
        tokio::select! {
            c = self.completions.recv() => self.received(c, k).map(|()| true),
            () = pause(patience) => Ok(false),
        }
    }

    /// Waits for the next answer, however long it takes, and records it.
    pub(super) async fn next_answer(&mut self, k: usize) -> Result<(), ExecError> {
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

    /// Records an answer, completed during entry `k`: the step result, the rows seen, and the
    /// client state it leaves.
    pub(super) fn complete(&mut self, c: Completion, k: usize) -> Result<(), ExecError> {
        let a = c.actor;
        let p = self.buyers[a].pending.take().ok_or_else(|| {
            ExecError::Unexpected(format!(
                "an answer for {} with nothing in flight",
                self.schedule.actors()[a].name
            ))
        })?;
        let op = &self.schedule.actors()[a].program[p.op_index];
        let (result, seen) = answer::step(op, c.answer, p.commit_of_failed, self.clients.clock)?;
        let deadlock = matches!(&result, StepResult::Error { code, .. } if code.is_deadlock());
        if deadlock {
            self.pace.victim(a, &mut self.buyers);
        }
        self.committed |= match op {
            Op::Commit => matches!(result, StepResult::Ok { .. }),
            _ => p.autocommit && writes(op),
        };
        self.clients
            .answered(self.schedule, a, p.op_index, &result, &seen);
        self.buyers[a].answered();
        self.deadlock_broken |= deadlock;
        let entry = &mut self.entries[p.entry];
        entry.result = Some(result);
        entry.completed_after = Some(k);
        entry.seen = seen;
        Ok(())
    }
}
