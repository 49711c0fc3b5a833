//! The verdict at the playhead: nothing is revealed before the step that decides it. The
//! outcome of every prefix of the order is the model's outcome at that step; the step that
//! decides the run is the first from which every prefix tells the same headline and verdict
//! as the whole run.

use crate::assess::assess;
use crate::explain;
use crate::outcome::Verdict;
use crate::scenarios::BuiltIn;
use crate::{Outcome, Schedule};

/// Runs the schedule's order in the model: the outcome, or why the order cannot run.
pub fn run(schedule: &Schedule) -> Result<Outcome, String> {
    crate::engine::simulate(schedule)
        .map(|trace| assess(schedule, trace))
        .map_err(|e| e.to_string())
}

/// The schedule itself if its order runs; otherwise the same programs in the default order
/// (`Schedule::round_robin`: every buyer in turn, passing over a buyer while they wait), as
/// far as it runs. The page plays this order.
pub fn playable(schedule: &Schedule) -> Schedule {
    if run(schedule).is_ok() {
        return schedule.clone();
    }
    let order = schedule.round_robin().unwrap_or_else(|stuck| stuck.order);
    schedule.with_order(order)
}

/// The model's outcome once the first `step` entries of the order have run.
pub fn prefix(schedule: &Schedule, step: usize) -> Result<Outcome, String> {
    let order = schedule.order();
    run(&schedule.with_order(order[..step.min(order.len())].to_vec()))
}

/// The step that decides the run: the first from which every prefix's headline and verdict
/// are the whole run's.
pub fn deciding_step(schedule: &Schedule) -> usize {
    let n = schedule.order().len();
    let Ok(whole) = prefix(schedule, n) else {
        return n;
    };
    let key = |o: &Outcome| (explain::headline(schedule, o), o.verdict.clone());
    let end = key(&whole);
    let mut decided = n;
    for step in (0..n).rev() {
        match prefix(schedule, step) {
            Ok(o) if key(&o) == end => decided = step,
            _ => break,
        }
    }
    // Nothing has happened before the first step, whatever the verdict of no entries says.
    decided.max(1).min(n)
}

/// The verdict panel at a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepVerdict {
    /// The outcome is decided by this step: the headline and consequences are shown.
    pub decided: bool,
    /// The step that decides it.
    pub deciding: usize,
    pub headline: String,
    /// The events so far, then (once decided) the consequences.
    pub story: Vec<String>,
    /// Decided, and something went wrong.
    pub bad: bool,
}

/// What the verdict panel shows at `step`, given the step that decides the run.
pub fn verdict_at(schedule: &Schedule, step: usize, deciding: usize) -> StepVerdict {
    let Ok(outcome) = prefix(schedule, step) else {
        return StepVerdict {
            decided: false,
            deciding,
            headline: "This order cannot run".to_string(),
            story: Vec::new(),
            bad: true,
        };
    };
    let decided = step >= deciding && step > 0;
    let mut story = if step == 0 {
        Vec::new()
    } else {
        explain::story_events(schedule, &outcome)
    };
    let headline = if decided {
        story.extend(explain::consequences(schedule, &outcome));
        explain::headline(schedule, &outcome)
    } else if step == 0 {
        "Nothing has happened yet".to_string()
    } else {
        "Not decided yet: step on to see how it ends".to_string()
    };
    StepVerdict {
        decided,
        deciding,
        headline,
        story,
        bad: decided && is_bad(&outcome.verdict),
    }
}

/// Something went wrong: a seat sold twice or lost, or a booking decided after its deadline
/// (a refund owed and a hold not yet paid are how a correct system behaves).
pub fn is_bad(v: &Verdict) -> bool {
    v.bad()
}

/// The chapter's goal at a step: reached by the outcome so far.
pub fn goal_at(builtin: &BuiltIn, schedule: &Schedule, step: usize) -> bool {
    prefix(schedule, step).is_ok_and(|o| step > 0 && builtin.goal_met(schedule, &o))
}
