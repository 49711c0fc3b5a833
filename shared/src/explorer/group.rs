//! The explorer's judge of each order as the walk runs it: the verdict from the engine's compact
//! record and how each buyer with no seat was stopped, replayed once per depth so that orders
//! sharing a prefix share its replay, and the orders grouped by verdict and stop label.

use std::collections::BTreeMap;

use super::stop::{distinct, label_of, How, Stop};
use super::{Exploration, Group, Visitor};
use crate::assess::{judge_compact, CompactJudge, CompactVerdict};
use crate::engine::{Engine, Names};
use crate::outcome::Verdict;
use crate::schedule::{Schedule, CLOCK, MAX_ACTORS};
use crate::sqlstate::SqlState;

/// Judges and groups the orders as the walk runs them.
pub(super) struct Grouper<'s> {
    schedule: &'s Schedule,
    /// Per depth: the replay of the current order's entries up to it (index 0: none).
    depths: Vec<(CompactJudge, Stops)>,
    /// The SQLSTATEs met so far (`How::Error` holds an index into it).
    codes: Vec<SqlState>,
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
            let username = self.schedule.scenario().kind.is_username();
            let Some(how) = How::of(op, &d.result, username) else {
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

impl<'s> Grouper<'s> {
    pub(super) fn new(schedule: &'s Schedule) -> Grouper<'s> {
        Grouper {
            schedule,
            depths: Vec::new(),
            codes: Vec::new(),
            keys: Vec::new(),
            by_label: BTreeMap::new(),
            groups: Vec::new(),
            count: 0,
        }
    }

    /// The groups, once the walk is over (`complete`: it covered every order).
    pub(super) fn exploration(self, complete: bool) -> Exploration {
        Exploration {
            orders: self.count,
            complete,
            permutations: super::permutations(self.schedule),
            groups: sorted(self.groups),
        }
    }

    /// The group of a key met for the first time, in the order `path`: one with the same
    /// verdict and stop label, or a new one with this order as its example.
    fn group(&mut self, key: &OrderKey, path: &[usize], names: &Names) -> usize {
        let stops = self.stops(key);
        let label = (
            key.verdict.verdict(names),
            label_of(self.schedule, key.verdict.double_booked, &stops),
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
        distinct(
            key.stops
                .iter()
                .flatten()
                .map(|&(waited, how)| how.map(|code| &self.codes[code as usize]).stop(waited)),
        )
    }
}

/// The index of `code` in `codes`, added if new.
fn intern(codes: &mut Vec<SqlState>, code: &SqlState) -> u16 {
    match codes.iter().position(|c| c == code) {
        Some(i) => i as u16,
        None => {
            codes.push(code.clone());
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
