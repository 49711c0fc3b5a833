//! The shape of what is raced for (`"kind"` in a scenario). Numbered seats are the default and
//! every file written before there was a choice; the others are the same race on a count in a
//! row: the tickets left of a general-admission section, an account's balance, the calls an API
//! key has left, a coupon's single use. On a counter, a scenario's "seats" are its rows (an
//! account, a key, a coupon), each with its `value`, and every request takes the scenario's
//! `take` from it (a withdrawal of 100, one call, one ticket). Only reads, locks, writes and
//! claims (inside transactions or not) apply: `write` is the unconditional `n = n - take` an
//! application sends after its own check, `claim` the bounded decrement whose WHERE is the check.
//!
//! A username is the race on a row that does not exist yet: "batman" checked free, then created
//! twice. Its scenario names one username, free or already taken by an account (`"value": 1`);
//! `read` and `lock` look for accounts of that name (`users`, whose index on the name is not
//! unique: the application's check is all that guards it), `write` creates one after that check,
//! `book` inserts the name into the table of claimed names whose primary key refuses a second,
//! and `claim` does so only if it is not there yet (`on conflict do nothing`, `insert ignore`).

use serde::{Deserialize, Serialize};

use super::{Op, Scenario, ScheduleError, SeatStatus};

/// Whether this build has the shapes beyond numbered seats (the `shapes` feature): the page's
/// first bundle has not, and refuses their scenarios at parse (`check`).
pub const SHAPES: bool = cfg!(feature = "shapes");

/// Whether this build shows a race for numbered seats (the `seats` feature): chapter 6's
/// bundle has not. It still simulates one (the shapes matrix's seat column) but never shows
/// it: its phones, headline and story are left out, and such a race opens in the sandbox (chapter 5).
pub const SHOWS_SEATS: bool = cfg!(feature = "seats");

/// Marks where the words of a race for seats begin: a build that shows none (chapter 6's
/// bundle) leaves everything after it out, since nothing there asks for them.
#[inline(always)]
pub(crate) fn seats_shown_from_here() {
    if !SHOWS_SEATS {
        unreachable!("a race for seats is shown only by a build with the seats");
    }
}

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
    /// A username, free or taken by an account (a value of 1): the race to create it.
    Username,
}

impl Shape {
    /// Every shape, seats first.
    pub const ALL: [Shape; 6] = [
        Shape::Seats,
        Shape::GeneralAdmission,
        Shape::Balance,
        Shape::RateLimit,
        Shape::Coupon,
        Shape::Username,
    ];

    /// The word a file writes (`"kind": "balance"`).
    pub fn id(self) -> &'static str {
        match self {
            Shape::Seats => "seats",
            Shape::GeneralAdmission => "general_admission",
            Shape::Balance => "balance",
            Shape::RateLimit => "rate_limit",
            Shape::Coupon => "coupon",
            Shape::Username => "username",
        }
    }

    /// Whether the rows are counters (every shape but numbered seats and usernames). Without
    /// the `shapes` feature no such scenario parses, so this is false at compile time and every
    /// counter's branch (model, SQL, words, picture) is left out of the build.
    pub fn is_counter(self) -> bool {
        SHAPES && !matches!(self, Shape::Seats | Shape::Username)
    }

    /// Whether the rows are usernames (accounts created by an insert); false at compile time
    /// without the `shapes` feature, as `is_counter`.
    pub fn is_username(self) -> bool {
        SHAPES && self == Shape::Username
    }

    /// The default, which a file leaves unsaid.
    pub fn is_seats(&self) -> bool {
        *self == Shape::Seats
    }

    /// Whether `op` applies to this shape's rows. General admission also takes a payment
    /// after its ticket is taken (the checkout): one that is declined and walks away leaves the
    /// counter lowered, since nothing gives the ticket back.
    pub fn fits(self, op: &Op) -> bool {
        if self.is_username() {
            // A lock of a name that no account has yet locks nothing on PostgreSQL and a gap on
            // InnoDB: NOWAIT and SKIP LOCKED are not modelled on it.
            return matches!(
                op,
                Op::Begin { .. }
                    | Op::Commit
                    | Op::Rollback
                    | Op::Read { .. }
                    | Op::Lock {
                        wait: crate::schedule::Wait::Wait,
                        ..
                    }
                    | Op::Write { .. }
                    | Op::Book { .. }
                    | Op::Claim { .. }
            );
        }
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
    if !SHAPES && !kind.is_seats() {
        return Err(ScheduleError::new(
            "scenario.kind",
            format!(
                "this page was loaded without the models of counters and usernames: open \
                 /chapter/{}?{}={} (the sandbox with them), then paste the schedule again",
                crate::link::SANDBOX,
                crate::link::bundle::WITH_SHAPES.0,
                crate::link::bundle::WITH_SHAPES.1,
            ),
        ));
    }
    if kind.is_username() {
        return check_username(scenario);
    }
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
                // The object that lacks the key is named.
                return Err(ScheduleError::new(
                    field,
                    format!(
                        "a {} row needs its value, e.g. {{\"id\": \"{}\", \"value\": {}}}",
                        kind.id(),
                        row.id,
                        max.min(100)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// A username scenario: one name, free (no value, or 0) or taken by an account (1); a request
/// creates one account.
fn check_username(scenario: &Scenario) -> Result<(), ScheduleError> {
    if scenario.take != 1 {
        return Err(ScheduleError::new(
            "scenario.take",
            format!(
                "{} is out of range: a request creates one account with the name: remove \"take\"",
                scenario.take
            ),
        ));
    }
    if scenario.seats.len() != 1 {
        return Err(ScheduleError::new(
            "scenario.seats",
            format!(
                "a username scenario races for one name, not {}: e.g. [{{\"id\": \"batman\"}}]",
                scenario.seats.len()
            ),
        ));
    }
    let row = &scenario.seats[0];
    if row.status != SeatStatus::Available || row.holder.is_some() || row.until.is_some() {
        return Err(ScheduleError::new(
            "scenario.seats[0]",
            format!(
                "a username is free or taken, with no status, holder or until: remove them, e.g. \
                 {{\"id\": \"{}\"}} (free) or {{\"id\": \"{}\", \"value\": 1}} (taken by an account)",
                row.id, row.id
            ),
        ));
    }
    match row.value {
        None | Some(0) | Some(1) => Ok(()),
        Some(v) => Err(ScheduleError::new(
            "scenario.seats[0].value",
            format!(
                "{v} is out of range: a username's value is 1 if an account already has it, 0 (or \
                 none) if it is free"
            ),
        )),
    }
}

/// An operation that does not apply to a counter's rows, with the ones that do.
pub(super) fn refuse_op(field: &str, kind: Shape, op: &Op) -> Result<(), ScheduleError> {
    if kind.fits(op) {
        return Ok(());
    }
    if kind.is_username() {
        return Err(ScheduleError::new(
            format!("{field}.op"),
            format!(
                "{}{} does not apply to a username scenario: its name is raced for with read, \
                 lock (waiting), write, book and claim (inside begin … commit or not)",
                op.name(),
                if matches!(op, Op::Lock { .. }) {
                    " without waiting"
                } else {
                    ""
                }
            ),
        ));
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
