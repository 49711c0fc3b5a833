//! When a statement is held back after a wait began, so that deadlock victims come out as the
//! model says.
//!
//! Every session has the same `deadlock_timeout`, so of two waits on one deadlock cycle
//! PostgreSQL fails the one that began first, as the model does, only if the other began later
//! by more than the time a loaded machine may take to run a timed-out session: a few
//! milliseconds apart, either may be first. A new wait that may close a cycle therefore begins
//! at least `WAIT_SPACING` after every recent wait on it, and no later than it must.
//!
//! A statement may close a cycle through wait W now if it may wait and its actor is one that W
//! waits for, transitively: that is held back in every run. A statement that cannot wait (a
//! `begin`, a plain read, a `commit`) is never held back, nor one whose actor nobody waits for.
//!
//! A cycle can also form through locks taken later: a claim that queues behind W, or the waits
//! that a `commit` starts when it hands a lock on to a queue, can be on a cycle that only a
//! third session's later wait closes, and then the two waits' deadlock checks run a moment
//! apart, and whether the second finds the cycle depends on whether the first one's victim has
//! been replaced in it by the session it woke. Where the model foresees a deadlock in the run
//! (`Trace` has a 40P01, or the model cannot run it), every statement that may wait or hand a
//! lock on is therefore held back after every recent wait: runs with a deadlock spend a second
//! on `deadlock_timeout` anyway. Where it foresees none, those are not held back: whether
//! PostgreSQL breaks a deadlock at all does not depend on the pace (a cycle is found by the
//! check of the wait that closed it, whatever happened before), only which session it fails,
//! and a run that deadlocks where the model foresaw none differs from it whoever the victim is.
//! The model decides no outcome here, only the pace.

use std::time::Duration;

use shared::schedule::{Op, Wait};
use tokio::time::Instant;

use super::waits::WaitGraph;

/// How long after a wait begins a statement that may start a wait on its cycle is held back.
/// Short beside `deadlock_timeout` (1 s): a wait is checked once, so a cycle that closes after
/// the check of a wait on it fails another session, and twenty waits can begin one after
/// another before that could happen.
pub(crate) const WAIT_SPACING: Duration = Duration::from_millis(50);

/// Whether `op`, sent, may wait for a lock.
pub(crate) fn may_wait(op: &Op) -> bool {
    match op {
        Op::Begin { .. } | Op::Commit | Op::Rollback | Op::Read { .. } | Op::Advance { .. } => {
            false
        }
        Op::Lock { wait, .. } => *wait == Wait::Wait,
        // Never sent: the payment provider and Redis are simulated.
        Op::Pay { .. } | Op::RedisHold { .. } | Op::RedisRelease => false,
        // Writes, inserts under the unique key, and the functions that lock seats (`hold`
        // only with NOWAIT, counted anyway).
        _ => true,
    }
}

/// What the executor knows of the run's sessions.
pub(crate) struct Sessions<'a> {
    /// Who waits for whom.
    pub waits: &'a WaitGraph<'a>,
    /// Per actor: when the wait of its statement in flight was seen to begin (`None`: it has
    /// nothing in flight, or it does not wait).
    pub began: &'a [Option<Instant>],
    /// The model foresees a deadlock in the run: every wait may be on its cycle.
    pub deadlock_foreseen: bool,
}

impl Sessions<'_> {
    /// Until when actor `x`'s next statement, `op`, must be held back (`None`: it goes now).
    pub fn hold_until(&self, x: usize, op: &Op, now: Instant) -> Option<Instant> {
        let waits = may_wait(op);
        let hands_on = self.deadlock_foreseen && matches!(op, Op::Commit | Op::Rollback);
        if !waits && !hands_on {
            return None;
        }
        let mut until: Option<Instant> = None;
        for w in (0..self.began.len()).filter(|&w| w != x) {
            let Some(end) = self.began[w].map(|t| t + WAIT_SPACING) else {
                continue;
            };
            if end > now && (self.deadlock_foreseen || self.waits.reaches(w, x)) {
                until = until.max(Some(end));
            }
        }
        until
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lock(ids: &[&str]) -> Op {
        Op::Lock {
            seats: ids.iter().map(|s| s.to_string()).collect(),
            wait: Wait::Wait,
        }
    }

    fn read() -> Op {
        Op::Read {
            seats: vec!["A1".into()],
        }
    }

    #[test]
    fn a_statement_that_may_close_a_cycle_through_a_wait_is_held_back() {
        let now = Instant::now();
        // 1 waits for 0; 2 waits for 1.
        let by: [&[usize]; 3] = [&[], &[0], &[1]];
        let s = Sessions {
            waits: &WaitGraph::new(by),
            began: &[None, Some(now), Some(now)],
            deadlock_foreseen: false,
        };
        // 0, whom both wait for, may close a cycle with a lock.
        assert_eq!(
            s.hold_until(0, &lock(&["A1"]), now),
            Some(now + WAIT_SPACING)
        );
        // Long after the waits began, nothing is held back.
        assert_eq!(s.hold_until(0, &lock(&["A1"]), now + WAIT_SPACING), None);
        // Its commit or read starts no wait: they go at once.
        assert_eq!(s.hold_until(0, &Op::Commit, now), None);
        assert_eq!(s.hold_until(0, &read(), now), None);
    }

    #[test]
    fn a_statement_of_an_actor_nobody_waits_for_goes_at_once_unless_the_model_foresees_a_deadlock()
    {
        let now = Instant::now();
        // 1 waits for 0; 2 is free, about to lock what 1 waits for (it would queue behind 1).
        let by: [&[usize]; 3] = [&[], &[0], &[]];
        let mut s = Sessions {
            waits: &WaitGraph::new(by),
            began: &[None, Some(now), None],
            deadlock_foreseen: false,
        };
        assert_eq!(s.hold_until(2, &lock(&["A1", "A3"]), now), None);
        s.deadlock_foreseen = true;
        assert_eq!(
            s.hold_until(2, &lock(&["A1", "A3"]), now),
            Some(now + WAIT_SPACING)
        );
        // Where it does, a commit that hands a lock on is held back too.
        assert_eq!(s.hold_until(0, &Op::Commit, now), Some(now + WAIT_SPACING));
        // A statement that cannot wait still goes at once.
        assert_eq!(s.hold_until(2, &read(), now), None);
    }
}
