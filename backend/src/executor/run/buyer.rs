//! One buyer of a run as the driver sees it: its connection, its statement in flight, and what
//! the monitor last saw of that statement's wait for a lock.

use tokio::time::Instant;

use super::super::actor::ActorConn;
use super::super::waits::WaitGraph;

/// An actor of the run (a buyer, or the clock).
pub(super) struct Buyer<'a> {
    /// Its connection, owned by a task of its own that runs what it is sent.
    pub conn: &'a ActorConn,
    /// Its statement sent and not answered yet.
    pub pending: Option<Pending>,
    /// When that statement was sent.
    pub sent_at: Option<Instant>,
    /// That statement's wait for a lock, as last seen.
    pub wait: Wait,
}

/// A statement sent and not answered yet.
pub(super) struct Pending {
    pub entry: usize,
    pub op_index: usize,
    /// A `commit` of a transaction that an error had aborted.
    pub commit_of_failed: bool,
    /// Sent outside a transaction: it commits by itself when it ends.
    pub autocommit: bool,
}

/// What the monitor last saw of a statement in flight waiting for a lock. A wait begins when
/// the session blocks anew, on other sessions, or for another lock; a sleep on one lock (an
/// episode) lasts while only the sessions ahead of it in a queue change, and PostgreSQL checks
/// it for a deadlock once, `deadlock_timeout` after it began.
#[derive(Default)]
pub(super) struct Wait {
    /// The actors it was last seen blocked by, sorted (none: it does not wait).
    pub by: Vec<usize>,
    /// The lock it was last seen waiting for.
    pub awaiting: String,
    /// When its current wait began, as first seen (a little late).
    pub began: Option<Instant>,
    /// A moment its current wait, as the blockers last changed, surely began after (the
    /// monitor's last question before it was seen, or the statement's sending).
    pub floor: Option<Instant>,
    /// A moment its sleep on this lock surely began after: PostgreSQL's deadlock timer starts
    /// again only when the session blocks anew or on another lock, not when the sessions ahead
    /// of it in a queue change.
    pub episode_floor: Option<Instant>,
    /// Its sleep has had its deadlock check (the executor waited it out, or a deadlock's victim
    /// that began to sleep after it failed). PostgreSQL checks a sleep once, so this stays set
    /// while only the sessions ahead of it in a queue change.
    pub checked: bool,
    /// When it was first seen on a deadlock cycle (the cycle surely closed before), where the
    /// model foresees a deadlock.
    pub cycle_seen: Option<Instant>,
}

impl Wait {
    /// Records that the statement was seen at `seen` blocked (or not) by `by` (sorted) while
    /// waiting for `awaiting`. Whether a wait began: it was blocked anew, or woken and waiting
    /// again (on someone else, or for another lock: a tuple lock handed on, then the new
    /// holder's end), with a deadlock check of its own `deadlock_timeout` from now. `floor`: a
    /// moment such a wait surely began after (the question before, or the sending).
    fn seen(
        &mut self,
        blocked: bool,
        by: Vec<usize>,
        awaiting: String,
        seen: Instant,
        floor: Option<Instant>,
    ) -> bool {
        // The lock table is read a moment before the question whether a session is blocked:
        // a session that blocked in between is seen blocked for a lock not known yet, and the
        // next question only tells which. That is the same wait.
        let learnt = self.awaiting.is_empty() && !self.by.is_empty() && by == self.by;
        let began = blocked && !learnt && (by != self.by || awaiting != self.awaiting);
        if began {
            self.began = Some(seen);
            self.floor = floor;
            if self.by.is_empty() || awaiting != self.awaiting {
                // A sleep on another lock: PostgreSQL's deadlock timer starts again, and the
                // sleep gets a check of its own. Queued on the same lock behind someone else,
                // the session sleeps on: its one check stays spent.
                self.episode_floor = floor;
                self.cycle_seen = None;
                self.checked = false;
            }
        }
        self.by = by;
        self.awaiting = awaiting;
        began
    }
}

impl<'a> Buyer<'a> {
    pub fn new(conn: &'a ActorConn) -> Buyer<'a> {
        Buyer {
            conn,
            pending: None,
            sent_at: None,
            wait: Wait::default(),
        }
    }

    /// When the wait of its statement in flight was seen to begin, if it waits.
    pub fn waiting_since(&self) -> Option<Instant> {
        self.pending.as_ref().and(self.wait.began)
    }

    /// Records what the monitor saw, at `seen`, of its statement in flight (`Wait::seen`);
    /// whether a wait began. `last_asked`: the monitor's question before this one.
    pub fn seen(
        &mut self,
        blocked: bool,
        by: Vec<usize>,
        awaiting: String,
        seen: Instant,
        last_asked: Option<Instant>,
    ) -> bool {
        let floor = last_asked.max(self.sent_at);
        self.wait.seen(blocked, by, awaiting, seen, floor)
    }

    /// Its statement in flight answered (and `pending` taken): nothing waits.
    pub fn answered(&mut self) {
        self.sent_at = None;
        self.wait = Wait::default();
    }
}

/// Who waits for whom among `buyers`, as last seen.
pub(super) fn wait_graph<'b>(buyers: &'b [Buyer]) -> WaitGraph<'b> {
    WaitGraph::new(buyers.iter().map(|b| b.wait.by.as_slice()))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_new_lock_is_a_new_sleep_a_queue_moving_up_is_not_and_a_lock_learnt_late_is_the_same() {
        let t = Instant::now();
        let at = |ms| t + Duration::from_millis(ms);
        let lock = |name: &str| name.to_string();
        let mut w = Wait::default();
        // Seen blocked by 0 before the lock table showed which lock: a wait begins.
        assert!(w.seen(true, vec![0], String::new(), at(1), Some(t)));
        // The next question tells the lock: the same wait, the same sleep.
        assert!(!w.seen(true, vec![0], lock("tuple"), at(2), Some(at(1))));
        assert_eq!((w.began, w.episode_floor), (Some(at(1)), Some(t)));
        w.checked = true;
        // Queued behind someone else on the same lock: a new wait, the same sleep and check.
        assert!(w.seen(true, vec![1], lock("tuple"), at(3), Some(at(2))));
        assert_eq!(
            (w.began, w.episode_floor, w.checked),
            (Some(at(3)), Some(t), true)
        );
        // Woken, then asleep on another lock: a new sleep with a check of its own.
        assert!(w.seen(true, vec![1], lock("xact"), at(4), Some(at(3))));
        assert_eq!((w.episode_floor, w.checked), (Some(at(3)), false));
        // Not blocked: nothing begins, and it waits for no one.
        assert!(!w.seen(false, Vec::new(), String::new(), at(5), Some(at(4))));
        assert!(w.by.is_empty());
    }
}
