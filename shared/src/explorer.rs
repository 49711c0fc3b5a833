//! The explorer: every feasible interleaving of a schedule's programs (a waiting buyer cannot be
//! scheduled), run in the model and grouped by verdict and by how the losing buyer was stopped.
//!
//! The search is a depth-first walk that clones the engine at each branch, so a shared prefix is
//! simulated once. A bound stops it on very large spaces; the report then says how many orders
//! it covered out of the upper bound.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::assess::judge;
use crate::engine::{Blocked, Engine};
use crate::outcome::{Answer, SeatOutcome, StepResult, Trace, Verdict};
use crate::schedule::{Actor, Op, Schedule, CLOCK};

/// Orders that ended with the same verdict and the same way of stopping the loser.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Group {
    pub verdict: Verdict,
    /// How the buyer(s) who got no seat were stopped: "waited, then error 40001",
    /// "updated no rows", "skipped", "not stopped" (a double booking)...
    pub stop: String,
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
    mut visit: impl FnMut(&[usize], Engine<'s>),
) -> bool {
    let mut remaining = vec![0usize; schedule.actors().len()];
    for &a in &schedule.full_multiset() {
        remaining[a] += 1;
    }
    let mut path = Vec::with_capacity(remaining.iter().sum());
    let mut visited = 0u64;
    walk(
        Engine::new(schedule),
        &mut remaining,
        &mut path,
        limit,
        &mut visited,
        &mut visit,
    )
}

fn walk<'s>(
    engine: Engine<'s>,
    remaining: &mut [usize],
    path: &mut Vec<usize>,
    limit: u64,
    visited: &mut u64,
    visit: &mut impl FnMut(&[usize], Engine<'s>),
) -> bool {
    let runnable: Vec<usize> = (0..remaining.len())
        .filter(|&a| {
            remaining[a] > 0 && !matches!(engine.blocked(a), Some(Blocked::Waiting { .. }))
        })
        .collect();
    if runnable.is_empty() {
        if *visited >= limit {
            return false;
        }
        *visited += 1;
        visit(path, engine);
        return true;
    }
    let last = runnable.len() - 1;
    let mut engine = Some(engine);
    for (n, &a) in runnable.iter().enumerate() {
        // The last branch takes the engine itself instead of a clone.
        let mut next = if n == last {
            engine.take().expect("engine kept for the last branch")
        } else {
            engine.as_ref().expect("engine").clone()
        };
        next.step(a)
            .expect("a runnable actor can always be stepped");
        remaining[a] -= 1;
        path.push(a);
        let done = walk(next, remaining, path, limit, visited, visit);
        path.pop();
        remaining[a] += 1;
        if !done {
            return false;
        }
    }
    true
}

/// Every feasible order of the schedule's programs (at most `limit`), as actor indices.
pub fn orders(schedule: &Schedule, limit: u64) -> (Vec<Vec<usize>>, bool) {
    let mut out = Vec::new();
    let complete = for_each_order(schedule, limit, |path, _| out.push(path.to_vec()));
    (out, complete)
}

/// Runs every feasible order (at most `limit`) and groups them.
pub fn explore(schedule: &Schedule, limit: u64) -> Exploration {
    let mut groups: BTreeMap<(Verdict, String), Group> = BTreeMap::new();
    let mut count = 0u64;
    let complete = for_each_order(schedule, limit, |path, engine| {
        count += 1;
        let trace = engine.into_trace();
        let (seats, verdict) = judge(schedule, &trace);
        let stop = stop_label(schedule, &trace, &seats, &verdict);
        let key = (verdict, stop);
        groups
            .entry(key.clone())
            .or_insert_with(|| Group {
                verdict: key.0,
                stop: key.1,
                count: 0,
                example: path
                    .iter()
                    .map(|&a| schedule.actors()[a].name.clone())
                    .collect(),
            })
            .count += 1;
    });
    let mut groups: Vec<Group> = groups.into_values().collect();
    groups.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.example.cmp(&b.example))
    });
    Exploration {
        orders: count,
        complete,
        permutations: permutations(schedule),
        groups,
    }
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

/// How the buyers who ended with no seat were stopped, in a few words.
pub fn stop_label(
    schedule: &Schedule,
    trace: &Trace,
    seats: &BTreeMap<String, SeatOutcome>,
    verdict: &Verdict,
) -> String {
    if verdict.double_booked {
        return "not stopped".to_string();
    }
    let seated: Vec<&String> = seats.values().flat_map(|s| s.told.iter()).collect();
    let mut labels: Vec<String> = schedule
        .actors()
        .iter()
        .filter(|a| a.name != CLOCK && !seated.contains(&&a.name))
        .filter_map(|a| how_stopped(trace, a))
        .collect();
    labels.sort();
    labels.dedup();
    if labels.is_empty() {
        "nobody stopped".to_string()
    } else {
        labels.join("; ")
    }
}

fn how_stopped(trace: &Trace, actor: &Actor) -> Option<String> {
    let mine: Vec<_> = trace
        .entries
        .iter()
        .filter(|e| e.actor == actor.name)
        .collect();
    let waited = mine.iter().any(|e| !e.waited_for.is_empty());
    let how = mine
        .iter()
        .find_map(|e| match (&actor.program[e.op_index], &e.result) {
            (_, Some(StepResult::Error { code, .. })) => Some(format!("error {code}")),
            (_, Some(StepResult::Skipped)) => {
                Some("skipped: it remembered the seat as taken".to_string())
            }
            (_, Some(StepResult::Answer { answer }))
                if *answer != Answer::Held
                    && *answer != Answer::Issued
                    && *answer != Answer::Duplicate
                    && *answer != Answer::Released =>
            {
                Some(format!("answered {}", answer.as_str()))
            }
            (
                Op::Claim { seats, .. } | Op::Write { seats, .. } | Op::Lock { seats, .. },
                Some(StepResult::Ok { rows: Some(n) }),
            ) if (*n as usize) < seats.len() => {
                Some(if matches!(actor.program[e.op_index], Op::Lock { .. }) {
                    "locked fewer rows".to_string()
                } else {
                    "updated no rows".to_string()
                })
            }
            _ => None,
        })?;
    Some(if waited {
        format!("waited, then {how}")
    } else {
        how
    })
}
