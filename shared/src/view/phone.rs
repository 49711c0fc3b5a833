//! Each buyer's phone: what the application shows them at a step, and what it remembers. On a
//! counter's rows the phone speaks its shape's words (`counter.rs`).

mod counter;
mod username;

use std::collections::BTreeMap;

use super::app::{app_at, App, Got, Said};
use super::refusal::Refusal;
use super::words;
use super::{display_name, tables_at, told_at};
use crate::counter_words::CounterWords;
use crate::engine::capitalise;
use crate::schedule::{seats_shown_from_here, ClockUnit, Op, Scenario, Schedule, CLOCK};
use crate::username_words::UsernameWords;
use crate::Outcome;

/// What a buyer's phone shows, and how it feels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Phone {
    pub text: String,
    pub tone: Tone,
    /// The seats the phone says are the buyer's (booked, or held and not run out).
    pub yours: Vec<String>,
    /// The deadline of the buyer's hold that the phone shows, on the virtual clock.
    pub until: Option<i64>,
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

    /// The tone in a word, for the browser tests' dump.
    pub fn name(self) -> &'static str {
        match self {
            Tone::Neutral => "neutral",
            Tone::Busy => "busy",
            Tone::Good => "good",
            Tone::Bad => "bad",
        }
    }
}

/// The actors who get a phone: the buyers. Not the clock, and not an actor who only locks
/// rows or sweeps (an admin or a tidy-up job), unless it holds a seat at the start.
pub fn buyers(schedule: &Schedule) -> Vec<String> {
    schedule
        .actors()
        .iter()
        .filter(|a| a.name != CLOCK)
        .filter(|a| {
            let holds = schedule
                .scenario()
                .seats
                .iter()
                .any(|s| s.holder.as_deref() == Some(&a.name));
            holds
                || a.program.iter().any(|op| {
                    !matches!(
                        op,
                        Op::Begin { .. }
                            | Op::Commit
                            | Op::Rollback
                            | Op::Lock { .. }
                            | Op::Sweep
                            | Op::Advance { .. }
                    )
                })
        })
        .map(|a| a.name.clone())
        .collect()
}

/// Every buyer's phone once the first `step` entries have run, in the schedule's order.
pub fn phones(schedule: &Schedule, outcome: &Outcome, step: usize) -> Vec<(String, Phone)> {
    buyers(schedule)
        .into_iter()
        .map(|name| {
            let p = phone(schedule, outcome, &name, step);
            (name, p)
        })
        .collect()
}

/// What `actor`'s phone shows once the first `step` entries have run: exactly what its
/// application knows, agreeing with the model's `told` (the seats it says are yours are the
/// seats the buyer was told it got, less a hold whose deadline has passed).
pub fn phone(schedule: &Schedule, outcome: &Outcome, actor: &str, step: usize) -> Phone {
    let app = app_at(schedule, outcome, actor, step);
    let tables = tables_at(outcome, step);
    let clock = tables.clock;
    let unit = schedule.scenario().clock_unit;
    let told: Vec<String> = told_at(outcome, step)
        .into_iter()
        .filter(|(_, who)| who.iter().any(|w| w == actor))
        .map(|(seat, _)| seat)
        .collect();
    let got = |seat: &String| app.got.get(seat).copied().unwrap_or(Got::Held(None));
    let ran_out = |seat: &String| matches!(got(seat), Got::Held(Some(u)) if u < clock);
    let yours: Vec<String> = told.iter().filter(|s| !ran_out(s)).cloned().collect();
    if let Some(u) = UsernameWords::of(schedule.scenario()) {
        return username::phone(&u, &app, &yours, schedule.database());
    }
    if let Some(c) = CounterWords::of(schedule.scenario()) {
        let wants: Vec<String> = schedule
            .actor_index(actor)
            .and_then(|a| {
                schedule.actors()[a]
                    .program
                    .iter()
                    .find(|op| !op.seats().is_empty())
            })
            .map(|op| op.seats().to_vec())
            .unwrap_or_default();
        return counter::phone(c, &app, &yours, &wants);
    }
    seats_shown_from_here();
    let phone = |text: String, tone: Tone, until: Option<i64>| Phone {
        text: capitalise(&text),
        tone,
        yours: yours.clone(),
        until,
    };
    if let Some(on) = &app.waiting {
        let on: Vec<String> = on.iter().map(|a| display_name(a)).collect();
        return phone(words::waiting(&on), Tone::Busy, None);
    }
    if !yours.is_empty() {
        let booked: Vec<String> = yours
            .iter()
            .filter(|s| got(s) == Got::Booked)
            .cloned()
            .collect();
        let held: Vec<String> = yours
            .iter()
            .filter(|s| got(s) != Got::Booked)
            .cloned()
            .collect();
        let until = held
            .iter()
            .filter_map(|s| match got(s) {
                Got::Held(u) => u,
                Got::Booked => None,
            })
            .min();
        let mut parts = Vec::new();
        if !booked.is_empty() {
            parts.push(words::booked(&booked));
        }
        if !held.is_empty() {
            let deadline = until
                .map(|u| format!(" until {}", unit.at(u)))
                .unwrap_or_default();
            let next = if app.paid {
                words::PAID_WAITING
            } else {
                words::PAY_NOW
            };
            parts.push(words::held(&held, &deadline, Some(next)));
        }
        let mut text = parts.join("; ");
        if let Some(Said::Refused(r)) = &app.said {
            text.push_str(&words::asked_again(r));
        }
        let tone = if held.is_empty() {
            Tone::Good
        } else {
            Tone::Neutral
        };
        return phone(text, tone, until);
    }
    let (text, tone, until) = nothing_yours(&app, &told, (clock, unit), &got);
    let mut text = text;
    if app.skipped_for_no_seat {
        text.push_str(words::SO_NO_PAYMENT);
    }
    phone(text, tone, until)
}

/// The phone of a buyer who has no seat right now, at `clock` on a clock counting in `unit`.
fn nothing_yours(
    app: &App,
    told: &[String],
    (clock, unit): (i64, ClockUnit),
    got: &dyn Fn(&String) -> Got,
) -> (String, Tone, Option<i64>) {
    if matches!(app.said, Some(Said::RefundDue)) {
        return (words::REFUNDED.to_string(), Tone::Bad, None);
    }
    // A hold it still remembers whose deadline has passed, before anything later it did.
    let expired: Vec<(String, i64)> = app
        .got
        .keys()
        .filter_map(|s| match got(s) {
            Got::Held(Some(u)) if u < clock => Some((s.clone(), u)),
            _ => None,
        })
        .collect();
    let last_was_take = matches!(app.said, None | Some(Said::Paid | Said::PaymentDeclined));
    if let (Some((_, until)), true) = (expired.last(), last_was_take) {
        let seats: Vec<String> = expired.iter().map(|(s, _)| s.clone()).collect();
        let text = words::ran_out(&seats, &unit.at(*until), app.paid);
        return (text, Tone::Bad, Some(*until));
    }
    let _ = told;
    let (text, tone) = match &app.said {
        None if app.got.is_empty() => (words::CHOOSING.to_string(), Tone::Neutral),
        None => (words::SEAT_GONE.to_string(), Tone::Bad),
        Some(Said::Looked { free, taken }) => match (free.is_empty(), taken.is_empty()) {
            (false, true) => (words::looks_free(free), Tone::Neutral),
            (_, false) => (words::refusal(&Refusal::SoldOut(taken.clone())), Tone::Bad),
            (true, true) => (words::NOTHING_TO_SHOW.to_string(), Tone::Neutral),
        },
        Some(Said::Working(seats)) => (words::booking(seats), Tone::Neutral),
        Some(Said::Refused(r)) => (words::refusal(r), Tone::Bad),
        Some(Said::Paid) => (words::PAID_NO_SEAT.to_string(), Tone::Bad),
        Some(Said::PaymentDeclined) => (words::DECLINED.to_string(), Tone::Bad),
        Some(Said::RefundDue) => unreachable!("answered above"),
        Some(Said::Released) => (words::RELEASED.to_string(), Tone::Neutral),
        Some(Said::NothingToRelease) => (words::NOTHING_TO_RELEASE.to_string(), Tone::Neutral),
    };
    (text, tone, None)
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

impl Memory {
    /// What the application remembers and what it was told it got, in `scenario`'s words: a
    /// username's, a counter's or a seat's.
    pub fn lines(&self, scenario: &Scenario) -> (String, String) {
        match UsernameWords::of(scenario) {
            Some(u) => (self.remembers_name(&u), u.told_words(!self.told.is_empty())),
            None => {
                let counter = CounterWords::of(scenario);
                (self.remembers(counter), self.told_words(counter))
            }
        }
    }

    /// What the application remembers of its check of a username: "batman free".
    pub fn remembers_name(&self, u: &UsernameWords) -> String {
        let all: Vec<String> = (self.free.iter().map(|_| u.remembers(true)))
            .chain(self.taken.iter().map(|_| u.remembers(false)))
            .collect();
        if all.is_empty() {
            "nothing yet".to_string()
        } else {
            all.join(", ")
        }
    }

    /// What the application remembers, for a person: "A7 free, A8 taken", or on a counter's
    /// rows in its shape's words ("a ticket left in GA", "less than 100 in the joint account").
    pub fn remembers(&self, counter: Option<CounterWords>) -> String {
        let (free, taken): (Vec<String>, Vec<String>) = match counter {
            Some(c) => (
                self.free.iter().map(|id| c.enough_in(id)).collect(),
                self.taken.iter().map(|id| c.short(id)).collect(),
            ),
            None => {
                let group = |ids: &[String], how: &str| {
                    (!ids.is_empty())
                        .then(|| format!("{} {how}", ids.join(", ")))
                        .into_iter()
                        .collect()
                };
                (group(&self.free, "free"), group(&self.taken, "taken"))
            }
        };
        let all = [free, taken].concat();
        if all.is_empty() {
            "nothing yet".to_string()
        } else {
            all.join(", ")
        }
    }

    /// What the application was told it got, for a person: "A7 is theirs", or on a counter's
    /// rows in its shape's words ("100 withdrawn from the joint account").
    pub fn told_words(&self, counter: Option<CounterWords>) -> String {
        match (counter, self.told.as_slice()) {
            (None, []) => "no seat".to_string(),
            (None, [one]) => format!("{one} is theirs"),
            (None, many) => format!("{} are theirs", many.join(", ")),
            (Some(_), []) => "nothing yet".to_string(),
            (Some(c), rows) => rows
                .iter()
                .map(|id| c.got(id))
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
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
