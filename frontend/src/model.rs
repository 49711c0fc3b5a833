//! The page's view model, apart from any rendering: running a schedule in the model, moving an
//! entry of the order, and what the page shows at a given step (the stored rows, each buyer's
//! phone, each entry's state on the timeline). Pure, so it is tested natively.

use shared::assess::assess;
use shared::schedule::{ClockUnit, Op, CLOCK};
use shared::{Outcome, Schedule};

pub use shared::view::*;

pub mod moves;
pub use moves::move_entry;
mod systems;
pub use systems::system_lanes;

/// Runs the schedule's order in the model: the outcome, or why the order cannot run, as a
/// sentence for the reader.
pub fn run(schedule: &Schedule) -> Result<Outcome, String> {
    shared::engine::simulate(schedule)
        .map(|trace| assess(schedule, trace))
        .map_err(|e| moves::sentence(schedule, &e))
}

/// The lanes of the timeline: buyers first, in the schedule's order, then the clock.
pub fn lanes(schedule: &Schedule) -> Vec<usize> {
    let actors = schedule.actors();
    let mut lanes: Vec<usize> = (0..actors.len())
        .filter(|&a| actors[a].name != CLOCK)
        .collect();
    lanes.extend((0..actors.len()).filter(|&a| actors[a].name == CLOCK));
    lanes
}

/// The operation each entry of the order sends: (actor index, index in its program).
pub fn entry_ops(schedule: &Schedule) -> Vec<(usize, usize)> {
    let mut next = vec![0usize; schedule.actors().len()];
    schedule
        .order()
        .iter()
        .map(|&actor| {
            let op = next[actor];
            next[actor] += 1;
            (actor, op)
        })
        .collect()
}

/// A short label for an operation: "read A7", "commit", "pay (late)"; an advance of the clock
/// in its unit, `unit` ("+5 min", "+5 s").
pub fn op_label(op: &Op, unit: ClockUnit) -> String {
    let seats = op.seats().join(", ");
    match op {
        Op::Begin { isolation } => format!("begin {}", isolation.as_sql().to_lowercase()),
        Op::Advance { minutes } => format!("+{}", unit.short(*minutes)),
        Op::Pay { outcome } if *outcome == Default::default() => "pay".to_string(),
        Op::Pay { outcome } => format!("pay, {}", serde_plain(outcome)),
        Op::Lock { wait, .. } => {
            let how = serde_plain(wait);
            if how == "wait" {
                format!("lock {seats}")
            } else {
                format!("lock {seats} {}", how.replace('_', " "))
            }
        }
        Op::Write { status, .. } => format!("write {seats} {}", status.as_sql()),
        Op::RedisHold { .. } => format!("SET NX {seats}"),
        Op::RedisRelease => "DEL key".to_string(),
        _ if seats.is_empty() => op.name().to_string(),
        _ => format!("{} {seats}", op.name()),
    }
}

/// `op_label` in a scenario: on a counter, a write is what it takes ("write joint −100",
/// "write SAVE50 used"), not a seat's status; on a username, what each insert does ("create
/// batman", "claim batman").
pub fn op_label_in(op: &Op, scenario: &shared::schedule::Scenario) -> String {
    let name = op.seats().join(", ");
    // On a username, what each statement does to the name: no seat's status.
    match op {
        Op::Read { .. } if scenario.kind.is_username() => return format!("check {name}"),
        Op::Write { .. } if scenario.kind.is_username() => return format!("create {name}"),
        Op::Book { .. } if scenario.kind.is_username() => return format!("claim {name}"),
        Op::Claim { .. } if scenario.kind.is_username() => {
            return format!("claim {name} or nothing")
        }
        _ => {}
    }
    match op {
        Op::Write { .. } if scenario.kind.is_counter() => {
            let seats = op.seats().join(", ");
            match scenario.kind {
                shared::schedule::Shape::Coupon => format!("write {seats} used"),
                _ => format!("write {seats} \u{2212}{}", scenario.take),
            }
        }
        _ => op_label(op, scenario.clock_unit),
    }
}

fn serde_plain<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// How an operation is drawn: reads are circles, writes squares, transaction bounds ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Read,
    Write,
    Bound,
    Payment,
    Clock,
}

impl Shape {
    pub fn of(op: &Op) -> Shape {
        match op {
            Op::Read { .. } | Op::Lock { .. } => Shape::Read,
            Op::Begin { .. } | Op::Commit | Op::Rollback => Shape::Bound,
            Op::Pay { .. } => Shape::Payment,
            Op::Advance { .. } | Op::Sweep => Shape::Clock,
            _ => Shape::Write,
        }
    }

    pub fn class(self) -> &'static str {
        match self {
            Shape::Read => "shape-read",
            Shape::Write => "shape-write",
            Shape::Bound => "shape-bound",
            Shape::Payment => "shape-pay",
            Shape::Clock => "shape-clock",
        }
    }
}

#[cfg(test)]
mod tests;
