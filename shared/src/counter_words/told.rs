//! What a buyer racing for a counter's row is told, on the phone and in the story: "you got a
//! ticket from GA", "declined: the joint account has 50, not enough for 100", "was told the
//! withdrawal went through".

use super::CounterWords;
use crate::schedule::Shape;

impl CounterWords {
    /// What a buyer is about to do, on the phone before the first step: "about to buy a
    /// ticket", "about to withdraw 100", "about to call the API", "about to use a coupon".
    pub fn about_to(&self) -> String {
        let take = self.take;
        match self.kind {
            Shape::Seats | Shape::Username => "choosing a seat".to_string(),
            Shape::GeneralAdmission if take == 1 => "about to buy a ticket".to_string(),
            Shape::GeneralAdmission => format!("about to buy {take} tickets"),
            Shape::Balance => format!("about to withdraw {take}"),
            Shape::RateLimit if take == 1 => "about to call the API".to_string(),
            Shape::RateLimit => format!("about to make {take} calls to the API"),
            Shape::Coupon => "about to use a coupon".to_string(),
        }
    }

    /// A request under way: "buying a ticket from GA…", "withdrawing 100 from the joint
    /// account…".
    pub fn working(&self, id: Option<&str>) -> String {
        let take = self.take;
        let from = |word: &str| {
            id.map(|id| format!(" {word} {}", self.row(id)))
                .unwrap_or_default()
        };
        match self.kind {
            Shape::Seats | Shape::Username => "booking…".to_string(),
            Shape::GeneralAdmission if take == 1 => format!("buying a ticket{}…", from("from")),
            Shape::GeneralAdmission => format!("buying {take} tickets{}…", from("from")),
            Shape::Balance => format!("withdrawing {take}{}…", from("from")),
            Shape::RateLimit => format!("calling the API{}…", from("with")),
            Shape::Coupon => match id {
                Some(id) => format!("applying {id}…"),
                None => "applying the coupon…".to_string(),
            },
        }
    }

    /// What a buyer who got it was told, on the phone: "you got a ticket from GA", "100
    /// withdrawn from the joint account", "your call went through on API key key42", "SAVE50
    /// applied: your discount is in".
    pub fn got(&self, id: &str) -> String {
        let row = self.row(id);
        let take = self.take;
        match self.kind {
            Shape::Seats | Shape::Username => format!("booked: {row} is yours"),
            Shape::GeneralAdmission if take == 1 => format!("you got a ticket from {row}"),
            Shape::GeneralAdmission => format!("you got {take} tickets from {row}"),
            Shape::Balance => format!("{take} withdrawn from {row}"),
            Shape::RateLimit if take == 1 => format!("your call went through on {row}"),
            Shape::RateLimit => format!("your {take} calls went through on {row}"),
            Shape::Coupon => format!("{row} applied: your discount is in"),
        }
    }

    /// What a buyer who got nothing was told: "sold out: no ticket left in GA", "declined: less
    /// than 100 in the joint account", "rate limited: no call left on API key key42", "SAVE50
    /// was already used".
    pub fn refused(&self, id: &str) -> String {
        match self.kind {
            Shape::Seats | Shape::Username => format!("{id} is already taken"),
            Shape::GeneralAdmission => format!("sold out: {}", self.short(id)),
            Shape::Balance => format!("declined: {}", self.short(id)),
            Shape::RateLimit => format!("rate limited: {}", self.short(id)),
            Shape::Coupon => format!("{id} was already used"),
        }
    }

    /// The same, with the value the buyer's application read: "declined: the joint account has
    /// 50, not enough for 100", "sold out: GA has 0 tickets left", "SAVE50 was already used".
    pub fn refused_seen(&self, id: &str, value: i64) -> String {
        let row = self.row(id);
        match self.kind {
            Shape::Seats | Shape::Username | Shape::Coupon => self.refused(id),
            Shape::GeneralAdmission => format!("sold out: {row} has {}", self.judged(value)),
            Shape::Balance => format!("declined: {row} has {}", self.judged(value)),
            Shape::RateLimit => format!("rate limited: {row} has {}", self.judged(value)),
        }
    }

    /// A read that found enough, on the phone: "1 ticket left in GA", "the joint account has
    /// 150, enough for 100", "1 call left on API key key42", "SAVE50 is unused".
    pub fn looks(&self, id: &str, value: i64) -> String {
        let row = self.row(id);
        match self.kind {
            Shape::Seats | Shape::Username => format!("{row} looks free"),
            Shape::GeneralAdmission | Shape::RateLimit if self.take == 1 => {
                format!("{row} has {}", self.value(value))
            }
            Shape::GeneralAdmission | Shape::RateLimit | Shape::Balance => {
                format!("{row} has {}", self.judged(value))
            }
            Shape::Coupon => format!("{row} is {}", self.value(value)),
        }
    }

    /// A row the application's locking read skipped as locked, so it saw no value: "sold out:
    /// GA was locked, so the application skipped it" (what a buyer is told when no row comes
    /// back, and why).
    pub fn skipped(&self, id: &str) -> String {
        let row = self.row(id);
        let why = format!("{row} was locked, so the application skipped it");
        match self.kind {
            Shape::Seats | Shape::Username => format!("{row} is already taken"),
            Shape::GeneralAdmission => format!("sold out: {why}"),
            Shape::Balance => format!("declined: {why}"),
            Shape::RateLimit => format!("rate limited: {why}"),
            Shape::Coupon => {
                format!("{row} could not be used: it was locked, so the application skipped it")
            }
        }
    }

    /// A row locked right now (NOWAIT), on the phone: "GA is busy right now".
    pub fn busy(&self, id: &str) -> String {
        format!("{} is busy right now", self.row(id))
    }

    /// What a buyer was told who got it, in the story: "was told they got a ticket", "was
    /// told the withdrawal went through", "was told the call went through", "was told the
    /// discount applies".
    pub fn told(&self) -> String {
        match self.kind {
            Shape::Seats | Shape::Username => "was told they got it".to_string(),
            Shape::GeneralAdmission => format!("was told they got {}", self.request()),
            Shape::Balance => "was told the withdrawal went through".to_string(),
            Shape::RateLimit if self.take == 1 => "was told the call went through".to_string(),
            Shape::RateLimit => "was told the calls went through".to_string(),
            Shape::Coupon => "was told the discount applies".to_string(),
        }
    }

    /// A loser's refusal in the story and the headline, after "Omar was": "told GA was sold
    /// out", "told the withdrawal was declined", "told the rate limit was reached", "told SAVE50
    /// could not be used" (true whether the row had too little or was skipped as locked).
    pub fn told_no(&self, id: &str) -> String {
        match self.kind {
            Shape::Seats | Shape::Username => "told it was sold out".to_string(),
            Shape::GeneralAdmission => format!("told {} was sold out", self.row(id)),
            Shape::Balance => "told the withdrawal was declined".to_string(),
            Shape::RateLimit => "told the rate limit was reached".to_string(),
            Shape::Coupon => format!("told {id} could not be used"),
        }
    }
}
