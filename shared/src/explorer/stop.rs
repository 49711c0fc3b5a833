//! How a buyer who got no seat was stopped, found in the trace (or the walk's record) and put in
//! words for a person: an error with its code's meaning, a write not sent, a one-call answer, a
//! conditional UPDATE of no rows, a seat SKIP LOCKED passed over.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::outcome::{Answer, SeatOutcome, StepResult, Trace, Verdict};
use crate::schedule::{Op, Schedule, Shape, CLOCK};
use crate::sqlstate::SqlState;

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
                    .find_map(|(op_index, result)| How::of(&a.program[op_index], result))?;
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
    label(
        verdict.double_booked,
        &stops(schedule, trace, seats, verdict),
        schedule.scenario().kind,
    )
}

/// What a double booking's stop label says.
pub const NOT_STOPPED: &str = "nobody was stopped: the seat was sold twice";

/// What a double booking's stop label says on a scenario of `kind`.
pub fn not_stopped(kind: Shape) -> &'static str {
    match kind {
        Shape::Seats => NOT_STOPPED,
        Shape::GeneralAdmission => "nobody was stopped: more tickets were sold than there were",
        Shape::Balance => "nobody was stopped: the account went below zero",
        Shape::RateLimit => "nobody was stopped: more calls were let through than the key had left",
        Shape::Coupon => "nobody was stopped: the coupon was used twice",
    }
}

/// The words of a group's stops, on a scenario of `kind`.
pub(super) fn label(double_booked: bool, stops: &[Stop], kind: Shape) -> String {
    if double_booked {
        not_stopped(kind).to_string()
    } else if stops.is_empty() {
        "nobody was turned away".to_string()
    } else {
        stops
            .iter()
            .map(|s| s.words_on(kind))
            .collect::<Vec<_>>()
            .join("; ")
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
        self.words_on(Shape::Seats)
    }

    /// In words, on a scenario of `kind`: a counter's row is not "taken" but has too little
    /// left.
    pub fn words_on(&self, kind: Shape) -> String {
        let (taken, no_longer) = match kind {
            Shape::Seats => ("saw the seat taken", "the seat was no longer free"),
            Shape::GeneralAdmission => ("read no ticket left", "no ticket was left"),
            Shape::Balance => ("read too little in the account", "too little was left"),
            Shape::RateLimit => ("read no call left", "no call was left"),
            Shape::Coupon => ("read the coupon as used", "the coupon was used"),
        };
        let row = if kind.is_counter() { "row" } else { "seat" };
        let how = match &self.how {
            StopHow::Error { code } => format!("got error {code} ({})", code.name()),
            StopHow::Skipped => format!("{taken} and did not write"),
            StopHow::Refused { answer } => refusal_words(*answer).to_string(),
            StopHow::UpdatedNoRows => format!("updated no rows: {no_longer}"),
            StopHow::LockedFewerRows => {
                format!("found the {row} locked and skipped it (SKIP LOCKED)")
            }
        };
        if self.waited {
            format!("waited, then {how}")
        } else {
            how
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
    /// What the final result of `op` says, if it stopped the buyer.
    pub(super) fn of(op: &Op, result: &'r StepResult) -> Option<How<&'r SqlState>> {
        Some(match (op, result) {
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
