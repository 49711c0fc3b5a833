//! One completion of an entry as a line of the story: "Adam booked A7 and was told they got
//! it", "Then Omar locked A7: BOOKED", "The clock moved to minute 11: Adam's hold on A7 ran out".
//! The lines of a write, a hold and a confirm are `took`'s; the clock's and the sweeper's are
//! `clock`'s.

mod clock;
mod took;
mod username;

use std::collections::BTreeMap;

use super::{join, title};
use crate::counter_words::CounterWords;
use crate::outcome::{Answer, Entry, Outcome, SeenRow, StepResult, Tables};
use crate::schedule::{seats_shown_from_here, ClockUnit, Op, PayOutcome, Schedule, SeatStatus};

/// What one completion means, in a line (`None` when it is not worth one).
pub(super) struct Event<'a> {
    pub(super) schedule: &'a Schedule,
    pub(super) outcome: &'a Outcome,
    /// The entry during which it completed.
    pub(super) k: usize,
    /// The entry whose operation completed.
    pub(super) j: usize,
    pub(super) told_before: &'a BTreeMap<String, Vec<String>>,
    /// Entry `k` released operations that had waited.
    pub(super) released: bool,
}

impl Event<'_> {
    fn entry(&self) -> &Entry {
        &self.outcome.entries[self.j]
    }

    /// The unit of the schedule's clock, for every moment a line names.
    fn unit(&self) -> ClockUnit {
        self.schedule.scenario().clock_unit
    }

    /// The shape's words, on a counter's rows.
    fn counter(&self) -> Option<CounterWords> {
        CounterWords::of(self.schedule.scenario())
    }

    fn who(&self) -> String {
        title(&self.entry().trace.actor)
    }

    fn tables_after(&self) -> &Tables {
        &self.outcome.entries[self.k].trace.tables
    }

    fn tables_before(&self) -> &Tables {
        match self.k.checked_sub(1) {
            Some(prev) => &self.outcome.entries[prev].trace.tables,
            None => &self.outcome.initial,
        }
    }

    /// The seats this actor was told it got during entry `k`.
    fn got(&self) -> Vec<String> {
        let actor = &self.entry().trace.actor;
        self.outcome.entries[self.k]
            .told
            .iter()
            .filter(|(seat, told)| {
                told.contains(actor)
                    && !self
                        .told_before
                        .get(*seat)
                        .is_some_and(|before| before.contains(actor))
            })
            .map(|(seat, _)| seat.clone())
            .collect()
    }

    /// Someone else had been told they got one of `seats`, and still counts as having it.
    fn someone_else_had(&self, seats: &[String]) -> bool {
        let actor = &self.entry().trace.actor;
        let after = &self.outcome.entries[self.k].told;
        seats.iter().any(|s| {
            let had = self.told_before.get(s).into_iter().flatten();
            had.filter(|a| *a != actor)
                .any(|a| after.get(s).is_some_and(|now| now.contains(a)))
        })
    }

    /// `base`, and what the actor was told by it: "Adam booked A7 and was told they got it",
    /// "Omar booked A7 too and was told the same".
    fn with_told(&self, base: String, seats_named: bool) -> String {
        let got = self.got();
        if got.is_empty() {
            return base;
        }
        if let Some(u) = crate::username_words::UsernameWords::of(self.schedule.scenario()) {
            return self.username_told(&u, base);
        }
        if let Some(c) = self.counter() {
            return format!("{base} and {}", c.told());
        }
        let what = if seats_named {
            "it".to_string()
        } else {
            join(&got)
        };
        match (self.someone_else_had(&got), seats_named) {
            (true, true) => format!("{base} too and was told the same"),
            (true, false) => format!("{base} and was told they got {what} too"),
            (false, _) => format!("{base} and was told they got {what}"),
        }
    }

    /// A step its own condition skipped (a payment with no seat, a retry not needed): the
    /// buyer's application never sent it, so it is no part of the story.
    fn skipped_by_condition(&self) -> bool {
        let e = self.entry();
        e.trace.result == Some(StepResult::Skipped)
            && self
                .schedule
                .actor_index(&e.trace.actor)
                .is_some_and(|actor| {
                    crate::export::clients_at(self.schedule, self.outcome, self.j)
                        .unmet(self.schedule, actor, e.trace.op_index)
                        .is_some()
                })
    }

    pub(super) fn line(&self) -> Option<String> {
        let e = self.entry();
        let result = e.trace.result.as_ref()?;
        let who = self.who();
        if self.skipped_by_condition() {
            return None;
        }
        if let Some(u) = crate::username_words::UsernameWords::of(self.schedule.scenario()) {
            if let Some(line) = self.username_line(&u, result) {
                return Some(line);
            }
        }
        if let StepResult::Error { code, message } = result {
            return Some(format!(
                "{who}'s {} failed: {} ({code})",
                e.op.name(),
                code.story_words(message)
            ));
        }
        let line = match (&e.op, result) {
            (Op::Begin { .. }, _) => return None,
            (Op::Commit | Op::Rollback, _) => return self.end(result),
            (Op::Read { .. }, _) => format!("{who} read {}", self.seen(e)),
            (Op::Lock { .. }, _) if e.trace.seen.is_empty() && self.counter().is_some() => {
                let c = self.counter().expect("a counter");
                let rows: Vec<String> = e.op.seats().iter().map(|id| c.row(id)).collect();
                format!("{who}'s lock skipped {} as locked", join(&rows))
            }
            (Op::Lock { .. }, _) => format!("{who} locked {}", self.seen(e)),
            (Op::Write { .. } | Op::Claim { .. } | Op::Book { .. }, _) => self.take(result),
            // A hold, its confirm and release, the Redis hold, the clock: a race for seats only.
            (
                Op::Hold { .. }
                | Op::Confirm { .. }
                | Op::Release
                | Op::RedisHold { .. }
                | Op::RedisRelease
                | Op::Advance { .. }
                | Op::Sweep,
                _,
            ) => self.holds_and_clock(result),
            (Op::Pay { outcome }, _) => match outcome {
                PayOutcome::Succeeds => format!("{who} paid"),
                PayOutcome::Declined => format!("{who}'s payment was declined"),
                PayOutcome::Unknown => format!("{who}'s payment timed out, but the money moved"),
            },
        };
        Some(line)
    }

    /// A line for a hold, its confirm or release, a Redis hold or the clock: only a race for
    /// seats has them, and a build that shows none (chapter 6's bundle) leaves these words out.
    fn holds_and_clock(&self, result: &StepResult) -> String {
        seats_shown_from_here();
        let e = self.entry();
        let who = self.who();
        match (&e.op, result) {
            (Op::Hold { .. }, StepResult::Answer { answer }) => {
                self.hold(*answer, &join(e.op.seats()))
            }
            (Op::Confirm { .. }, StepResult::Answer { answer }) => self.confirm(*answer),
            (Op::Release, StepResult::Answer { answer }) if *answer == Answer::Released => {
                format!("{who} released the hold")
            }
            (Op::Release, _) => format!("{who}'s release found no hold left"),
            (Op::RedisHold { .. }, StepResult::Answer { answer }) if *answer == Answer::Held => {
                format!("Redis gave {who} the hold on {}", join(e.op.seats()))
            }
            (Op::RedisHold { .. }, _) => format!(
                "Redis refused {who} {}: someone's key was still alive",
                join(e.op.seats())
            ),
            (Op::RedisRelease, StepResult::Answer { answer }) if *answer == Answer::Released => {
                format!("{who} deleted their Redis hold")
            }
            (Op::RedisRelease, _) => format!("{who}'s Redis key was already gone"),
            (Op::Advance { .. }, _) => self.advance(),
            (Op::Sweep, _) => self.sweep(),
            (op, other) => format!("{who}'s {} answered: {}", op.name(), result_words(other)),
        }
    }

    /// A commit or rollback: worth a line when it tells someone they got a seat, fails, or
    /// releases someone who waited.
    fn end(&self, result: &StepResult) -> Option<String> {
        let who = self.who();
        let commit = matches!(self.entry().op, Op::Commit);
        if *result == StepResult::RolledBack {
            return Some(format!(
                "{who}'s commit only rolled back: the transaction had already failed"
            ));
        }
        if commit && !self.got().is_empty() {
            return Some(self.with_told(format!("{who} committed"), false));
        }
        let verb = if commit { "committed" } else { "rolled back" };
        (self.released && self.j == self.k).then(|| format!("{who} {verb}"))
    }
}

impl Event<'_> {
    /// What entry `e`'s read or lock returned, in the words of its rows.
    fn seen(&self, e: &Entry) -> String {
        seen(self.counter(), &e.trace.seen, e.op.seats())
    }
}

/// The rows a read or lock returned: "A7: AVAILABLE", "A12: AVAILABLE, A13: HELD", a counter's
/// with its value ("GA: 1 ticket left"); seats it did not return (skipped as locked) are named
/// too.
fn seen(counter: Option<CounterWords>, rows: &[SeenRow], asked: &[String]) -> String {
    let mut parts: Vec<String> = rows
        .iter()
        .map(|r| match (counter, r.value, r.status, r.available) {
            (Some(c), Some(v), ..) => format!("{}: {}", c.row(&r.seat), c.judged(v)),
            (_, _, SeatStatus::Held, true) => format!("{}: HELD, run out", r.seat),
            (_, _, status, _) => format!("{}: {}", r.seat, status.as_sql()),
        })
        .collect();
    let missing: Vec<String> = asked
        .iter()
        .filter(|s| !rows.iter().any(|r| &r.seat == *s))
        .map(|s| counter.map_or_else(|| s.clone(), |c| c.row(s)))
        .collect();
    if !missing.is_empty() {
        parts.push(format!("{} skipped as locked", join(&missing)));
    }
    if parts.is_empty() {
        "nothing".to_string()
    } else {
        parts.join(", ")
    }
}

/// An answer in words, for a line that has no better one.
fn answer_words(answer: Answer) -> &'static str {
    match answer {
        Answer::Held => "held",
        Answer::Unavailable => "the seat is taken",
        Answer::Busy => "the seat is locked right now",
        Answer::Expired => "the hold had run out",
        Answer::Issued => "ticket issued",
        Answer::Duplicate => "the same ticket again",
        Answer::RefundDue => "too late, a refund is owed",
        Answer::Released => "released",
    }
}

/// A result in words, for a line that has no better one.
fn result_words(result: &StepResult) -> String {
    match result {
        StepResult::Ok { rows: Some(n) } => format!("done, {n} rows"),
        StepResult::Ok { rows: None } => "done".to_string(),
        StepResult::Skipped => "skipped".to_string(),
        StepResult::Answer { answer } => answer_words(*answer).to_string(),
        StepResult::Error { code, message } => format!("{} ({code})", code.story_words(message)),
        StepResult::RolledBack => "rolled back".to_string(),
    }
}
