//! Every word about a counter's rows (`Shape`), one vocabulary per shape: what a row is called
//! ("GA", "the joint account", "API key key42", "SAVE50"), how a value reads ("1 ticket left",
//! "150", "1 call left", "unused"), what one request takes and what its buyer was told. The
//! reason lines, the phones, the story, the explorer and the exports say a counter's facts in
//! these words, so one shape reads the same on every surface. Every match on `Shape` here is
//! exhaustive: a new shape does not compile until it has words of its own. This file is the
//! rows and what the database does to them; `told.rs` what a buyer is told, `verdict.rs` how a
//! row ends.

mod told;
mod verdict;

use crate::schedule::{Scenario, Shape};

/// The words of one counter scenario: its shape and what one request takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterWords {
    kind: Shape,
    take: i64,
    /// Cannot be made without the `shapes` feature: an `Option<CounterWords>` is then `None` by
    /// its type, wherever it is kept, and every branch that speaks of a counter drops out.
    _built: Built,
}

#[cfg(feature = "shapes")]
type Built = ();
#[cfg(not(feature = "shapes"))]
type Built = std::convert::Infallible;

/// "1 ticket", "2 tickets".
fn count(n: i64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

impl CounterWords {
    /// The words of `scenario`, or `None` when its rows are seats.
    pub fn of(scenario: &Scenario) -> Option<CounterWords> {
        Self::new(scenario.kind, scenario.take)
    }

    /// The words of a counter shape whose requests take `take`; `None` for seats.
    pub fn new(kind: Shape, take: i64) -> Option<CounterWords> {
        #[cfg(feature = "shapes")]
        return kind.is_counter().then_some(CounterWords {
            kind,
            take,
            _built: (),
        });
        #[cfg(not(feature = "shapes"))]
        return {
            let _ = (kind, take);
            None
        };
    }

    pub fn kind(&self) -> Shape {
        self.kind
    }

    pub fn take(&self) -> i64 {
        self.take
    }

    /// A row by name: "GA", "the joint account", "API key key42", "SAVE50".
    pub fn row(&self, id: &str) -> String {
        match self.kind {
            Shape::Seats | Shape::Username | Shape::GeneralAdmission | Shape::Coupon => {
                id.to_string()
            }
            Shape::Balance => format!("the {id} account"),
            Shape::RateLimit => format!("API key {id}"),
        }
    }

    /// A row's value: "1 ticket left", "150", "0 calls left", "unused".
    pub fn value(&self, value: i64) -> String {
        match self.kind {
            Shape::Seats | Shape::Username | Shape::Balance => value.to_string(),
            Shape::GeneralAdmission => format!("{} left", count(value, "ticket", "tickets")),
            Shape::RateLimit => format!("{} left", count(value, "call", "calls")),
            Shape::Coupon if value >= 1 => "unused".to_string(),
            Shape::Coupon => "used".to_string(),
        }
    }

    /// Whether a value covers one request.
    pub fn enough(&self, value: i64) -> bool {
        value >= self.take
    }

    /// A value as a buyer's check reads it: "1 ticket left", "150, enough for 100", "50, not
    /// enough for 100" (a count that one request takes one of says it all).
    pub fn judged(&self, value: i64) -> String {
        let plain = self.value(value);
        match self.kind {
            Shape::Seats | Shape::Username | Shape::Coupon => plain,
            Shape::GeneralAdmission | Shape::RateLimit if self.take == 1 => plain,
            Shape::GeneralAdmission | Shape::RateLimit | Shape::Balance => {
                let not = if self.enough(value) { "" } else { "not " };
                format!("{plain}, {not}enough for {}", self.take)
            }
        }
    }

    /// What one request takes, as a noun: "a ticket", "2 tickets", "a withdrawal of 100", "a
    /// call", "the coupon".
    pub fn request(&self) -> String {
        match self.kind {
            Shape::Seats | Shape::Username => "a seat".to_string(),
            Shape::GeneralAdmission if self.take == 1 => "a ticket".to_string(),
            Shape::GeneralAdmission => count(self.take, "ticket", "tickets"),
            Shape::Balance => format!("a withdrawal of {}", self.take),
            Shape::RateLimit if self.take == 1 => "a call".to_string(),
            Shape::RateLimit => count(self.take, "call", "calls"),
            Shape::Coupon => "the coupon".to_string(),
        }
    }

    /// A request that went through, as a verb phrase on `id`, with the value before and after
    /// when they are known: "takes a ticket from GA: 1 left → 0", "withdraws 100 from the joint
    /// account: 150 → 50", "uses a call of API key key42: 1 left → 0", "marks SAVE50 used".
    pub fn takes(&self, id: &str, change: Option<(i64, i64)>) -> String {
        let row = self.row(id);
        let take = self.take;
        let base = match self.kind {
            Shape::Seats | Shape::Username => format!("takes {row}"),
            Shape::GeneralAdmission if take == 1 => format!("takes a ticket from {row}"),
            Shape::GeneralAdmission => format!("takes {take} tickets from {row}"),
            Shape::Balance => format!("withdraws {take} from {row}"),
            Shape::RateLimit if take == 1 => format!("uses a call of {row}"),
            Shape::RateLimit => format!("uses {take} calls of {row}"),
            Shape::Coupon => return format!("marks {row} used"),
        };
        match change {
            Some((before, after)) => format!("{base}: {}", self.change(before, after)),
            None => base,
        }
    }

    /// A value going from `before` to `after`: "1 left → 0", "150 → 50", "unused → used".
    pub fn change(&self, before: i64, after: i64) -> String {
        match self.kind {
            Shape::Seats | Shape::Username | Shape::Balance => format!("{before} → {after}"),
            Shape::GeneralAdmission | Shape::RateLimit => format!("{before} left → {after}"),
            Shape::Coupon => format!("{} → {}", self.value(before), self.value(after)),
        }
    }

    /// Too little left in `id` for one request, as a bounded decrement's WHERE finds it: "no
    /// ticket left in GA", "less than 100 in the joint account", "no call left on API key
    /// key42", "SAVE50 already used".
    pub fn short(&self, id: &str) -> String {
        let row = self.row(id);
        let take = self.take;
        match self.kind {
            Shape::Seats | Shape::Username => format!("{row} taken"),
            Shape::GeneralAdmission if take == 1 => format!("no ticket left in {row}"),
            Shape::GeneralAdmission => format!("fewer than {take} tickets left in {row}"),
            Shape::Balance => format!("less than {take} in {row}"),
            Shape::RateLimit if take == 1 => format!("no call left on {row}"),
            Shape::RateLimit => format!("fewer than {take} calls left on {row}"),
            Shape::Coupon => format!("{row} already used"),
        }
    }

    /// The same, after `id` was named: "no ticket left", "less than 100", "the coupon already
    /// used".
    pub fn short_again(&self) -> String {
        let take = self.take;
        match self.kind {
            Shape::Seats | Shape::Username => "it taken".to_string(),
            Shape::GeneralAdmission if take == 1 => "no ticket left".to_string(),
            Shape::GeneralAdmission => format!("fewer than {take} tickets left"),
            Shape::Balance => format!("less than {take}"),
            Shape::RateLimit if take == 1 => "no call left".to_string(),
            Shape::RateLimit => format!("fewer than {take} calls left"),
            Shape::Coupon => "the coupon already used".to_string(),
        }
    }

    /// Enough in `id` for one request, as something an application did not see: "a ticket left
    /// in GA", "at least 100 in the joint account", "a call left on API key key42", "SAVE50
    /// unused".
    pub fn enough_in(&self, id: &str) -> String {
        let row = self.row(id);
        let take = self.take;
        match self.kind {
            Shape::Seats | Shape::Username => format!("{row} free"),
            Shape::GeneralAdmission if take == 1 => format!("a ticket left in {row}"),
            Shape::GeneralAdmission => format!("{take} tickets left in {row}"),
            Shape::Balance => format!("at least {take} in {row}"),
            Shape::RateLimit if take == 1 => format!("a call left on {row}"),
            Shape::RateLimit => format!("{take} calls left on {row}"),
            Shape::Coupon => format!("{row} unused"),
        }
    }

    /// Enough for one request, with no row named, as something a buyer did not see: "a ticket
    /// left", "at least 100 left", "a call left", "the coupon unused".
    pub fn enough_bare(&self) -> String {
        let take = self.take;
        match self.kind {
            Shape::Seats | Shape::Username => "the seat free".to_string(),
            Shape::GeneralAdmission if take == 1 => "a ticket left".to_string(),
            Shape::GeneralAdmission => format!("{take} tickets left"),
            Shape::Balance => format!("at least {take} left"),
            Shape::RateLimit if take == 1 => "a call left".to_string(),
            Shape::RateLimit => format!("{take} calls left"),
            Shape::Coupon => "the coupon unused".to_string(),
        }
    }

    /// The bounded decrement's condition, after what it takes: "only if a ticket is still
    /// left", "only if 100 is still there", "only if it is still unused".
    pub fn still_enough(&self) -> String {
        let take = self.take;
        match self.kind {
            Shape::Seats | Shape::Username => "only if it is still free".to_string(),
            Shape::GeneralAdmission if take == 1 => "only if a ticket is still left".to_string(),
            Shape::GeneralAdmission => format!("only if {take} tickets are still left"),
            Shape::Balance => format!("only if {take} is still there"),
            Shape::RateLimit if take == 1 => "only if a call is still left".to_string(),
            Shape::RateLimit => format!("only if {take} calls are still left"),
            Shape::Coupon => "only if it is still unused".to_string(),
        }
    }

    /// A row and its value, as a script's comment lists it: "GA with 1 ticket left", "the joint
    /// account with 150", "SAVE50, unused".
    pub fn with_value(&self, id: &str, value: i64) -> String {
        match self.kind {
            Shape::Coupon => format!("{}, {}", self.row(id), self.value(value)),
            _ => format!("{} with {}", self.row(id), self.value(value)),
        }
    }
}
