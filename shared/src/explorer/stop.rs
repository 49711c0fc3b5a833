//! How a buyer who got no seat was stopped, found in the trace (or the walk's record) and put in
//! words for a person: an error with its code's meaning, a write not sent, a one-call answer, a
//! conditional UPDATE of no rows, a seat SKIP LOCKED passed over.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::counter_words::CounterWords;
use crate::outcome::{Answer, SeatOutcome, StepResult, Trace, Verdict};
use crate::schedule::{Op, Schedule, CLOCK};
use crate::sqlstate::SqlState;
use crate::username_words::UsernameWords;

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
    let username = schedule.scenario().kind.is_username();
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
                    .find_map(|(op_index, result)| {
                        How::of(&a.program[op_index], result, username)
                    })?;
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
    label_of(
        schedule,
        verdict.double_booked,
        &stops(schedule, trace, seats, verdict),
    )
}

/// The words of a group's stops in `schedule`'s shape: a username's, a counter's or a seat's.
pub(super) fn label_of(schedule: &Schedule, double_booked: bool, stops: &[Stop]) -> String {
    let Some(u) = UsernameWords::of(schedule.scenario()) else {
        return label(double_booked, stops, CounterWords::of(schedule.scenario()));
    };
    match stops {
        [] if !double_booked => "nobody was turned away".to_string(),
        _ if double_booked => u.not_stopped(),
        _ => stops
            .iter()
            .map(|s| s.words_of(&u))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// What a double booking's stop label says.
pub const NOT_STOPPED: &str = "nobody was stopped: the seat was sold twice";

/// The words of a group's stops, on a counter's rows in its shape's words.
pub(super) fn label(double_booked: bool, stops: &[Stop], counter: Option<CounterWords>) -> String {
    match counter {
        _ if stops.is_empty() && !double_booked => "nobody was turned away".to_string(),
        Some(c) if double_booked => c.not_stopped(),
        None if double_booked => NOT_STOPPED.to_string(),
        _ => stops
            .iter()
            .map(|s| s.words_in(counter))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// Sorted by their words, each once.
pub(super) fn distinct(stops: impl Iterator<Item = Stop>) -> Vec<Stop> {
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
    Error { code: SqlState },
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
        self.words_in(None)
    }

    /// In words, on a counter's rows in its shape's words: "waited, then the bounded update
    /// found no ticket left and updated no rows".
    pub fn words_in(&self, counter: Option<CounterWords>) -> String {
        let how = match (&self.how, counter) {
            (StopHow::Skipped, Some(c)) => {
                format!("did not see {} and did not write", c.enough_bare())
            }
            (StopHow::UpdatedNoRows, Some(c)) => format!(
                "the bounded update found {} and updated no rows",
                c.short_again()
            ),
            (StopHow::LockedFewerRows, Some(_)) => {
                "found the row locked and skipped it (SKIP LOCKED)".to_string()
            }
            (how, _) => Self::seat_words(how),
        };
        if self.waited {
            format!("waited, then {how}")
        } else {
            how
        }
    }

    /// In words, on a username: "saw batman taken and did not create it", "waited, then got
    /// error 23505 (duplicate key: batman was already claimed)".
    pub fn words_of(&self, u: &UsernameWords) -> String {
        let how = match &self.how {
            StopHow::Error { code } => u.error_stop(code),
            StopHow::Skipped => u.stop_skipped(),
            StopHow::UpdatedNoRows => u.stop_claimed(),
            how => Self::seat_words(how),
        };
        if self.waited {
            format!("waited, then {how}")
        } else {
            how
        }
    }

    fn seat_words(how: &StopHow) -> String {
        match how {
            StopHow::Error { code } => format!("got error {code} ({})", code.name()),
            StopHow::Skipped => "saw the seat taken and did not write".to_string(),
            StopHow::Refused { answer } => refusal_words(*answer).to_string(),
            StopHow::UpdatedNoRows => "updated no rows: the seat was no longer free".to_string(),
            StopHow::LockedFewerRows => {
                "found the seat locked and skipped it (SKIP LOCKED)".to_string()
            }
        }
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
pub(super) enum How<C> {
    Error(C),
    /// A write or a book not sent: the buyer remembered the seat as taken.
    Skipped,
    /// A one-call operation's answer other than a success.
    Answered(Answer),
    UpdatedNoRows,
    LockedFewerRows,
}

impl<'r> How<&'r SqlState> {
    /// What the final result of `op` says, if it stopped the buyer. On a `username`, a
    /// locking check that found no account returned no row without skipping any.
    pub(super) fn of(op: &Op, result: &'r StepResult, username: bool) -> Option<How<&'r SqlState>> {
        Some(match (op, result) {
            (Op::Lock { .. }, StepResult::Ok { .. }) if username => return None,
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
    pub(super) fn stop(self, waited: bool) -> Stop {
        let how = match self {
            How::Error(code) => StopHow::Error { code: code.clone() },
            How::Skipped => StopHow::Skipped,
            How::Answered(answer) => StopHow::Refused { answer },
            How::UpdatedNoRows => StopHow::UpdatedNoRows,
            How::LockedFewerRows => StopHow::LockedFewerRows,
        };
        Stop { waited, how }
    }
}

impl<C> How<C> {
    pub(super) fn map<D>(self, f: impl FnOnce(C) -> D) -> How<D> {
        match self {
            How::Error(code) => How::Error(f(code)),
            How::Skipped => How::Skipped,
            How::Answered(answer) => How::Answered(answer),
            How::UpdatedNoRows => How::UpdatedNoRows,
            How::LockedFewerRows => How::LockedFewerRows,
        }
    }
}
