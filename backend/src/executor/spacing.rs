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

/// How long after a wait begins a statement that may start a wait on its cycle is held back.
/// Short beside `deadlock_timeout` (1 s): a wait is checked once, so a cycle that closes after
/// the check of a wait on it fails another session, and twenty waits can begin one after
/// another before that could happen.
pub(crate) const WAIT_SPACING: Duration = Duration::from_millis(50);

/// How long a wait may have lasted, unchecked, when another begins, in a run where the model
/// foresees a deadlock. The model lets every wait's deadlock check run after the statements
/// sent meanwhile have done what they do; a wait that began `deadlock_timeout` (1 s) before
/// another may have had its only check before a cycle through both closed, and then another
/// session is the victim. A loaded machine (a statement planned slowly while other processes'
/// DDL makes every session reload its catalog caches) can be that slow; the run is then tried
/// again (`ExecError::TooSlow`). Measured from a moment the wait surely began after to when
/// the other was seen to begin (surely after it did). Up to `deadlock_timeout` the other surely
/// began before the check; half the spacing of waits (`WAIT_SPACING`) more is allowed, for the
/// waits that one commit starts together (woken, they wait again within a millisecond or two
/// of each other, and a floor a few milliseconds early is the rule there, not a slow machine:
/// such runs agree with the model every time alone). A slow machine misses by far more.
pub(crate) const PACE_LIMIT: Duration =
    Duration::from_millis(shared::sql::DEADLOCK_TIMEOUT_MS + WAIT_SPACING.as_millis() as u64 / 2);

/// The wait (its actor, how long it may have lasted) of those `on_cycle` (blocked, on a cycle
/// that actor `a`'s wait, seen to begin at `now`, closed) that may have lasted `PACE_LIMIT` or
/// more without its deadlock check waited out (`checked`). `floor`: per actor, a moment its
/// wait surely began after.
pub(crate) fn outlasted(
    a: usize,
    now: Instant,
    on_cycle: &[bool],
    floor: &[Option<Instant>],
    checked: &[bool],
) -> Option<(usize, Duration)> {
    (0..on_cycle.len())
        .filter(|&w| w != a && on_cycle[w] && !checked[w])
        .filter_map(|w| Some((w, now.duration_since(floor[w]?))))
        .find(|&(_, lasted)| lasted >= PACE_LIMIT)
}

/// Whether a wait should have had its deadlock check before that of a wait that surely began
/// after `victim_floor`, so that it, not the other, would have failed: it was seen to begin
/// (`began`) before that by more than half the spacing of waits (closer, as when one commit
/// wakes both, either check may run first), it is not known to be `checked`, and its check
/// (`deadlock_timeout` after `episode_floor`, a moment its wait for this lock surely began
/// after) surely came after the cycle closed (it was seen on it at `cycle_seen`).
pub(crate) fn checked_first(
    began: Option<Instant>,
    checked: bool,
    episode_floor: Option<Instant>,
    cycle_seen: Option<Instant>,
    victim_floor: Option<Instant>,
) -> bool {
    let timeout = Duration::from_millis(shared::sql::DEADLOCK_TIMEOUT_MS);
    match (began, episode_floor, cycle_seen, victim_floor) {
        (Some(began), Some(episode), Some(cycle), Some(floor)) => {
            !checked && floor > began + WAIT_SPACING / 2 && episode + timeout > cycle
        }
        _ => false,
    }
}

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

/// What the executor knows of the run's sessions, per actor.
pub(crate) struct Sessions<'a> {
    /// The actors each one's pending statement was last seen blocked by.
    pub blockers: &'a [Vec<usize>],
    /// Whether its statement is in flight.
    pub pending: &'a [bool],
    /// When its current wait was seen to begin.
    pub began: &'a [Option<Instant>],
    /// The model foresees a deadlock in the run: every wait may be on its cycle.
    pub deadlock_foreseen: bool,
}

impl Sessions<'_> {
    /// The actors that `w` waits for, transitively.
    fn reach(&self, w: usize) -> Vec<bool> {
        let mut seen = vec![false; self.blockers.len()];
        let mut stack = vec![w];
        while let Some(a) = stack.pop() {
            for &b in &self.blockers[a] {
                if !seen[b] {
                    seen[b] = true;
                    stack.push(b);
                }
            }
        }
        seen
    }

    /// Until when actor `x`'s next statement, `op`, must be held back (`None`: it goes now).
    pub fn hold_until(&self, x: usize, op: &Op, now: Instant) -> Option<Instant> {
        let waits = may_wait(op);
        let hands_on = self.deadlock_foreseen && matches!(op, Op::Commit | Op::Rollback);
        if !waits && !hands_on {
            return None;
        }
        let mut until: Option<Instant> = None;
        for w in (0..self.pending.len()).filter(|&w| w != x && self.pending[w]) {
            let Some(end) = self.began[w].map(|t| t + WAIT_SPACING) else {
                continue;
            };
            if end > now && (self.deadlock_foreseen || self.reach(w)[x]) {
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
        let s = Sessions {
            blockers: &[vec![], vec![0], vec![1]],
            pending: &[false, true, true],
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
        let mut s = Sessions {
            blockers: &[vec![], vec![0], vec![]],
            pending: &[false, true, false],
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

    #[test]
    fn a_wait_that_begins_after_another_outlasted_the_pace_limit_unchecked_is_named() {
        let t = Instant::now();
        let pending = [true, true, true];
        let began = [Some(t), Some(t + Duration::from_millis(100)), None];
        let now = t + PACE_LIMIT;
        // 2 begins to wait: 0's wait has lasted the limit, 1's not yet.
        assert_eq!(
            outlasted(2, now, &pending, &began, &[false; 3]),
            Some((0, PACE_LIMIT))
        );
        // Once 0's check was waited out, or before the limit, nothing is named.
        assert_eq!(
            outlasted(2, now, &pending, &began, &[true, false, false]),
            None
        );
        assert_eq!(
            outlasted(
                2,
                now - Duration::from_millis(1),
                &pending,
                &began,
                &[false; 3]
            ),
            None
        );
        // A wait that is over, or on no cycle with it, counts for nothing.
        assert_eq!(
            outlasted(2, now, &[false, true, true], &began, &[false; 3]),
            None
        );
    }

    #[test]
    fn an_older_unchecked_wait_should_have_been_checked_before_a_clearly_later_one() {
        let t = Instant::now();
        let (later, cycle) = (Some(t + WAIT_SPACING), Some(t + WAIT_SPACING));
        assert!(checked_first(Some(t), false, Some(t), cycle, later));
        // Checked already, or begun about together (one commit woke both): either may fail.
        assert!(!checked_first(Some(t), true, Some(t), cycle, later));
        let together = Some(t + WAIT_SPACING / 2);
        assert!(!checked_first(Some(t), false, Some(t), cycle, together));
        // Its check may have run before the cycle closed: then the later wait finds it.
        let late_cycle = Some(t + Duration::from_millis(shared::sql::DEADLOCK_TIMEOUT_MS));
        assert!(!checked_first(Some(t), false, Some(t), late_cycle, later));
        // Not known: no claim.
        assert!(!checked_first(None, false, Some(t), cycle, later));
        assert!(!checked_first(Some(t), false, Some(t), None, later));
        assert!(!checked_first(Some(t), false, Some(t), cycle, None));
    }
}
