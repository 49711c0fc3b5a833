//! The explorer: every feasible interleaving of a schedule's programs (a waiting buyer cannot be
//! scheduled), run in the model and grouped by verdict and by how the losing buyer was stopped.
//!
//! The search is a depth-first walk that copies the engine at each branch, so a shared prefix is
//! simulated once, and judges each order from the engine's compact record (`group.rs`), never
//! rendering a trace. A bound stops it on very large spaces; the report then says how many
//! orders it covered out of the upper bound. How a buyer was stopped, in words, is `stop.rs`'s;
//! the defence × scenario matrix of chapters 4 and 5 is `matrix.rs`'s.

mod group;
mod matrix;
mod stop;

use serde::Serialize;

use crate::engine::Engine;
use crate::outcome::Verdict;
use crate::schedule::Schedule;

use group::Grouper;
pub use matrix::{
    matrix_cell, matrix_cell_on, matrix_column, matrix_defences, matrix_scenarios, matrix_schedule,
    matrix_schedule_on, matrix_shape_columns, MatrixCell, MatrixScenario, Way, MATRIX_CELL_LIMIT,
};
pub use stop::{stop_label, stops, Stop, StopHow, NOT_STOPPED};

/// Orders that ended with the same verdict and the same way of stopping the loser.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Group {
    pub verdict: Verdict,
    /// How the buyer(s) who got no seat were stopped, in words: "waited, then got error 40001
    /// (serialization failure)", "updated no rows: the seat was no longer free", or "nobody was
    /// stopped: the seat was sold twice"...
    pub stop: String,
    /// The same, one entry per distinct way (sorted by its words); empty for a double booking.
    pub stops: Vec<Stop>,
    pub count: u64,
    /// The first order found in this group, as actor names.
    pub example: Vec<String>,
}

/// The result of exploring a schedule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Exploration {
    /// Feasible orders run to their end (or until every remaining buyer waited forever).
    pub orders: u64,
    /// False when the bound stopped the search before it covered every order.
    pub complete: bool,
    /// The number of permutations of the entries, feasible or not: an upper bound.
    pub permutations: u64,
    pub groups: Vec<Group>,
}

impl Exploration {
    /// Orders whose verdict is a double booking.
    pub fn double_booked(&self) -> u64 {
        self.groups
            .iter()
            .filter(|g| g.verdict.double_booked)
            .map(|g| g.count)
            .sum()
    }

    /// The first group with a double booking: a counterexample to jump to.
    pub fn counterexample(&self) -> Option<&Group> {
        self.groups.iter().find(|g| g.verdict.double_booked)
    }
}

/// Calls `visit` with every feasible order (as actor indices) and its finished engine, depth
/// first, until `limit` orders were visited. Returns whether it covered them all.
pub fn for_each_order<'s>(
    schedule: &'s Schedule,
    limit: u64,
    visit: impl FnMut(&[usize], Engine<'s>),
) -> bool {
    struct Leaves<F>(F);
    impl<'s, F: FnMut(&[usize], Engine<'s>)> Visitor<'s> for Leaves<F> {
        fn leaf(&mut self, path: &[usize], engine: &Engine<'s>) {
            (self.0)(path, engine.clone())
        }
    }
    walk_all(schedule, limit, &mut Leaves(visit))
}

/// What the walk tells its user.
trait Visitor<'s> {
    /// `engine` has just run the entry at `depth` (0-based) of the order being walked; `last`:
    /// it was the last branch from its parent, whose state nothing needs any more.
    fn stepped(&mut self, _depth: usize, _last: bool, _engine: &Engine<'s>) {}
    /// A feasible order ran to its end (or until every remaining buyer waited forever).
    fn leaf(&mut self, path: &[usize], engine: &Engine<'s>);
}

/// Walks every feasible order (at most `limit`), telling `visitor`; whether it covered them all.
fn walk_all<'s>(schedule: &'s Schedule, limit: u64, visitor: &mut impl Visitor<'s>) -> bool {
    let entries = schedule.full_multiset();
    let mut remaining = vec![0usize; schedule.actors().len()];
    for &a in &entries {
        remaining[a] += 1;
    }
    let mut walk = Walk {
        remaining,
        path: Vec::with_capacity(entries.len()),
        limit,
        visited: 0,
        engines: vec![Engine::new(schedule)],
    };
    walk.from(0, visitor)
}

/// A depth-first walk: the entries left per actor, the order so far, and the engines of the
/// branches being walked.
struct Walk<'s> {
    remaining: Vec<usize>,
    path: Vec<usize>,
    limit: u64,
    visited: u64,
    /// A stack of engines: a branch other than the last runs in a copy of its parent put in
    /// the next slot (reusing the buffers of the copy that was there), the last branch in its
    /// parent's engine itself.
    engines: Vec<Engine<'s>>,
}

impl<'s> Walk<'s> {
    /// Walks every order that continues the current path from `engines[slot]`; false once the
    /// limit stopped it.
    fn from(&mut self, slot: usize, visitor: &mut impl Visitor<'s>) -> bool {
        let engine = &self.engines[slot];
        // Actors are at most 8 (`MAX_ACTORS`): the runnable ones fit a mask.
        let runnable = (0..self.remaining.len())
            .filter(|&a| self.remaining[a] > 0 && !engine.waiting(a))
            .fold(0u32, |m, a| m | 1 << a);
        if runnable == 0 {
            if self.visited >= self.limit {
                return false;
            }
            self.visited += 1;
            visitor.leaf(&self.path, engine);
            return true;
        }
        let last = 31 - runnable.leading_zeros() as usize;
        for a in (0..=last).filter(|&a| runnable & (1 << a) != 0) {
            let at = if a == last { slot } else { self.copy(slot) };
            self.engines[at]
                .step(a)
                .expect("a runnable actor can always be stepped");
            visitor.stepped(self.path.len(), a == last, &self.engines[at]);
            self.remaining[a] -= 1;
            self.path.push(a);
            let done = self.from(at, visitor);
            self.path.pop();
            self.remaining[a] += 1;
            if !done {
                return false;
            }
        }
        true
    }

    /// Copies `engines[slot]` into the next slot; returns that slot.
    fn copy(&mut self, slot: usize) -> usize {
        if self.engines.len() == slot + 1 {
            let copy = self.engines[slot].clone();
            self.engines.push(copy);
        } else {
            let (parents, next) = self.engines.split_at_mut(slot + 1);
            next[0].clone_from(&parents[slot]);
        }
        slot + 1
    }
}

/// Every feasible order of the schedule's programs (at most `limit`), as actor indices.
pub fn orders(schedule: &Schedule, limit: u64) -> (Vec<Vec<usize>>, bool) {
    struct Paths(Vec<Vec<usize>>);
    impl Visitor<'_> for Paths {
        fn leaf(&mut self, path: &[usize], _: &Engine<'_>) {
            self.0.push(path.to_vec())
        }
    }
    let mut paths = Paths(Vec::new());
    let complete = walk_all(schedule, limit, &mut paths);
    (paths.0, complete)
}

/// Runs every feasible order (at most `limit`) and groups them.
///
/// Orders are judged from the engine's compact record, never from a rendered trace: the walk
/// replays each entry once into a `CompactJudge` and a `Stops` per depth (orders that share a
/// prefix share its replay), which give the verdict and the stop label that `judge` and
/// `stop_label` give on the trace, at a fraction of the cost.
pub fn explore(schedule: &Schedule, limit: u64) -> Exploration {
    let mut grouper = Grouper::new(schedule);
    let complete = walk_all(schedule, limit, &mut grouper);
    grouper.exploration(complete)
}

/// The multinomial coefficient of the programs' lengths (saturating).
pub fn permutations(schedule: &Schedule) -> u64 {
    let mut total: u128 = 1;
    let mut n: u128 = 0;
    for actor in schedule.actors() {
        for k in 1..=actor.program.len() as u128 {
            n += 1;
            total = total * n / k;
            if total > u64::MAX as u128 {
                return u64::MAX;
            }
        }
    }
    total as u64
}
