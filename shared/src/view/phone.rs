//! Each buyer's phone: what the application shows them at a step, and what it remembers.

use std::collections::BTreeMap;

use super::{display_name, entry_state, tables_at, told_at, EntryState};
use crate::outcome::{Answer, Entry, StepResult};
use crate::schedule::{Op, Schedule};
use crate::Outcome;

/// What a buyer's phone shows, and how it feels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Phone {
    pub text: String,
    pub tone: Tone,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Neutral,
    Busy,
    Good,
    Bad,
}

impl Tone {
    pub fn class(self) -> &'static str {
        match self {
            Tone::Neutral => "tone-neutral",
            Tone::Busy => "tone-busy",
            Tone::Good => "tone-good",
            Tone::Bad => "tone-bad",
        }
    }
}

/// What `actor`'s phone shows once the first `step` entries have run.
pub fn phone(outcome: &Outcome, actor: &str, step: usize) -> Phone {
    let step = step.min(outcome.entries.len());
    let mine: Vec<(usize, &Entry)> = outcome.entries[..step]
        .iter()
        .enumerate()
        .filter(|(_, e)| e.trace.actor == actor)
        .collect();
    if let Some((i, entry)) = mine.last() {
        if let EntryState::Waiting(on) = entry_state(entry, *i, step) {
            let on: Vec<String> = on.iter().map(|a| display_name(a)).collect();
            return Phone {
                text: format!("Spinning… waits for {}", on.join(" and ")),
                tone: Tone::Busy,
            };
        }
    }
    let told: Vec<String> = told_at(outcome, step)
        .into_iter()
        .filter(|(_, who)| who.iter().any(|w| w == actor))
        .map(|(seat, _)| seat)
        .collect();
    let refunded = tables_at(outcome, step).refunds.iter().any(|r| r == actor);
    if !told.is_empty() {
        return Phone {
            text: format!("{} is yours", told.join(", ")),
            tone: Tone::Good,
        };
    }
    if refunded {
        return Phone {
            text: "No seat: your money is being refunded".to_string(),
            tone: Tone::Bad,
        };
    }
    let Some((_, last)) = mine.last() else {
        return Phone {
            text: "Choosing a seat".to_string(),
            tone: Tone::Neutral,
        };
    };
    let seats = last.op.seats().join(", ");
    let (text, tone) = match last.trace.result.as_ref() {
        None => ("Spinning…".to_string(), Tone::Busy),
        Some(StepResult::Skipped) => ("Sold out".to_string(), Tone::Bad),
        Some(StepResult::RolledBack) => ("Something went wrong: try again".to_string(), Tone::Bad),
        Some(StepResult::Error { code, .. }) => (error_text(code), Tone::Bad),
        Some(StepResult::Answer { answer }) => answer_text(*answer),
        Some(StepResult::Ok { rows }) => match &last.op {
            Op::Read { .. } | Op::Lock { .. } => {
                if last.trace.seen.iter().all(|s| s.available) && !last.trace.seen.is_empty() {
                    (format!("{seats} looks free"), Tone::Neutral)
                } else if last.trace.seen.is_empty() {
                    ("Nothing to show".to_string(), Tone::Neutral)
                } else {
                    ("Sold out".to_string(), Tone::Bad)
                }
            }
            Op::Claim { .. } | Op::Write { .. } | Op::Book { .. } if *rows == Some(0) => {
                ("Sold out".to_string(), Tone::Bad)
            }
            Op::Pay { .. } => ("Payment sent".to_string(), Tone::Neutral),
            _ => ("Working…".to_string(), Tone::Neutral),
        },
    };
    Phone { text, tone }
}

fn error_text(code: &str) -> String {
    match code {
        "40001" => "Someone else got there first (40001): try again".to_string(),
        "40P01" => "Deadlock (40P01): try again".to_string(),
        "55P03" => "Seat busy right now (55P03): try again".to_string(),
        "23505" => "Sold out: the seat already has a ticket (23505)".to_string(),
        "25P02" => "Something went wrong (25P02)".to_string(),
        other => format!("Error {other}"),
    }
}

fn answer_text(answer: Answer) -> (String, Tone) {
    match answer {
        Answer::Held => ("Held for you: pay now".to_string(), Tone::Neutral),
        Answer::Unavailable => ("Sold out".to_string(), Tone::Bad),
        Answer::Busy => ("Seat busy right now: try again".to_string(), Tone::Bad),
        Answer::Expired => ("Your hold expired".to_string(), Tone::Bad),
        Answer::Issued => ("Ticket issued".to_string(), Tone::Good),
        Answer::Duplicate => ("Ticket issued (again)".to_string(), Tone::Good),
        Answer::RefundDue => ("Too late: refund on its way".to_string(), Tone::Bad),
        Answer::Released => ("Seat released".to_string(), Tone::Neutral),
    }
}

/// What a buyer's application knows once the first `step` entries have run: the seats it
/// remembers as free or taken (from its last read, lock or hold), and the seats it has been
/// told are its own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    pub free: Vec<String>,
    pub taken: Vec<String>,
    pub told: Vec<String>,
}

/// Every buyer's `Memory` at the playhead, by actor name.
pub fn memories(schedule: &Schedule, outcome: &Outcome, step: usize) -> BTreeMap<String, Memory> {
    let clients = crate::export::clients_at(schedule, outcome, step);
    let told = told_at(outcome, step);
    schedule
        .actors()
        .iter()
        .zip(&clients.actors)
        .map(|(actor, state)| {
            let mut memory = Memory::default();
            for (seat, free) in &state.remembered {
                if *free {
                    memory.free.push(seat.clone());
                } else {
                    memory.taken.push(seat.clone());
                }
            }
            memory.told = told
                .iter()
                .filter(|(_, who)| who.contains(&actor.name))
                .map(|(seat, _)| seat.clone())
                .collect();
            (actor.name.clone(), memory)
        })
        .collect()
}
