//! The order: the one a file gives, checked against the programs, or the default one for a
//! file that gives none, found by driving the model so that it never names a buyer whose
//! statement still waits.

use std::collections::BTreeSet;

use super::{Actor, Schedule, ScheduleError, MAX_ORDER};
use crate::engine::{Blocked, Engine};

/// How many entries the default order's search may try once taking turns has got stuck,
/// before it gives up: a bound on the work a file can ask of a parse (some tens of
/// milliseconds at most).
const SEARCH_LIMIT: usize = 2_000;

/// The order a file gives, as indices into `actors` (empty if it gives none).
pub(super) fn given(order: &[String], actors: &[Actor]) -> Result<Vec<usize>, ScheduleError> {
    if order.len() > MAX_ORDER {
        return Err(ScheduleError::new(
            "order",
            format!(
                "{} entries is more than the limit of {MAX_ORDER}",
                order.len()
            ),
        ));
    }
    let mut used = vec![0usize; actors.len()];
    let mut out = Vec::with_capacity(order.len());
    for (i, name) in order.iter().enumerate() {
        let Some(a) = actors.iter().position(|a| &a.name == name) else {
            let known: Vec<&str> = actors.iter().map(|a| a.name.as_str()).collect();
            return Err(ScheduleError::new(
                format!("order[{i}]"),
                format!(
                    "unknown actor {name:?}{}: the actors are {}",
                    super::suggest::aside(name, &known),
                    known.join(", ")
                ),
            ));
        };
        used[a] += 1;
        if used[a] > actors[a].program.len() {
            return Err(ScheduleError::new(
                format!("order[{i}]"),
                format!(
                    "{name} has only {} operations, but the order names {name} {} times by here: remove this entry or add an operation",
                    actors[a].program.len(),
                    used[a]
                ),
            ));
        }
        out.push(a);
    }
    Ok(out)
}

/// Where taking turns got stuck, and no other order was found that runs every program to its
/// end: every buyer with operations left waits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stuck {
    /// The entries sent in turn until then: an order that runs, but not to the end.
    pub order: Vec<usize>,
    /// Each buyer left, with the entry (0-based) of its statement that waits and whom it
    /// waits for.
    pub waiting: Vec<(usize, usize, Vec<String>)>,
    /// Whether the search ran to its end (else it gave up at its limit).
    pub exhaustive: bool,
}

impl Stuck {
    /// The error of a file without an order whose programs no order runs to the end.
    pub fn error(&self, schedule: &Schedule) -> ScheduleError {
        let waits: Vec<String> = self
            .waiting
            .iter()
            .map(|(a, entry, on)| {
                let actor = &schedule.actors()[*a];
                let op_index = self.order[..*entry].iter().filter(|&&x| x == *a).count();
                format!(
                    "{}'s {} (entry {}) waits for {}",
                    actor.name,
                    actor.program[op_index].name(),
                    entry + 1,
                    crate::engine::join(on)
                )
            })
            .collect();
        let found = if self.exhaustive {
            "no order runs every program to its end"
        } else {
            "no order was found that runs every program to its end"
        };
        ScheduleError::new(
            "schedule",
            format!(
                "the file gives no order, and {found}: taking turns, {}; nothing left to run would end the wait (a program ends inside its transaction). End that program with commit or rollback, or give an \"order\"",
                waits.join("; ")
            ),
        )
    }
}

impl Schedule {
    /// The default order, of a file that gives none: every buyer's next operation in turn, in
    /// the order of `actors()`, passing over a buyer whose statement still waits for a lock or
    /// whose program is over, until every program has run to its end. If taking turns gets
    /// stuck (every buyer left waits, which happens only behind a program that ends inside
    /// its transaction), the first order in the same preference that runs every program to
    /// its end, found by a bounded search; `Stuck` if there is none.
    pub fn round_robin(&self) -> Result<Vec<usize>, Stuck> {
        let mut left: Vec<usize> = self.actors.iter().map(|a| a.program.len()).collect();
        let mut engine = Engine::new(self);
        let mut order = Vec::new();
        let mut turn = 0;
        loop {
            let Some(a) = next_turns(&engine, &left, turn).next() else {
                break;
            };
            if engine.step(a).is_err() {
                break;
            }
            left[a] -= 1;
            order.push(a);
            turn = a + 1;
        }
        if left.iter().all(|&l| l == 0) {
            return Ok(order);
        }
        let waiting = (0..left.len())
            .filter(|&a| left[a] > 0)
            .filter_map(|a| match engine.blocked(a) {
                Some(Blocked::Waiting { entry, on }) => Some((a, entry, on)),
                _ => None,
            })
            .collect();
        let mut search = Search {
            path: Vec::new(),
            budget: SEARCH_LIMIT,
            dead: BTreeSet::new(),
        };
        let mut all: Vec<usize> = self.actors.iter().map(|a| a.program.len()).collect();
        if search.run(&Engine::new(self), &mut all, 0) {
            return Ok(search.path);
        }
        Err(Stuck {
            order,
            waiting,
            exhaustive: search.budget > 0,
        })
    }
}

/// The buyers that can send their next operation, from `turn` on, in turn.
fn next_turns<'a>(
    engine: &'a Engine<'_>,
    left: &'a [usize],
    turn: usize,
) -> impl Iterator<Item = usize> + 'a {
    let n = left.len();
    (0..n)
        .map(move |i| (turn + i) % n)
        .filter(move |&a| left[a] > 0 && engine.blocked(a).is_none())
}

/// A point of the search: the operations each buyer has left, and whom each waits for.
type Point = (Vec<usize>, Vec<Option<Vec<String>>>);

/// Whom each of the `n` buyers waits for (`None`: it does not wait).
fn waits(engine: &Engine<'_>, n: usize) -> Vec<Option<Vec<String>>> {
    (0..n)
        .map(|a| match engine.blocked(a) {
            Some(Blocked::Waiting { on, .. }) => Some(on),
            _ => None,
        })
        .collect()
}

/// A depth-first search over orders, trying the buyers in turn at every entry.
struct Search {
    path: Vec<usize>,
    budget: usize,
    /// The points where the search met only dead ends, each told by how many operations
    /// each buyer has left and whom each waiting buyer waits for: an order that reaches the
    /// same point another way is not tried again.
    dead: BTreeSet<Point>,
}

impl Search {
    /// Whether some order continues `engine` (with `left` operations per buyer) to the end.
    fn run(&mut self, engine: &Engine<'_>, left: &mut [usize], turn: usize) -> bool {
        if left.iter().all(|&l| l == 0) {
            return true;
        }
        let point = (left.to_vec(), waits(engine, left.len()));
        if self.dead.contains(&point) {
            return false;
        }
        let candidates: Vec<usize> = next_turns(engine, left, turn).collect();
        for a in candidates {
            if self.budget == 0 {
                return false;
            }
            self.budget -= 1;
            let mut next = engine.clone();
            if next.step(a).is_err() {
                continue;
            }
            left[a] -= 1;
            self.path.push(a);
            if self.run(&next, left, a + 1) {
                return true;
            }
            left[a] += 1;
            self.path.pop();
        }
        if self.budget > 0 {
            self.dead.insert(point);
        }
        false
    }
}
