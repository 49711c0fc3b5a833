//! The picture of a counter at a step, in place of the seat map on a scenario whose rows are
//! counters (`Shape`): a general-admission section's tickets left, an account's balance, an API
//! key's calls left, a coupon's used flag. Like the seat map it shows what the committed rows do
//! not: who holds the row lock, who waits for it in order, and an uncommitted new value and
//! whose it is; and like it, every word is derived from the model's outcome at the playhead.

use serde::Serialize;

use super::{display_name, tables_at, told_at};
use crate::outcome::SeatLock;
use crate::schedule::{Schedule, Shape};
use crate::Outcome;

/// One counter row as the picture draws it once the first `step` entries have run.
/// Serialised for the browser tests, which compare the page's picture with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CounterRow {
    /// The row's key: a section, an account, an API key, a coupon's code.
    pub id: String,
    pub kind: Shape,
    /// What one request takes from it.
    pub take: i64,
    /// The committed value.
    pub value: i64,
    /// The value it started with.
    pub start: i64,
    /// The buyers told yes (a ticket, a withdrawal, a call, a discount), first told first.
    pub told: Vec<String>,
    /// The buyer whose open transaction holds the row lock.
    pub lock: Option<String>,
    /// The buyers whose statement waits for this row, first in line first.
    pub queue: Vec<String>,
    /// An uncommitted new value and whose it is: nobody else sees it until it commits.
    pub pending: Option<(String, i64)>,
}

/// What a counter is, as the picture colours it and says in words beside the colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CounterState {
    /// It can serve one more request.
    Open,
    /// It has served all it had: sold out, used, no calls left, too little to withdraw.
    Spent,
    /// More buyers were told yes than it could serve (the double booking), or it went below
    /// zero.
    Over,
}

impl CounterState {
    /// The class the row and its legend key carry.
    pub fn class(self) -> &'static str {
        match self {
            CounterState::Open => "ct-open",
            CounterState::Spent => "ct-spent",
            CounterState::Over => "ct-over",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            CounterState::Open => "open",
            CounterState::Spent => "spent",
            CounterState::Over => "over",
        }
    }
}

/// Every counter row of `schedule` once the first `step` entries have run, with what the open
/// transactions hold on it; empty on a scenario of seats.
pub fn counters_at(schedule: &Schedule, outcome: &Outcome, step: usize) -> Vec<CounterRow> {
    let scenario = schedule.scenario();
    if !scenario.kind.is_counter() {
        return Vec::new();
    }
    let tables = tables_at(outcome, step);
    let told = told_at(outcome, step);
    let locks: &[SeatLock] = match step {
        0 => &[],
        n => {
            &outcome.entries[n.min(outcome.entries.len()) - 1]
                .trace
                .locks
        }
    };
    tables
        .seats
        .iter()
        .map(|row| {
            let live = locks.iter().find(|l| l.seat == row.id);
            let start = outcome
                .initial
                .seats
                .iter()
                .find(|r| r.id == row.id)
                .and_then(|r| r.value)
                .unwrap_or_default();
            CounterRow {
                id: row.id.clone(),
                kind: scenario.kind,
                take: scenario.take,
                value: row.value.unwrap_or_default(),
                start,
                told: told.get(&row.id).cloned().unwrap_or_default(),
                lock: live.and_then(|l| l.holder.clone()),
                queue: live.map(|l| l.queue.clone()).unwrap_or_default(),
                pending: live
                    .and_then(|l| l.write.as_ref())
                    .and_then(|w| Some((w.by.clone(), w.value?))),
            }
        })
        .collect()
}

/// Where a shape's rows are stored: the table, its key and its value's column, as the SQL
/// names them (`sql::counter::table`; seats' own table for a scenario of seats).
pub fn table(kind: Shape) -> (&'static str, &'static str, &'static str) {
    crate::sql::counter::table(kind).map_or(("seats", "seat_id", "status"), |t| {
        (t.name, t.key, t.column)
    })
}

/// A stored value as its column holds it: a coupon's `used` is a flag.
pub fn stored(kind: Shape, value: i64) -> String {
    match kind {
        Shape::Coupon => (value == 0).to_string(),
        _ => value.to_string(),
    }
}

/// "1 ticket", "3 tickets".
fn count(n: i64, one: &str, many: &str) -> String {
    format!("{n} {}", if n.abs() == 1 { one } else { many })
}

impl CounterRow {
    /// How many requests it could serve from the start: value / take (a coupon, one).
    pub fn capacity(&self) -> i64 {
        match self.kind {
            Shape::Coupon => self.start.min(1),
            _ => self.start / self.take.max(1),
        }
    }

    /// More buyers told yes than it could serve: the double booking.
    pub fn oversold(&self) -> bool {
        self.told.len() as i64 > self.capacity()
    }

    pub fn state(&self) -> CounterState {
        if self.oversold() || self.value < 0 {
            CounterState::Over
        } else if self.value < self.take.max(1) {
            CounterState::Spent
        } else {
            CounterState::Open
        }
    }

    /// What the row is called: "Section GA", "Account joint", "API key key42", "Coupon SAVE50".
    pub fn title(&self) -> String {
        let what = match self.kind {
            Shape::GeneralAdmission => "Section",
            Shape::Balance => "Account",
            Shape::RateLimit => "API key",
            Shape::Coupon => "Coupon",
            Shape::Seats | Shape::Username => "Seat",
        };
        format!("{what} {}", self.id)
    }

    /// The column it is kept in, as the SQL names it.
    pub fn column(&self) -> &'static str {
        table(self.kind).2
    }

    /// A value in the row's own words: "1 ticket left", "$150", "−$50", "1 call left",
    /// "unused", "used".
    pub fn amount(&self, value: i64) -> String {
        match self.kind {
            Shape::GeneralAdmission => format!("{} left", count(value, "ticket", "tickets")),
            Shape::Balance if value < 0 => format!("\u{2212}${}", -value),
            Shape::Balance => format!("${value}"),
            Shape::RateLimit => format!("{} left", count(value, "call", "calls")),
            Shape::Coupon if value > 0 => "unused".to_string(),
            Shape::Coupon => "used".to_string(),
            Shape::Seats | Shape::Username => String::new(),
        }
    }

    /// What one request asks of it: "a ticket", "a withdrawal of $100", "a call", "the
    /// discount".
    pub fn request(&self) -> String {
        match self.kind {
            Shape::GeneralAdmission if self.take == 1 => "a ticket".to_string(),
            Shape::GeneralAdmission => format!("{} tickets", self.take),
            Shape::Balance => format!("a withdrawal of ${}", self.take),
            Shape::RateLimit if self.take == 1 => "a call".to_string(),
            Shape::RateLimit => format!("{} calls", self.take),
            Shape::Coupon => "the discount".to_string(),
            Shape::Seats | Shape::Username => "the seat".to_string(),
        }
    }

    /// The state in words, so that colour is never the only sign: "enough for 1 more",
    /// "sold out", "overdrawn by $50", "oversold: 2 told yes for 1 ticket".
    pub fn state_line(&self) -> String {
        let told = self.told.len() as i64;
        match self.state() {
            CounterState::Over if self.value < 0 => match self.kind {
                Shape::Balance => format!("overdrawn by ${}", -self.value),
                Shape::GeneralAdmission => {
                    format!("oversold by {}", count(-self.value, "ticket", "tickets"))
                }
                Shape::RateLimit => {
                    format!("over the limit by {}", count(-self.value, "call", "calls"))
                }
                _ => "below zero".to_string(),
            },
            CounterState::Over => match self.kind {
                Shape::Coupon => format!("used {told} times, though it is single-use"),
                _ => format!(
                    "{told} told yes, though it had enough for {}",
                    self.capacity()
                ),
            },
            CounterState::Spent => match self.kind {
                Shape::GeneralAdmission => "sold out".to_string(),
                Shape::Balance => format!("not enough for {}", self.request()),
                Shape::RateLimit => "no calls left".to_string(),
                Shape::Coupon | Shape::Seats | Shape::Username => "used up".to_string(),
            },
            CounterState::Open => match self.kind {
                Shape::Coupon => "can be used once".to_string(),
                _ => {
                    let n = self.value / self.take.max(1);
                    let (one, many) = match self.kind {
                        Shape::GeneralAdmission => ("buyer", "buyers"),
                        Shape::Balance => ("withdrawal", "withdrawals"),
                        _ => ("call", "calls"),
                    };
                    format!("enough for {n} more {}", if n == 1 { one } else { many })
                }
            },
        }
    }

    /// Who was told yes: "Told yes: Adam, Omar".
    pub fn told_line(&self) -> Option<String> {
        (!self.told.is_empty())
            .then(|| format!("Told yes: {}", crate::view::display_names(&self.told)))
    }

    /// Who holds the row lock: "Adam holds the row lock".
    pub fn lock_line(&self) -> Option<String> {
        crate::view::lock_line(self.lock.as_deref())
    }

    /// Who waits for the row, in order: "Omar waits", "Omar, then Zoe wait, in that order".
    pub fn queue_line(&self) -> Option<String> {
        crate::view::queue_line(&self.queue)
    }

    /// An uncommitted new value: "Adam writing $50, not committed".
    pub fn pending_line(&self) -> Option<String> {
        let (by, value) = self.pending.as_ref()?;
        Some(format!(
            "{} writing {}, not committed",
            display_name(by),
            self.amount(*value)
        ))
    }

    /// Everything the picture shows, as one sentence for a screen reader.
    pub fn sentence(&self) -> String {
        let mut parts = vec![format!(
            "{}: {}, {}",
            self.title(),
            self.amount(self.value),
            self.state_line()
        )];
        if !self.told.is_empty() {
            parts.push(format!(
                "{} told yes",
                crate::view::display_names(&self.told)
            ));
        }
        parts.extend(crate::view::lock_and_queue_clauses(
            self.lock.as_deref(),
            &self.queue,
        ));
        if let Some((by, value)) = &self.pending {
            parts.push(format!(
                "{} has written {} and not committed: nobody else sees it yet",
                display_name(by),
                self.amount(*value)
            ));
        }
        format!("{}.", parts.join("; "))
    }
}
