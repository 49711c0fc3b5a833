//! The pace watch: where the model foresees a deadlock, whether PostgreSQL ran its deadlock
//! checks in the model's order. When it cannot have, the try is thrown away and the run starts
//! again (`ExecError::TooSlow`): a loaded machine, never a disagreement.
//!
//! PostgreSQL checks a sleep on a lock once, `deadlock_timeout` after it began, and aborts the
//! session whose check finds a cycle. The model takes every wait's check to run after the
//! statements sent meanwhile have done what they do, and checks in the order the waits began:
//! a wait older than a deadlock's victim has had its check by the time the victim fails (so
//! also for the cycles that the victim's end closes), and after a deadlock is broken the run
//! waits until every wait still in progress has had its check. Two things break that: a wait
//! that begins when another on its cycle may already have had its only check (`PACE_LIMIT`),
//! and a victim whose check ran before that of an older wait on its cycle.

use std::time::Duration;

use shared::schedule::Actor;
use tokio::time::Instant;

use super::super::spacing::WAIT_SPACING;
use super::buyer::{wait_graph, Buyer, Wait};

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
pub(super) const PACE_LIMIT: Duration =
    Duration::from_millis(shared::sql::DEADLOCK_TIMEOUT_MS + WAIT_SPACING.as_millis() as u64 / 2);

/// What lost the model's pace.
enum Lost {
    /// `waiter`'s wait began when `outlasted`'s, on the cycle it closed, may have lasted
    /// `lasted` without its check waited out.
    Outlasted {
        waiter: usize,
        outlasted: usize,
        lasted: Duration,
    },
    /// `victim` failed a deadlock check while `older`, who began to wait clearly before it on
    /// the same cycle, did not.
    OutOfTurn { victim: usize, older: usize },
}

impl Lost {
    fn words(&self, actors: &[Actor]) -> String {
        match *self {
            Lost::Outlasted {
                waiter,
                outlasted,
                lasted,
            } => format!(
                "{} began to wait when {}'s wait may have lasted {} ms, and PostgreSQL checks a \
                 wait for a deadlock once, {} ms after it began",
                actors[waiter].name,
                actors[outlasted].name,
                lasted.as_millis(),
                shared::sql::DEADLOCK_TIMEOUT_MS
            ),
            Lost::OutOfTurn { victim, older } => format!(
                "{} failed a deadlock check while {}, who began to wait before {} on the same \
                 cycle, did not: PostgreSQL checked the later wait first",
                actors[victim].name, actors[older].name, actors[victim].name
            ),
        }
    }
}

/// A finding, and for a wait that may have outlasted its check, when the new wait was seen
/// and which actors were blocked then (`Seen`).
struct Finding {
    lost: Lost,
    seen: Option<Seen>,
}

/// The monitor's question that saw a wait begin: when, and who was blocked.
struct Seen {
    at: Instant,
    blocked: Vec<bool>,
}

impl Seen {
    /// Whether actor `v`'s wait, `w`, seen before this question, was over by then (it was not
    /// blocked any more).
    fn ended(&self, v: usize, w: &Wait) -> bool {
        !self.blocked[v] && w.began.is_some_and(|began| began < self.at)
    }
}

/// The watch over one run.
pub(super) struct PaceWatch {
    /// The model foresees a deadlock in this run: the pace is watched.
    on: bool,
    /// What lost the pace during the current entry, in the order found. A wait that may have
    /// outlasted its check stays here only if no victim's failure accounts for its check.
    found: Vec<Finding>,
    /// Deadlock victims (first) each with a wait on its cycle that began clearly before it,
    /// unchecked (second): PostgreSQL checks the older wait first, so unless that one fails
    /// too, the checks ran out of order (`checked_first`).
    out_of_turn: Vec<(usize, usize)>,
    /// The actors whose statement failed with a deadlock in the current batch of answers.
    failed_in_batch: Vec<usize>,
}

impl PaceWatch {
    pub fn new(deadlock_foreseen: bool) -> PaceWatch {
        PaceWatch {
            on: deadlock_foreseen,
            found: Vec::new(),
            out_of_turn: Vec::new(),
            failed_in_batch: Vec::new(),
        }
    }

    /// Notes a wait of actor `a` that began (was seen at `now`) and closed a cycle through a
    /// wait, still `blocked`, that may have had its deadlock check (`outlasted`) unbeknown to
    /// the model, which would let that wait find the cycle. A cycle closes when one of its
    /// waits begins, so every such cycle is seen.
    pub fn wait_began(&mut self, a: usize, now: Instant, buyers: &mut [Buyer], blocked: &[bool]) {
        if !self.on {
            return;
        }
        let on_cycle: Vec<bool> = {
            let graph = wait_graph(buyers);
            (0..blocked.len())
                .map(|w| blocked[w] && graph.on_cycle(a, w))
                .collect()
        };
        for w in (0..on_cycle.len()).filter(|&w| on_cycle[w] || w == a) {
            buyers[w].wait.cycle_seen.get_or_insert(now);
        }
        let first = (0..on_cycle.len())
            .filter(|&w| w != a && on_cycle[w])
            .find_map(|w| Some((w, outlasted(&buyers[w].wait, now)?)));
        if let Some((w, lasted)) = first {
            self.found.push(Finding {
                lost: Lost::Outlasted {
                    waiter: a,
                    outlasted: w,
                    lasted,
                },
                seen: Some(Seen {
                    at: now,
                    blocked: blocked.to_vec(),
                }),
            });
        }
    }

    /// Notes victim `v`'s deadlock error, before its wait is forgotten: the waits on the cycle
    /// it broke (the blockers last seen) whose check should have come before `v`'s; and that
    /// every wait that began before `v`'s has had its check, found no cycle, and will not fail.
    pub fn victim(&mut self, v: usize, buyers: &mut [Buyer]) {
        self.failed_in_batch.push(v);
        if !self.on {
            return;
        }
        let floor = buyers[v].wait.episode_floor;
        {
            let graph = wait_graph(buyers);
            for (w, b) in buyers.iter().enumerate() {
                let on_cycle =
                    w != v && b.pending.is_some() && !b.wait.by.is_empty() && graph.on_cycle(v, w);
                if on_cycle && checked_first(&b.wait, floor) {
                    self.out_of_turn.push((v, w));
                }
            }
        }
        for b in buyers.iter_mut().filter(|b| b.pending.is_some()) {
            b.wait.checked |= began_before(&b.wait, floor);
        }
        // A wait seen to begin once `v`'s wait was over (its answer may come a moment later)
        // began after `v`'s check, and so after the check of every wait older than `v`'s: one
        // of those that outlasted its check did so as the model has it.
        let ended = &buyers[v].wait;
        self.found.retain(|f| match (&f.lost, &f.seen) {
            (Lost::Outlasted { outlasted, .. }, Some(seen)) => {
                !seen.ended(v, ended) || !began_before(&buyers[*outlasted].wait, floor)
            }
            _ => true,
        });
    }

    /// After a batch of answers: a victim noted by `victim` whose older wait on the cycle did
    /// not fail as well (it still waits, or the victim's end let it answer) means that
    /// PostgreSQL ran the two deadlock checks out of their turn (a session a loaded machine
    /// left without the CPU for longer than the spacing of waits); the run is then tried again
    /// (`ExecError::TooSlow`), as the model assumes the checks in turn.
    pub fn after_batch(&mut self) {
        let failed = std::mem::take(&mut self.failed_in_batch);
        for (victim, older) in std::mem::take(&mut self.out_of_turn) {
            // Woken by the victim's end, the older wait may have answered in the same batch.
            if !failed.contains(&older) {
                self.found.push(Finding {
                    lost: Lost::OutOfTurn { victim, older },
                    seen: None,
                });
            }
        }
    }

    /// At the end of an entry: what lost the pace during it, first, in words.
    pub fn lost(&mut self, actors: &[Actor]) -> Option<String> {
        let found = std::mem::take(&mut self.found);
        found.first().map(|f| f.lost.words(actors))
    }
}

/// How long `w`, a wait on a cycle that another wait was seen to close at `now`, may have
/// lasted without its deadlock check waited out, if `PACE_LIMIT` or more.
fn outlasted(w: &Wait, now: Instant) -> Option<Duration> {
    let lasted = now.duration_since(w.episode_floor?);
    (!w.checked && lasted >= PACE_LIMIT).then_some(lasted)
}

/// Whether wait `w` surely began before a sleep that began after `floor`: its check ran first.
fn began_before(w: &Wait, floor: Option<Instant>) -> bool {
    matches!((w.began, floor), (Some(began), Some(floor)) if began < floor)
}

/// Whether wait `w` should have had its deadlock check before that of a wait that surely began
/// after `victim_floor`, so that it, not the other, would have failed: it was seen to begin
/// before that by more than half the spacing of waits (closer, as when one commit wakes both,
/// either check may run first), it is not known to be `checked`, and its check
/// (`deadlock_timeout` after its episode's floor, a moment its wait for this lock surely began
/// after) surely came after the cycle closed (it was seen on it at `cycle_seen`).
fn checked_first(w: &Wait, victim_floor: Option<Instant>) -> bool {
    let timeout = Duration::from_millis(shared::sql::DEADLOCK_TIMEOUT_MS);
    match (w.began, w.episode_floor, w.cycle_seen, victim_floor) {
        (Some(began), Some(episode), Some(cycle), Some(floor)) => {
            !w.checked && floor > began + WAIT_SPACING / 2 && episode + timeout > cycle
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wait seen to begin at `t`, its sleep surely begun after `t`, seen on a cycle at
    /// `cycle`, its check waited out or not.
    fn wait(t: Instant, cycle: Option<Instant>, checked: bool) -> Wait {
        let mut w = Wait::default();
        (w.began, w.episode_floor, w.cycle_seen, w.checked) = (Some(t), Some(t), cycle, checked);
        w
    }

    #[test]
    fn a_wait_that_outlasted_the_pace_limit_unchecked_is_named() {
        let (t, ms) = (Instant::now(), Duration::from_millis(1));
        let w = wait(t, None, false);
        assert_eq!(outlasted(&w, t + PACE_LIMIT), Some(PACE_LIMIT));
        // Before the limit, once its check was waited out, or not known to wait: no claim.
        assert_eq!(outlasted(&w, t + PACE_LIMIT - ms), None);
        assert_eq!(outlasted(&wait(t, None, true), t + PACE_LIMIT), None);
        assert_eq!(outlasted(&Wait::default(), t + PACE_LIMIT), None);
    }

    #[test]
    fn a_wait_seen_before_a_victim_began_had_its_check_first() {
        let t = Instant::now();
        assert!(began_before(&wait(t, None, false), Some(t + WAIT_SPACING)));
        // Seen only after the victim's sleep may have begun, or not known: no claim.
        assert!(!began_before(&wait(t, None, false), Some(t)));
        assert!(!began_before(&wait(t, None, false), None));
        assert!(!began_before(&Wait::default(), Some(t + WAIT_SPACING)));
    }

    #[test]
    fn an_older_unchecked_wait_should_have_been_checked_before_a_clearly_later_one() {
        let t = Instant::now();
        let (later, cycle) = (Some(t + WAIT_SPACING), Some(t + WAIT_SPACING));
        let w = wait(t, cycle, false);
        assert!(checked_first(&w, later));
        // Checked already, or begun about together (one commit woke both): either may fail.
        assert!(!checked_first(&wait(t, cycle, true), later));
        assert!(!checked_first(&w, Some(t + WAIT_SPACING / 2)));
        // Its check may have run before the cycle closed: then the later wait finds it.
        let timeout = Duration::from_millis(shared::sql::DEADLOCK_TIMEOUT_MS);
        assert!(!checked_first(&wait(t, Some(t + timeout), false), later));
        // Not known: no claim.
        let mut unseen = wait(t, cycle, false);
        unseen.began = None;
        assert!(!checked_first(&unseen, later));
        assert!(!checked_first(&wait(t, None, false), later));
        assert!(!checked_first(&w, None));
    }
}
