//! What each surface of the page shows at a step of the playhead, derived from the model's
//! outcome and nothing else: each buyer's phone, the seat map, where an entry stands. Pure and
//! shared, so the page renders it, the native tests check it against the model, and the
//! backend can print it for the browser tests to compare the page with.

use std::collections::BTreeMap;

use crate::outcome::{Entry, Tables};
use crate::schedule::CLOCK;
use crate::Outcome;

pub mod app;
pub mod counter;
pub mod map;
pub mod phone;
pub mod refusal;
pub mod reply;
pub mod room;
pub mod step;
pub mod username;
pub mod words;

pub use app::{app_at, App, Got, Said};
pub use counter::{counters_at, CounterRow, CounterState};
pub use map::{map_at, redis_at, MapSeat, RedisRow};
pub use phone::{buyers, memories, phone, phones, Memory, Phone, Tone};
pub use refusal::Refusal;
pub use reply::{reply, Request};
pub use step::{deciding_step, goal_at, is_bad, playable, prefix, run, verdict_at, StepVerdict};
pub use username::{name_at, NameRow};

/// The name of a buyer as the page writes it: `omar` → "Omar", `a` → "A".
pub fn display_name(actor: &str) -> String {
    if actor == CLOCK {
        return "Clock".to_string();
    }
    let mut chars = actor.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Buyers' names in a sentence: "Adam and Omar", "Adam, Omar and Zoe".
pub(crate) fn display_names(actors: &[String]) -> String {
    crate::engine::join(&actors.iter().map(|a| display_name(a)).collect::<Vec<_>>())
}

/// Who holds a row's lock, as a picture says it: "Adam holds the row lock".
pub(crate) fn lock_line(lock: Option<&str>) -> Option<String> {
    Some(format!("{} holds the row lock", display_name(lock?)))
}

/// Who waits for a row, in order: "Omar waits", "Omar, then Zoe wait, in that order".
pub(crate) fn queue_line(queue: &[String]) -> Option<String> {
    let queue: Vec<String> = queue.iter().map(|a| display_name(a)).collect();
    match queue.as_slice() {
        [] => None,
        [one] => Some(format!("{one} waits")),
        many => Some(format!("{} wait, in that order", many.join(", then "))),
    }
}

/// A row's lock and queue as clauses of a screen reader's sentence: "Adam holds its row lock in
/// an open transaction", "Omar, then Zoe wait for it, in that order".
pub(crate) fn lock_and_queue_clauses(lock: Option<&str>, queue: &[String]) -> Vec<String> {
    let mut clauses: Vec<String> = lock
        .map(|who| {
            format!(
                "{} holds its row lock in an open transaction",
                display_name(who)
            )
        })
        .into_iter()
        .collect();
    let queue: Vec<String> = queue.iter().map(|a| display_name(a)).collect();
    match queue.as_slice() {
        [] => {}
        [one] => clauses.push(format!("{one} waits for it")),
        many => clauses.push(format!(
            "{} wait for it, in that order",
            many.join(", then ")
        )),
    }
    clauses
}

/// Where an entry stands at a step of the playhead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryState {
    /// Not sent yet.
    Future,
    /// Sent, and waiting for these actors.
    Waiting(Vec<String>),
    /// Answered.
    Done,
}

/// The state of entry `index` once the first `step` entries have run.
pub fn entry_state(entry: &Entry, index: usize, step: usize) -> EntryState {
    if index >= step {
        return EntryState::Future;
    }
    match entry.trace.completed_after {
        Some(done) if done < step => EntryState::Done,
        _ => EntryState::Waiting(entry.trace.waited_for.clone()),
    }
}

/// The committed tables once the first `step` entries have run.
pub fn tables_at(outcome: &Outcome, step: usize) -> &Tables {
    match step {
        0 => &outcome.initial,
        n => {
            &outcome.entries[n.min(outcome.entries.len()) - 1]
                .trace
                .tables
        }
    }
}

/// seat → actors told they got it, once the first `step` entries have run (before the first,
/// the holders of the seats held or booked at the start, as `assess` counts them).
pub fn told_at(outcome: &Outcome, step: usize) -> BTreeMap<String, Vec<String>> {
    match step {
        0 => outcome
            .initial
            .seats
            .iter()
            .map(|r| {
                let held = r.status != crate::schedule::SeatStatus::Available;
                (
                    r.id.clone(),
                    r.holder.clone().filter(|_| held).into_iter().collect(),
                )
            })
            .collect(),
        n => outcome.entries[n.min(outcome.entries.len()) - 1]
            .told
            .clone(),
    }
}
