//! How a counter's row ends, for the headline, the consequence and the explorer: who was served,
//! what the row had ("which held 150") and what it reads at the end ("it is overdrawn: -50").

use super::CounterWords;
use crate::schedule::Shape;

impl CounterWords {
    /// What the headline calls a row that served more buyers than it could: "Oversold",
    /// "Overdrawn", "Over the limit", "One coupon, two discounts" (the count given).
    pub fn too_many(&self, told: usize) -> String {
        match self.kind {
            Shape::Seats | Shape::Username => "Double booking".to_string(),
            Shape::GeneralAdmission => "Oversold".to_string(),
            Shape::Balance => "Overdrawn".to_string(),
            Shape::RateLimit => "Over the limit".to_string(),
            Shape::Coupon => format!("One coupon, {} discounts", crate::explain::number(told)),
        }
    }

    /// What `n` buyers who got it got, after their names: "got a ticket from GA" / "got
    /// tickets from GA", "withdrew 100 from the joint account", "got a call through on API key
    /// key42", "used SAVE50".
    pub fn served(&self, id: &str, n: usize) -> String {
        let row = self.row(id);
        let take = self.take;
        match self.kind {
            Shape::Seats | Shape::Username => format!("got {row}"),
            Shape::GeneralAdmission if n == 1 => format!("got {} from {row}", self.request()),
            Shape::GeneralAdmission => format!("got tickets from {row}"),
            Shape::Balance => format!("withdrew {take} from {row}"),
            Shape::RateLimit if n == 1 => format!("got {} through on {row}", self.request()),
            Shape::RateLimit => format!("called with {row}"),
            Shape::Coupon => format!("used {row}"),
        }
    }

    /// How many requests a row of `value` serves, in words: "which had 1 ticket left", "which
    /// held 150", "which had 1 call left", "a single-use coupon".
    pub fn capacity(&self, value: i64) -> String {
        match self.kind {
            Shape::Seats | Shape::Username => "a single seat".to_string(),
            Shape::GeneralAdmission | Shape::RateLimit => {
                format!("which had {}", self.value(value))
            }
            Shape::Balance => format!("which held {value}"),
            Shape::Coupon => "a single-use coupon".to_string(),
        }
    }

    /// What a row ends as, for the consequence: "GA ends at -1 tickets left: oversold by 1",
    /// "the joint account is overdrawn: -50", "API key key42 ends at 0 calls left", "SAVE50
    /// ends used".
    pub fn ends(&self, id: &str, value: i64) -> String {
        let row = self.row(id);
        let at = format!("{row} ends at {}", self.value(value));
        match self.kind {
            Shape::Seats | Shape::Username => format!("{row} ends taken"),
            Shape::GeneralAdmission if value < 0 => format!("{at}: oversold by {}", -value),
            Shape::RateLimit if value < 0 => format!("{at}: {} over the limit", -value),
            Shape::GeneralAdmission | Shape::RateLimit => at,
            Shape::Balance if value < 0 => format!("{row} is overdrawn: {value}"),
            Shape::Balance => format!("{row} ends at {value}"),
            Shape::Coupon => format!("{row} ends {}", self.value(value)),
        }
    }

    /// A request that went through, in the past tense, for the story: "took a ticket from GA",
    /// "withdrew 100 from the joint account", "used a call of API key key42", "marked SAVE50
    /// used".
    pub fn took(&self, id: &str) -> String {
        let row = self.row(id);
        let take = self.take;
        match self.kind {
            Shape::Seats | Shape::Username => format!("took {row}"),
            Shape::GeneralAdmission if take == 1 => format!("took a ticket from {row}"),
            Shape::GeneralAdmission => format!("took {take} tickets from {row}"),
            Shape::Balance => format!("withdrew {take} from {row}"),
            Shape::RateLimit if take == 1 => format!("used a call of {row}"),
            Shape::RateLimit => format!("used {take} calls of {row}"),
            Shape::Coupon => format!("marked {row} used"),
        }
    }

    /// The explorer's words for an order where nobody was stopped: "nobody was stopped: more
    /// tickets were sold than there were".
    pub fn not_stopped(&self) -> String {
        let what = match self.kind {
            Shape::Seats | Shape::Username => "the seat was sold twice",
            Shape::GeneralAdmission => "more tickets were sold than there were",
            Shape::Balance => "the withdrawals overdrew the account",
            Shape::RateLimit => "more calls went through than the limit allows",
            Shape::Coupon => "the coupon was used twice",
        };
        format!("nobody was stopped: {what}")
    }

    /// The same as `ends`, once the row was named: "it ends at -1 tickets left: oversold by 1",
    /// "it is overdrawn: -50", "it ends used".
    pub fn ends_again(&self, value: i64) -> String {
        let at = format!("it ends at {}", self.value(value));
        match self.kind {
            Shape::Seats | Shape::Username => "it ends taken".to_string(),
            Shape::GeneralAdmission if value < 0 => format!("{at}: oversold by {}", -value),
            Shape::RateLimit if value < 0 => format!("{at}: {} over the limit", -value),
            Shape::GeneralAdmission | Shape::RateLimit => at,
            Shape::Balance if value < 0 => format!("it is overdrawn: {value}"),
            Shape::Balance => format!("it ends at {value}"),
            Shape::Coupon => format!("it ends {}", self.value(value)),
        }
    }
}
