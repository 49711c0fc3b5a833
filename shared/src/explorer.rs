//! The explorer: every feasible interleaving of a schedule's programs (a waiting buyer cannot be
//! scheduled), run in the model and grouped by verdict and by how the losing buyer was stopped.
//!
//! The search is a depth-first walk that copies the engine at each branch, so a shared prefix is
//! simulated once, and judges each order from the engine's compact record, never rendering a
//! trace. A bound stops it on very large spaces; the report then says how many orders it covered
//! out of the upper bound. Last, the defence × scenario matrix of chapters 4 and 5: per cell,
//! every order of buyers racing for one seat with one defence, and how the losers were stopped.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::assess::{judge_compact, CompactJudge, CompactVerdict};
use crate::defences;
use crate::engine::{Engine, Names};
use crate::outcome::{Answer, SeatOutcome, StepResult, Trace, Verdict};
use crate::schedule::{
    Op, ProgramSpec, Scenario, Schedule, ScheduleFile, SeatSpec, SeatStatus, CLOCK, MAX_ACTORS,
};

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
    let mut grouper = Grouper {
        schedule,
        depths: Vec::new(),
        codes: Vec::new(),
        keys: Vec::new(),
        by_label: BTreeMap::new(),
        groups: Vec::new(),
        count: 0,
    };
    let complete = walk_all(schedule, limit, &mut grouper);
    Exploration {
        orders: grouper.count,
        complete,
        permutations: permutations(schedule),
        groups: sorted(grouper.groups),
    }
}

/// Judges and groups the orders as the walk runs them.
struct Grouper<'s> {
    schedule: &'s Schedule,
    /// Per depth: the replay of the current order's entries up to it (index 0: none).
    depths: Vec<(CompactJudge, Stops)>,
    /// The SQLSTATEs met so far (`How::Error` holds an index into it).
    codes: Vec<String>,
    /// Each distinct order key met so far, and its group (an index into `groups`); the last
    /// one met first.
    keys: Vec<(OrderKey, usize)>,
    /// The groups by verdict and stop label.
    by_label: BTreeMap<(Verdict, String), usize>,
    groups: Vec<Group>,
    count: u64,
}

/// What decides an order's group, on indices: its verdict and how each buyer with no seat was
/// stopped. Orders with different keys may still share a group (the same labels in another
/// arrangement).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct OrderKey {
    verdict: CompactVerdict,
    /// Per actor, unless double-booked: whether it waited and what stopped it, if it got no seat.
    stops: [Option<(bool, How<u16>)>; MAX_ACTORS],
}

/// Per actor, from the entries so far: whether one of its operations waited, and the first of
/// its operations (by entry) whose final result stopped it.
#[derive(Clone, Copy, Debug, Default)]
struct Stops {
    waited: u16,
    /// The entry (orders are at most `MAX_ORDER` long) and what stopped the actor.
    first: [Option<(u16, How<u16>)>; MAX_ACTORS],
}

impl<'s> Visitor<'s> for Grouper<'s> {
    fn stepped(&mut self, depth: usize, last: bool, engine: &Engine<'s>) {
        if self.depths.is_empty() {
            let judge = CompactJudge::new(self.schedule, engine.names());
            self.depths.push((judge, Stops::default()));
        }
        if self.depths.len() <= depth + 1 {
            self.depths.resize(depth + 2, Default::default());
        }
        let (done, next) = self.depths.split_at_mut(depth + 1);
        let (judge, stops) = &mut next[0];
        if last {
            std::mem::swap(judge, &mut done[depth].0);
        } else {
            judge.clone_from(&done[depth].0);
        }
        *stops = done[depth].1;
        let (before, node) = engine.last_entry().expect("an entry just ran");
        judge.entry(self.schedule, engine.names(), before, node);
        if !node.blockers.is_empty() {
            stops.waited |= 1 << node.actor;
        }
        for d in node.events.done.iter() {
            let op = &self.schedule.actors()[d.actor].program[d.op_index];
            let Some(how) = How::of(op, &d.result) else {
                continue;
            };
            let first = &mut stops.first[d.actor];
            let entry = d.entry as u16;
            if first.is_none_or(|(e, _)| entry < e) {
                *first = Some((entry, how.map(|code| intern(&mut self.codes, code))));
            }
        }
    }

    fn leaf(&mut self, path: &[usize], engine: &Engine<'s>) {
        self.count += 1;
        let schedule = self.schedule;
        let (verdict, stops) = match self.depths.get(path.len()) {
            Some((judge, stops)) => (judge.verdict(schedule, engine.committed_now()), *stops),
            // No entry ran at all.
            None => (judge_compact(schedule, &engine.compact()), Stops::default()),
        };
        let mut key = OrderKey {
            verdict,
            stops: [None; MAX_ACTORS],
        };
        if !verdict.double_booked {
            for (i, actor) in schedule.actors().iter().enumerate() {
                if actor.name != CLOCK && verdict.seated & (1 << i) == 0 {
                    key.stops[i] =
                        stops.first[i].map(|(_, how)| (stops.waited & (1 << i) != 0, how));
                }
            }
        }
        let group = match self.keys.iter().position(|(k, _)| *k == key) {
            Some(at) => {
                // Orders of the same key tend to follow one another: keep the last one first.
                self.keys.swap(0, at);
                self.keys[0].1
            }
            None => {
                let group = self.group(&key, path, engine.names());
                self.keys.insert(0, (key, group));
                group
            }
        };
        self.groups[group].count += 1;
    }
}

impl Grouper<'_> {
    /// The group of a key met for the first time, in the order `path`: one with the same
    /// verdict and stop label, or a new one with this order as its example.
    fn group(&mut self, key: &OrderKey, path: &[usize], names: &Names) -> usize {
        let label = (key.verdict.verdict(names), self.stop(key));
        if let Some(&group) = self.by_label.get(&label) {
            return group;
        }
        self.groups.push(Group {
            verdict: label.0.clone(),
            stop: label.1.clone(),
            count: 0,
            example: path
                .iter()
                .map(|&a| self.schedule.actors()[a].name.clone())
                .collect(),
        });
        self.by_label.insert(label, self.groups.len() - 1);
        self.groups.len() - 1
    }

    /// The stop label of an order key, as `stop_label` writes it.
    fn stop(&self, key: &OrderKey) -> String {
        if key.verdict.double_booked {
            return "not stopped".to_string();
        }
        join_labels(key.stops.iter().flatten().map(|&(waited, how)| {
            how.map(|code| self.codes[code as usize].as_str())
                .words(waited)
        }))
    }
}

/// The index of `code` in `codes`, added if new.
fn intern(codes: &mut Vec<String>, code: &str) -> u16 {
    match codes.iter().position(|c| c == code) {
        Some(i) => i as u16,
        None => {
            codes.push(code.to_string());
            (codes.len() - 1) as u16
        }
    }
}

/// Groups by count (largest first), then by example order.
fn sorted(mut groups: Vec<Group>) -> Vec<Group> {
    groups.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.example.cmp(&b.example))
    });
    groups
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
    join_labels(
        schedule
            .actors()
            .iter()
            .filter(|a| a.name != CLOCK && !seated.contains(&&a.name))
            .filter_map(|a| {
                let mine = trace.entries.iter().filter(|e| e.actor == a.name);
                let waited = mine.clone().any(|e| !e.waited_for.is_empty());
                let how = mine
                    .filter_map(|e| Some((e.op_index, e.result.as_ref()?)))
                    .find_map(|(op_index, result)| How::of(&a.program[op_index], result))?;
                Some(how.words(waited))
            }),
    )
}

fn join_labels(labels: impl Iterator<Item = String>) -> String {
    let mut labels: Vec<String> = labels.collect();
    labels.sort();
    labels.dedup();
    if labels.is_empty() {
        "nobody stopped".to_string()
    } else {
        labels.join("; ")
    }
}

/// What stopped a buyer in one of its operations; `C`: how the SQLSTATE of an error is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum How<C> {
    Error(C),
    /// A write or a book not sent: the buyer remembered the seat as taken.
    Skipped,
    /// A one-call operation's answer other than a success.
    Answered(Answer),
    UpdatedNoRows,
    LockedFewerRows,
}

impl<'r> How<&'r str> {
    /// What the final result of `op` says, if it stopped the buyer.
    fn of(op: &Op, result: &'r StepResult) -> Option<How<&'r str>> {
        Some(match (op, result) {
            (_, StepResult::Error { code, .. }) => How::Error(code),
            (_, StepResult::Skipped) => How::Skipped,
            (_, StepResult::Answer { answer })
                if !matches!(
                    answer,
                    Answer::Held | Answer::Issued | Answer::Duplicate | Answer::Released
                ) =>
            {
                How::Answered(*answer)
            }
            (
                Op::Claim { seats, .. } | Op::Write { seats, .. } | Op::Lock { seats, .. },
                StepResult::Ok { rows: Some(n) },
            ) if (*n as usize) < seats.len() => {
                if matches!(op, Op::Lock { .. }) {
                    How::LockedFewerRows
                } else {
                    How::UpdatedNoRows
                }
            }
            _ => return None,
        })
    }

    /// In a few words, after "waited, then" if the buyer waited.
    fn words(self, waited: bool) -> String {
        let how = match self {
            How::Error(code) => format!("error {code}"),
            How::Skipped => "skipped: it remembered the seat as taken".to_string(),
            How::Answered(answer) => format!("answered {}", answer.as_str()),
            How::UpdatedNoRows => "updated no rows".to_string(),
            How::LockedFewerRows => "locked fewer rows".to_string(),
        };
        if waited {
            format!("waited, then {how}")
        } else {
            how
        }
    }
}

impl<C> How<C> {
    fn map<D>(self, f: impl FnOnce(C) -> D) -> How<D> {
        match self {
            How::Error(code) => How::Error(f(code)),
            How::Skipped => How::Skipped,
            How::Answered(answer) => How::Answered(answer),
            How::UpdatedNoRows => How::UpdatedNoRows,
            How::LockedFewerRows => How::LockedFewerRows,
        }
    }
}

/// A column of the defence × scenario matrix: buyers racing for one seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MatrixScenario {
    pub id: &'static str,
    pub title: &'static str,
    /// The buyers, each running the row's defence for seat A7.
    pub buyers: &'static [&'static str],
}

const MATRIX_SCENARIOS: &[MatrixScenario] = &[
    MatrixScenario {
        id: "two-buyers",
        title: "2 buyers, 1 seat",
        buyers: &["adam", "omar"],
    },
    MatrixScenario {
        id: "three-buyers",
        title: "3 buyers, 1 seat",
        buyers: &["adam", "omar", "zoe"],
    },
];

/// The rows of the matrix: the defences of chapter 4 that race for a seat with SQL alone.
const MATRIX_DEFENCES: &[&str] = &[
    "check_then_act",
    "transaction",
    "atomic_update",
    "lock_row",
    "unique_constraint",
    "serializable",
    "repeatable_read",
    "lock_nowait",
    "skip_locked",
];

/// The matrix's scenarios (its columns), in the order the page shows them.
pub fn matrix_scenarios() -> &'static [MatrixScenario] {
    MATRIX_SCENARIOS
}

/// The matrix's defences (its rows), in the order the page shows them.
pub fn matrix_defences() -> &'static [&'static str] {
    MATRIX_DEFENCES
}

/// The schedule of one cell: every buyer of `scenario` runs `defence` for seat A7 (show 501,
/// holds of 10 minutes); its order is the race with every buyer's step in turn, a waiting buyer
/// passing its turn. `None` for a defence or scenario that is not in the matrix.
pub fn matrix_schedule(defence: &str, scenario: &str) -> Option<Schedule> {
    let defence = *MATRIX_DEFENCES.iter().find(|d| **d == defence)?;
    let column = MATRIX_SCENARIOS.iter().find(|s| s.id == scenario)?;
    let seats = vec!["A7".to_string()];
    let file = ScheduleFile {
        version: 1,
        name: format!("{}: {defence}", column.title),
        description: defences::summary(defence).map(str::to_string),
        scenario: Scenario {
            show: 501,
            hold_minutes: 10,
            clock: 0,
            seats: vec![SeatSpec {
                id: seats[0].clone(),
                status: SeatStatus::Available,
                holder: None,
                until: None,
            }],
        },
        actors: column
            .buyers
            .iter()
            .map(|b| {
                let spec = ProgramSpec::Defence {
                    defence: defence.to_string(),
                    seats: Some(seats.clone()),
                };
                (b.to_string(), spec)
            })
            .collect(),
        order: Vec::new(),
        expect: None,
    };
    let schedule = Schedule::parse(file).expect("the matrix's schedules are valid");
    let order = racing_order(&schedule);
    Some(schedule.with_order(order))
}

/// Every buyer's next step in turn, a waiting buyer passing its turn, until every program ran
/// to its end (or every buyer left waits).
fn racing_order(schedule: &Schedule) -> Vec<usize> {
    let mut engine = Engine::new(schedule);
    let mut left: Vec<usize> = schedule.actors().iter().map(|a| a.program.len()).collect();
    let n = left.len();
    let mut order = Vec::new();
    let mut turn = 0;
    while let Some(a) = (0..n)
        .map(|i| (turn + i) % n)
        .find(|&a| left[a] > 0 && !engine.waiting(a))
    {
        engine
            .step(a)
            .expect("a buyer that does not wait can be stepped");
        left[a] -= 1;
        order.push(a);
        turn = a + 1;
    }
    order
}

/// One cell of the matrix: every feasible order of the cell's schedule, and how the buyers who
/// got no seat were stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatrixCell {
    pub defence: String,
    pub scenario: String,
    pub exploration: Exploration,
    /// In a few words, with how many orders each way: "4 of 6 orders double-book; otherwise:
    /// skipped: it remembered the seat as taken (2)", "never: error 40001 (20) · waited, then
    /// error 40001 (20) · skipped: it remembered the seat as taken (10)".
    pub summary: String,
}

/// Explores one cell: every feasible order (34,650 at most, three buyers who never wait), in
/// tens of milliseconds at most. `None` for a defence or scenario that is not in the matrix.
pub fn matrix_cell(defence: &str, scenario: &str) -> Option<MatrixCell> {
    let schedule = matrix_schedule(defence, scenario)?;
    let exploration = explore(&schedule, u64::MAX);
    Some(MatrixCell {
        defence: defence.to_string(),
        scenario: scenario.to_string(),
        summary: summary(&exploration),
        exploration,
    })
}

/// The cell's words: how many orders double-book, and how the others stopped the losers, with
/// how many orders each (the most common first).
fn summary(e: &Exploration) -> String {
    let mut stops: BTreeMap<&str, u64> = BTreeMap::new();
    for g in e.groups.iter().filter(|g| !g.verdict.double_booked) {
        *stops.entry(&g.stop).or_default() += g.count;
    }
    let mut stops: Vec<(&str, u64)> = stops.into_iter().collect();
    stops.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let stops = stops
        .iter()
        .map(|(stop, n)| format!("{stop} ({n})"))
        .collect::<Vec<_>>()
        .join(" · ");
    match e.double_booked() {
        0 => format!("never: {stops}"),
        d if d == e.orders => format!("all {d} orders double-book"),
        d => format!("{d} of {} orders double-book; otherwise: {stops}", e.orders),
    }
}
