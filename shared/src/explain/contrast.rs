//! The same order on both databases: each one's outcome in one line, and the first entry where
//! they part, with each model's own reason for what it did there. The rule that makes them
//! differ is named by the models' reason lines, never written here: this file only finds where
//! to look.

use crate::assess::assess;
use crate::engine::simulate;
use std::collections::BTreeMap;

use crate::outcome::{Entry, Outcome, StepResult, Verdict};
use crate::schedule::{Database, Schedule, ScheduleError};

use super::headline;

/// One database's run of the order.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    pub database: Database,
    /// Its outcome in one line (`explain::headline`), or why the order cannot run there.
    pub headline: String,
    /// Whether the order runs there at all.
    pub runs: bool,
    /// What went wrong (`Verdict::problems`): empty when nothing did.
    pub problems: Vec<String>,
    /// The verdict and who was told they got each seat, to tell an outcome apart from the
    /// other side's without reading its words (the same refusal has another code there).
    pub verdict: Option<(Verdict, BTreeMap<String, Vec<String>>)>,
}

/// The first entry the two databases answer differently.
#[derive(Clone, Debug, PartialEq)]
pub struct Divergence {
    /// 0-based.
    pub entry: usize,
    /// Each side's step there (`ok:1`, `waiting>error:40001`…), in `Contrast::sides` order.
    pub steps: [String; 2],
    /// Each side's reason line for the entry during which that step was decided: its own, or
    /// for a step that waited, the entry that let it go on (where the two part, if they part
    /// over how a wait ended).
    pub reasons: [String; 2],
}

/// Both databases' outcomes of one order, the schedule's own database first.
#[derive(Clone, Debug, PartialEq)]
pub struct Contrast {
    pub sides: [Side; 2],
    /// `None` when every entry is answered alike (or the order runs on one side only).
    pub divergence: Option<Divergence>,
}

impl Contrast {
    /// Whether both run the order to the same verdict and every entry alike.
    pub fn same(&self) -> bool {
        self.divergence.is_none() && self.sides.iter().all(|s| s.runs)
    }

    /// Whether both run the order and end differently: another verdict, or another buyer told
    /// they got a seat.
    pub fn verdicts_differ(&self) -> bool {
        self.sides.iter().all(|s| s.runs) && self.sides[0].verdict != self.sides[1].verdict
    }
}

/// The schedule's order on its own database and on the other one.
pub fn contrast(schedule: &Schedule) -> Contrast {
    let here = schedule.database();
    let there = match here {
        Database::Postgresql => Database::Innodb,
        Database::Innodb => Database::Postgresql,
    };
    let ours = run(schedule);
    let other = schedule.on(there);
    let theirs = other.as_ref().map_err(Clone::clone).and_then(run);
    let divergence = match (&ours, &theirs) {
        (Ok(a), Ok(b)) => divergence(a, b),
        _ => None,
    };
    Contrast {
        sides: [
            side(here, schedule, ours),
            side(there, other.as_ref().unwrap_or(schedule), theirs),
        ],
        divergence,
    }
}

fn run(schedule: &Schedule) -> Result<Outcome, ScheduleError> {
    simulate(schedule).map(|trace| assess(schedule, trace))
}

fn side(database: Database, schedule: &Schedule, outcome: Result<Outcome, ScheduleError>) -> Side {
    match outcome {
        Ok(outcome) => Side {
            database,
            headline: headline(schedule, &outcome),
            runs: true,
            problems: outcome.verdict.problems(),
            verdict: Some((outcome.verdict.clone(), outcome.told())),
        },
        Err(why) => Side {
            database,
            headline: format!(
                "This order cannot run on {}: {}",
                database.title(),
                why.message
            ),
            runs: false,
            problems: Vec::new(),
            verdict: None,
        },
    }
}
fn divergence(a: &Outcome, b: &Outcome) -> Option<Divergence> {
    let k = a.entries.iter().zip(&b.entries).position(|(x, y)| {
        !alike(x, y)
            || x.trace.completed_after != y.trace.completed_after
            || x.trace.tables != y.trace.tables
    })?;
    let (x, y) = (&a.entries[k], &b.entries[k]);
    // A step that waited on both sides is decided by the entry that let it go on; where both
    // let it go in the same entry, that entry's reasons say what each database did with it.
    let decided = |o: &Outcome, e: &Entry| {
        let at = e.trace.completed_after.unwrap_or(k);
        o.entries
            .get(at)
            .map_or(String::new(), |d| d.trace.reason.clone())
    };
    let mut reasons = [decided(a, x), decided(b, y)];
    if reasons[0] == reasons[1] {
        reasons = [x.trace.reason.clone(), y.trace.reason.clone()];
    }
    Some(Divergence {
        entry: k,
        steps: [x.step.clone(), y.step.clone()],
        reasons,
    })
}

/// Whether two entries were answered alike: the same step, or the same error in each
/// database's own words (23505 and 1062 both refuse a second ticket), after the same wait.
fn alike(x: &Entry, y: &Entry) -> bool {
    if x.step == y.step {
        return true;
    }
    let waited = |e: &Entry| e.step.starts_with("waiting>");
    let code = |e: &Entry| e.trace.result.as_ref().and_then(StepResult::code).cloned();
    match (code(x), code(y)) {
        (Some(p), Some(q)) => {
            waited(x) == waited(y)
                && ((p.is_duplicate() && q.is_duplicate())
                    || (p.is_deadlock() && q.is_deadlock())
                    || (p.is_busy() && q.is_busy()))
        }
        _ => false,
    }
}
