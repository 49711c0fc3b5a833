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
        let stops = self.stops(key);
        let label = (
            key.verdict.verdict(names),
            label(key.verdict.double_booked, &stops),
        );
        if let Some(&group) = self.by_label.get(&label) {
            return group;
        }
        self.groups.push(Group {
            verdict: label.0.clone(),
            stop: label.1.clone(),
            stops,
            count: 0,
            example: path
                .iter()
                .map(|&a| self.schedule.actors()[a].name.clone())
                .collect(),
        });
        self.by_label.insert(label, self.groups.len() - 1);
        self.groups.len() - 1
    }

    /// The stops of an order key, as `stops` gives them.
    fn stops(&self, key: &OrderKey) -> Vec<Stop> {
        if key.verdict.double_booked {
            return Vec::new();
        }
        distinct(key.stops.iter().flatten().map(|&(waited, how)| {
            how.map(|code| self.codes[code as usize].as_str())
                .stop(waited)
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

/// How the buyers who ended with no seat were stopped, one entry per distinct way (sorted by
/// their words); empty for a double booking, where nobody was.
pub fn stops(
    schedule: &Schedule,
    trace: &Trace,
    seats: &BTreeMap<String, SeatOutcome>,
    verdict: &Verdict,
) -> Vec<Stop> {
    if verdict.double_booked {
        return Vec::new();
    }
    let seated: Vec<&String> = seats.values().flat_map(|s| s.told.iter()).collect();
    distinct(
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
                Some(how.stop(waited))
            }),
    )
}

/// How the buyers who ended with no seat were stopped, in words (`stops` joined by "; ").
pub fn stop_label(
    schedule: &Schedule,
    trace: &Trace,
    seats: &BTreeMap<String, SeatOutcome>,
    verdict: &Verdict,
) -> String {
    label(
        verdict.double_booked,
        &stops(schedule, trace, seats, verdict),
    )
}

/// What a double booking's stop label says.
pub const NOT_STOPPED: &str = "nobody was stopped: the seat was sold twice";

/// The words of a group's stops.
fn label(double_booked: bool, stops: &[Stop]) -> String {
    if double_booked {
        NOT_STOPPED.to_string()
    } else if stops.is_empty() {
        "nobody was turned away".to_string()
    } else {
        stops.iter().map(Stop::words).collect::<Vec<_>>().join("; ")
    }
}

/// Sorted by their words, each once.
fn distinct(stops: impl Iterator<Item = Stop>) -> Vec<Stop> {
    let mut stops: Vec<(String, Stop)> = stops.map(|s| (s.words(), s)).collect();
    stops.sort_by(|a, b| a.0.cmp(&b.0));
    stops.dedup_by(|a, b| a.0 == b.0);
    stops.into_iter().map(|(_, s)| s).collect()
}

/// How one buyer who got no seat was stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Stop {
    /// Whether one of its statements waited for another buyer's lock first.
    pub waited: bool,
    pub how: StopHow,
}

/// What stopped a buyer, in the statement that did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StopHow {
    /// PostgreSQL failed the statement (or the commit) with this SQLSTATE.
    Error { code: String },
    /// A write or a ticket not sent: the buyer had read the seat as taken.
    Skipped,
    /// A one-call operation said no: `unavailable`, `busy`, `expired`, `refund_due`.
    Refused { answer: Answer },
    /// The conditional UPDATE found the seat no longer free.
    UpdatedNoRows,
    /// SKIP LOCKED passed over the locked seat.
    LockedFewerRows,
}

impl Stop {
    /// In words, for a person: "waited, then got error 40001 (serialization failure)".
    pub fn words(&self) -> String {
        let how = match &self.how {
            StopHow::Error { code } => format!("got error {code} ({})", error_name(code)),
            StopHow::Skipped => "saw the seat taken and did not write".to_string(),
            StopHow::Refused { answer } => refusal_words(*answer).to_string(),
            StopHow::UpdatedNoRows => "updated no rows: the seat was no longer free".to_string(),
            StopHow::LockedFewerRows => {
                "found the seat locked and skipped it (SKIP LOCKED)".to_string()
            }
        };
        if self.waited {
            format!("waited, then {how}")
        } else {
            how
        }
    }
}

/// What a SQLSTATE the races meet means, in a few words.
pub fn error_name(code: &str) -> &'static str {
    match code {
        "40001" => "serialization failure",
        "40P01" => "deadlock",
        "55P03" => "lock not available",
        "23505" => "duplicate ticket, refused by the unique key",
        "25P02" => "the transaction had already failed",
        "57014" => "statement cancelled",
        _ => "an error",
    }
}

fn refusal_words(answer: Answer) -> &'static str {
    match answer {
        Answer::Unavailable => "was told the seat is taken",
        Answer::Busy => "was told the seat is busy right now",
        Answer::Expired => "found its hold had run out",
        Answer::RefundDue => "paid after its hold was lost, and is owed a refund",
        Answer::Held | Answer::Issued | Answer::Duplicate | Answer::Released => "was answered",
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

    /// The stop it is, once it is known whether the buyer waited.
    fn stop(self, waited: bool) -> Stop {
        let how = match self {
            How::Error(code) => StopHow::Error {
                code: code.to_string(),
            },
            How::Skipped => StopHow::Skipped,
            How::Answered(answer) => StopHow::Refused { answer },
            How::UpdatedNoRows => StopHow::UpdatedNoRows,
            How::LockedFewerRows => StopHow::LockedFewerRows,
        };
        Stop { waited, how }
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
    /// The clock moves on this many minutes at some point of the race (past the 10-minute
    /// hold, so a hold can run out under a buyer who is still paying).
    pub clock: Option<u32>,
}

const MATRIX_SCENARIOS: &[MatrixScenario] = &[
    MatrixScenario {
        id: "two-buyers",
        title: "Two buyers",
        buyers: &["adam", "omar"],
        clock: None,
    },
    MatrixScenario {
        id: "three-buyers",
        title: "Three buyers",
        buyers: &["adam", "omar", "zoe"],
        clock: None,
    },
    MatrixScenario {
        id: "hold-runs-out",
        title: "Two buyers, a hold runs out",
        buyers: &["adam", "omar"],
        clock: Some(11),
    },
];

/// A row of the matrix: a defence, and what the page calls it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MatrixDefence {
    /// The defence's name, as the schedules spell it.
    pub id: &'static str,
    pub title: &'static str,
}

/// The rows of the matrix: the defences that race for a seat, from SQL alone to the hold and
/// the Redis SET NX hold.
const MATRIX_DEFENCES: &[MatrixDefence] = &[
    MatrixDefence {
        id: "check_then_act",
        title: "Check, then act",
    },
    MatrixDefence {
        id: "transaction",
        title: "Transaction",
    },
    MatrixDefence {
        id: "atomic_update",
        title: "Atomic write",
    },
    MatrixDefence {
        id: "lock_row",
        title: "Row lock",
    },
    MatrixDefence {
        id: "unique_constraint",
        title: "Unique constraint",
    },
    MatrixDefence {
        id: "serializable",
        title: "Serializable",
    },
    MatrixDefence {
        id: "repeatable_read",
        title: "Repeatable read",
    },
    MatrixDefence {
        id: "lock_nowait",
        title: "Row lock, NOWAIT",
    },
    MatrixDefence {
        id: "skip_locked",
        title: "Row lock, SKIP LOCKED",
    },
    MatrixDefence {
        id: "hold_confirm",
        title: "Hold, pay, confirm",
    },
    MatrixDefence {
        id: "redis_hold",
        title: "Redis hold, then a ticket",
    },
    MatrixDefence {
        id: "redis_update",
        title: "Redis hold, then an UPDATE",
    },
];

/// The matrix's scenarios (its columns), in the order the page shows them.
pub fn matrix_scenarios() -> &'static [MatrixScenario] {
    MATRIX_SCENARIOS
}

/// The matrix's defences (its rows), in the order the page shows them.
pub fn matrix_defences() -> &'static [MatrixDefence] {
    MATRIX_DEFENCES
}

/// The most orders one cell explores: every cell has fewer (34,650 at most, three buyers who
/// never wait); a cell that grew past it says so (`complete` is false) instead of freezing the
/// page.
pub const MATRIX_CELL_LIMIT: u64 = 50_000;

/// The schedule of one cell: every buyer of `scenario` runs `defence` for seat A7 (show 501,
/// holds of 10 minutes), with the clock's move if the scenario has one; its order is the race
/// with every buyer's step in turn, a waiting buyer passing its turn. `None` for a defence or
/// scenario that is not in the matrix.
pub fn matrix_schedule(defence: &str, scenario: &str) -> Option<Schedule> {
    let row = MATRIX_DEFENCES.iter().find(|d| d.id == defence)?;
    let column = MATRIX_SCENARIOS.iter().find(|s| s.id == scenario)?;
    let seats = vec!["A7".to_string()];
    let mut actors: BTreeMap<String, ProgramSpec> = column
        .buyers
        .iter()
        .map(|b| {
            let spec = ProgramSpec::Defence {
                defence: row.id.to_string(),
                seats: Some(seats.clone()),
            };
            (b.to_string(), spec)
        })
        .collect();
    if let Some(minutes) = column.clock {
        actors.insert(
            CLOCK.to_string(),
            ProgramSpec::Ops(vec![
                serde_json::json!({"op": "advance", "minutes": minutes}),
            ]),
        );
    }
    let file = ScheduleFile {
        version: 1,
        name: format!("{}: {}", column.title, row.title),
        description: defences::summary(row.id).map(str::to_string),
        scenario: Scenario {
            show: 501,
            hold_minutes: 10,
            clock: 0,
            clock_unit: crate::schedule::ClockUnit::Minute,
            seats: vec![SeatSpec {
                id: seats[0].clone(),
                status: SeatStatus::Available,
                holder: None,
                until: None,
            }],
        },
        actors: actors.into_iter().collect(),
        order: Vec::new(),
        expect: None,
    };
    // The file gives no order: the default one is exactly this race (`Schedule::round_robin`).
    Some(Schedule::parse(file).expect("the matrix's schedules are valid"))
}

/// One way the orders of a cell ended for the buyers who got no seat: a stop, or nobody
/// stopped (a double booking), and in how many orders.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Way {
    /// `None`: nobody was stopped, the seat was sold twice.
    pub stop: Option<Stop>,
    pub words: String,
    /// The orders in which some buyer was stopped this way.
    pub orders: u64,
    /// One of them, as actor names: loaded into the lab when the reader picks the cell.
    pub example: Vec<String>,
}

/// One cell of the matrix: every feasible order of the cell's schedule, and how the buyers who
/// got no seat were stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatrixCell {
    pub defence: String,
    pub scenario: String,
    pub exploration: Exploration,
    /// The ways, the double booking first, then by orders (most first).
    pub ways: Vec<Way>,
    /// In sentences, with how many orders each way: "24 of 70 orders sell the seat twice. In
    /// the other 46, the second buyer saw the seat taken and did not write (46)."
    pub summary: String,
}

impl MatrixCell {
    /// The order to load when the reader picks the cell: a double booking if there is one,
    /// else an example of the commonest way.
    pub fn example(&self) -> &[String] {
        self.ways
            .first()
            .map(|w| w.example.as_slice())
            .unwrap_or_default()
    }
}

/// Explores one cell: every feasible order (at most `MATRIX_CELL_LIMIT`), in tens of
/// milliseconds at most. `None` for a defence or scenario that is not in the matrix.
pub fn matrix_cell(defence: &str, scenario: &str) -> Option<MatrixCell> {
    let schedule = matrix_schedule(defence, scenario)?;
    let exploration = explore(&schedule, MATRIX_CELL_LIMIT);
    let ways = ways(&exploration);
    Some(MatrixCell {
        defence: defence.to_string(),
        scenario: scenario.to_string(),
        summary: summary(&exploration, &ways),
        ways,
        exploration,
    })
}

/// The ways of a cell's orders: the double bookings first, then each stop by the orders it
/// ended (most first, then by words).
fn ways(e: &Exploration) -> Vec<Way> {
    let mut ways: Vec<Way> = Vec::new();
    for g in &e.groups {
        let stops: Vec<Option<&Stop>> = if g.verdict.double_booked {
            vec![None]
        } else {
            g.stops.iter().map(Some).collect()
        };
        for stop in stops {
            match ways.iter_mut().find(|w| w.stop.as_ref() == stop) {
                Some(way) => way.orders += g.count,
                None => ways.push(Way {
                    stop: stop.cloned(),
                    words: stop.map_or_else(|| NOT_STOPPED.to_string(), Stop::words),
                    orders: g.count,
                    example: g.example.clone(),
                }),
            }
        }
    }
    ways.sort_by(|a, b| {
        b.stop
            .is_none()
            .cmp(&a.stop.is_none())
            .then(b.orders.cmp(&a.orders))
            .then_with(|| a.words.cmp(&b.words))
    });
    ways
}

/// "1 order", "6 orders".
fn n_orders(n: u64) -> String {
    if n == 1 {
        "1 order".to_string()
    } else {
        format!("{n} orders")
    }
}

/// The cell's words, as sentences: how many orders sell the seat twice, and how the others
/// stopped the buyers who got no seat, with how many orders each (the most common first).
fn summary(e: &Exploration, ways: &[Way]) -> String {
    let stopped: Vec<String> = ways
        .iter()
        .filter(|w| w.stop.is_some())
        .map(|w| format!("{} ({})", w.words, n_orders(w.orders)))
        .collect();
    let how = match stopped.as_slice() {
        [] => String::new(),
        [one] => format!(" The buyer who missed out {one}."),
        many => format!(
            " The buyers who missed out were stopped in {} ways: {}.",
            many.len(),
            many.join("; ")
        ),
    };
    let of = if e.complete {
        String::new()
    } else {
        format!(" (the first {} orders only)", e.orders)
    };
    match e.double_booked() {
        0 => format!(
            "None of the {}{of} sells the seat twice.{how}",
            n_orders(e.orders)
        ),
        d if d == e.orders => format!("All {}{of} sell the seat twice.", n_orders(d)),
        d => format!(
            "{d} of {}{of} sell the seat twice. In the other {}:{}",
            n_orders(e.orders),
            e.orders - d,
            how.replacen(" The buyer", " the buyer", 1)
        ),
    }
}
