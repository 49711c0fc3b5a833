//! The shape of what is raced for (`"kind"` in a scenario). Numbered seats are the default and
//! every file written before there was a choice; the others are the same race on a count in a
//! row: the tickets left of a general-admission section, an account's balance, the calls an API
//! key has left, a coupon's single use. On a counter, a scenario's "seats" are its rows (an
//! account, a key, a coupon), each with its `value`, and every request takes the scenario's
//! `take` from it (a withdrawal of 100, one call, one ticket). Only reads, locks, writes and
//! claims (inside transactions or not) apply: `write` is the unconditional `n = n - take` an
//! application sends after its own check, `claim` the bounded decrement whose WHERE is the check.

use serde::{Deserialize, Serialize};

use super::{Op, Scenario, ScheduleError, SeatStatus};

/// The largest value a counter row may start with.
pub const MAX_VALUE: i64 = 1_000_000;

/// What a scenario's rows are.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// Numbered seats with a status, a holder and a hold (the default).
    #[default]
    Seats,
    /// A section without numbered seats: a count of tickets left.
    GeneralAdmission,
    /// An account's balance, which a withdrawal must not take below zero.
    Balance,
    /// The calls an API key has left in its window.
    RateLimit,
    /// A single-use coupon: a flag, used or not (a value of 1 while unused).
    Coupon,
}

impl Shape {
    /// Every shape, seats first.
    pub const ALL: [Shape; 5] = [
        Shape::Seats,
        Shape::GeneralAdmission,
        Shape::Balance,
        Shape::RateLimit,
        Shape::Coupon,
    ];

    /// The word a file writes (`"kind": "balance"`).
    pub fn id(self) -> &'static str {
        match self {
            Shape::Seats => "seats",
            Shape::GeneralAdmission => "general_admission",
            Shape::Balance => "balance",
            Shape::RateLimit => "rate_limit",
            Shape::Coupon => "coupon",
        }
    }

    /// Whether the rows are counters (every shape but numbered seats).
    pub fn is_counter(self) -> bool {
        self != Shape::Seats
    }

    /// The default, which a file leaves unsaid.
    pub fn is_seats(&self) -> bool {
        *self == Shape::Seats
    }

    /// Whether `op` applies to this shape's rows. General admission also takes a payment
    /// after its ticket is taken (the checkout): one that is declined and walks away leaves the
    /// counter lowered, since nothing gives the ticket back.
    pub fn fits(self, op: &Op) -> bool {
        !self.is_counter()
            || matches!(
                op,
                Op::Begin { .. }
                    | Op::Commit
                    | Op::Rollback
                    | Op::Read { .. }
                    | Op::Lock { .. }
                    | Op::Write { .. }
                    | Op::Claim { .. }
            )
            || (self == Shape::GeneralAdmission && matches!(op, Op::Pay { .. }))
    }

    /// The value a request needs in a row, and what an unconditional write leaves there: a
    /// coupon's use sets the flag (its value 0) whatever it was, a count goes down by `take`.
    pub fn after_take(self, value: i64, take: i64) -> i64 {
        match self {
            Shape::Coupon => 0,
            _ => value - take,
        }
    }
}

/// Whether a scenario takes the default of one unit per request (left unsaid in a file).
pub fn is_one(take: &i64) -> bool {
    *take == 1
}

/// A counter scenario's rows and its `take`: every row has a value and nothing of a seat's;
/// a coupon is 1 (unused) or 0 (used) and is used once per request. A scenario of seats gives
/// neither.
pub(super) fn check(scenario: &Scenario) -> Result<(), ScheduleError> {
    let kind = scenario.kind;
    if !kind.is_counter() {
        if let Some(i) = scenario.seats.iter().position(|s| s.value.is_some()) {
            return Err(ScheduleError::new(
                format!("scenario.seats[{i}].value"),
                "a seat has a status, not a value: remove \"value\", or give the scenario a \
                 counter's \"kind\" (general_admission, balance, rate_limit or coupon)",
            ));
        }
        if scenario.take != 1 {
            return Err(ScheduleError::new(
                "scenario.take",
                "a request takes one seat: remove \"take\", or give the scenario a counter's \
                 \"kind\" (general_admission, balance, rate_limit or coupon)",
            ));
        }
        return Ok(());
    }
    let max = if kind == Shape::Coupon { 1 } else { MAX_VALUE };
    if !(1..=max).contains(&scenario.take) {
        return Err(ScheduleError::new(
            "scenario.take",
            format!(
                "{} is out of range: a request of a {} takes 1 to {max}",
                scenario.take,
                kind.id()
            ),
        ));
    }
    for (i, row) in scenario.seats.iter().enumerate() {
        let field = format!("scenario.seats[{i}]");
        if row.status != SeatStatus::Available || row.holder.is_some() || row.until.is_some() {
            return Err(ScheduleError::new(
                field,
                format!(
                    "a {} row has a value, not a status, holder or until: remove them, e.g. \
                     {{\"id\": \"{}\", \"value\": {}}}",
                    kind.id(),
                    row.id,
                    max.min(100)
                ),
            ));
        }
        match row.value {
            Some(v) if (0..=max).contains(&v) => {}
            Some(v) => {
                return Err(ScheduleError::new(
                    format!("{field}.value"),
                    format!(
                        "{v} is out of range: a {} row starts at 0 to {max}",
                        kind.id()
                    ),
                ))
            }
            // A key that is missing: the row that needs it is named.
            None => {
                return Err(ScheduleError::new(
                    field,
                    format!(
                        "a {} row needs its value, e.g. {{\"id\": \"{}\", \"value\": {}}}",
                        kind.id(),
                        row.id,
                        max.min(100)
                    ),
                ))
            }
        }
    }
    Ok(())
}

/// An operation that does not apply to a counter's rows, with the ones that do.
pub(super) fn refuse_op(field: &str, kind: Shape, op: &Op) -> Result<(), ScheduleError> {
    if kind.fits(op) {
        return Ok(());
    }
    Err(ScheduleError::new(
        format!("{field}.op"),
        format!(
            "{} does not apply to a {} scenario: its rows are counters, raced for with read, \
             lock, write and claim (inside begin … commit or not; general admission also pays)",
            op.name(),
            kind.id()
        ),
    ))
}
