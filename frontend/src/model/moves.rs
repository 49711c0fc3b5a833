//! What the reader may do to the order, and why not when they may not: moving an entry, who can
//! go next after "fork from here", and every refusal as a sentence (the engine's own errors name
//! fields such as `order[4]`, which a reader never sees). How the timeline marks an operation
//! that runs only under a condition is `marks`'s. Pure, so it is tested natively.

mod marks;

use shared::engine::{Blocked, Engine};
use shared::{Schedule, ScheduleError};

use super::{display_name, op_label_in, run};

pub use marks::condition_marks;

/// Moves entry `from` of the order to position `to`. A buyer's own operations keep their
/// program order, and a buyer who is still waiting cannot be scheduled: either way the answer
/// says why in plain words, and the order stays as it was.
pub fn move_entry(schedule: &Schedule, from: usize, to: usize) -> Result<Schedule, String> {
    let order = schedule.order();
    if from >= order.len() || to >= order.len() {
        return Err("There is no step there.".to_string());
    }
    if from == to {
        return Ok(schedule.clone());
    }
    let actor = order[from];
    let (lo, hi) = if from < to {
        (from + 1, to)
    } else {
        (to, from - 1)
    };
    if (lo..=hi).any(|i| order[i] == actor) {
        let who = display_name(&schedule.actors()[actor].name);
        return Err(format!(
            "{who}'s own steps keep their order: a program runs one statement after another."
        ));
    }
    let mut new_order = order.to_vec();
    let moved = new_order.remove(from);
    new_order.insert(to, moved);
    let moved = schedule.with_order(new_order);
    run(&moved)?;
    Ok(moved)
}

/// The engine's refusal of an order, as a sentence for the reader: who cannot go, and whom
/// they wait for. Errors that are not about the order keep their message, without the field.
pub fn sentence(schedule: &Schedule, error: &ScheduleError) -> String {
    let entry = error
        .field
        .strip_prefix("order[")
        .and_then(|rest| rest.strip_suffix(']'))
        .and_then(|k| k.parse::<usize>().ok());
    let Some(k) = entry.filter(|&k| k < schedule.order().len()) else {
        return capitalised(&error.message);
    };
    let mut engine = Engine::new(schedule);
    for &actor in &schedule.order()[..k] {
        if engine.step(actor).is_err() {
            return capitalised(&error.message);
        }
    }
    let actor = schedule.order()[k];
    refusal(schedule, actor, engine.blocked(actor), k)
        .unwrap_or_else(|| capitalised(&error.message))
}

/// Why `actor` cannot send the next entry (`k`, 0-based), given how the engine finds it.
fn refusal(
    schedule: &Schedule,
    actor: usize,
    blocked: Option<Blocked>,
    k: usize,
) -> Option<String> {
    let who = display_name(&schedule.actors()[actor].name);
    match blocked? {
        Blocked::Finished => Some(format!("{who} has no step left to send at step {}.", k + 1)),
        Blocked::Waiting { entry, on } => {
            let label = schedule
                .order()
                .get(entry)
                .and_then(|_| super::entry_ops(schedule).get(entry).copied())
                .map(|(a, o)| op_label_in(&schedule.actors()[a].program[o], schedule.scenario()))
                .unwrap_or_default();
            let blockers = names(&on);
            let verb = if on.len() > 1 {
                "commit or roll back"
            } else {
                "commits or rolls back"
            };
            Some(format!(
                "{who} cannot go at step {}: {who}'s {label} (step {}) still waits for {blockers}, \
                 and {who} can send nothing until {blockers} {verb}.",
                k + 1,
                entry + 1,
            ))
        }
    }
}

/// "Adam", "Adam and Omar", "A, B and C".
pub fn names(actors: &[String]) -> String {
    let shown: Vec<String> = actors.iter().map(|a| display_name(a)).collect();
    match shown.as_slice() {
        [] => "the lock holder".to_string(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn capitalised(message: &str) -> String {
    let mut chars = message.chars();
    let mut out: String = chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    if !out.ends_with('.') {
        out.push('.');
    }
    out
}

/// One buyer's next operation after the order as it stands, and whether it can be sent now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NextStep {
    pub actor: usize,
    pub who: String,
    pub label: String,
    /// Whom the buyer still waits for (display names joined), if it cannot go yet.
    pub waits_for: Option<String>,
}

/// Every buyer who has an operation left, in lane order, with what blocks them now. An order
/// that cannot run offers nothing.
pub fn next_steps(schedule: &Schedule) -> Vec<NextStep> {
    let mut engine = Engine::new(schedule);
    for &actor in schedule.order() {
        if engine.step(actor).is_err() {
            return Vec::new();
        }
    }
    let mut used = vec![0usize; schedule.actors().len()];
    for &a in schedule.order() {
        used[a] += 1;
    }
    super::lanes(schedule)
        .into_iter()
        .filter_map(|a| {
            let actor = &schedule.actors()[a];
            let op = actor.program.get(used[a])?;
            let waits_for = match engine.blocked(a) {
                Some(Blocked::Waiting { on, .. }) => Some(names(&on)),
                _ => None,
            };
            Some(NextStep {
                actor: a,
                who: display_name(&actor.name),
                label: op_label_in(op, schedule.scenario()),
                waits_for,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
