//! Every word about a counter's rows (`Shape`), one vocabulary per shape: what a row is called
//! ("GA", "the joint account", "API key key42", "SAVE50"), how a value reads ("1 ticket left",
//! "150", "1 call left", "unused"), what one request takes and what its buyer was told. The
//! reason lines, the phones, the story, the explorer and the exports say a counter's facts in
//! these words, so one shape reads the same on every surface. Every match on `Shape` here is
//! exhaustive: a new shape does not compile until it has words of its own.

use crate::schedule::{Scenario, Shape};

/// The words of one counter scenario: its shape and what one request takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterWords {
    kind: Shape,
    take: i64,
}

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
        kind.is_counter().then_some(CounterWords { kind, take })
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
            Shape::Seats | Shape::GeneralAdmission | Shape::Coupon => id.to_string(),
            Shape::Balance => format!("the {id} account"),
            Shape::RateLimit => format!("API key {id}"),
        }
    }

    /// A row's value: "1 ticket left", "150", "0 calls left", "unused".
    pub fn value(&self, value: i64) -> String {
        match self.kind {
            Shape::Seats | Shape::Balance => value.to_string(),
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
            Shape::Seats | Shape::Coupon => plain,
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
            Shape::Seats => "a seat".to_string(),
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
            Shape::Seats => format!("takes {row}"),
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
            Shape::Seats | Shape::Balance => format!("{before} → {after}"),
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
            Shape::Seats => format!("{row} taken"),
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
            Shape::Seats => "it taken".to_string(),
            Shape::GeneralAdmission if take == 1 => "no ticket left".to_string(),
            Shape::GeneralAdmission => format!("fewer than {take} tickets left"),
            Shape::Balance => format!("less than {take}"),
            Shape::RateLimit if take == 1 => "no call left".to_string(),
            Shape::RateLimit => format!("fewer than {take} calls left"),
            Shape::Coupon => "the coupon already used".to_string(),
        }
    }

    /// Enough in `id` for one request, as something an application did not see: "a ticket left
    /// in GA", "100 in the joint account", "a call left on API key key42", "SAVE50 unused".
    pub fn enough_in(&self, id: &str) -> String {
        let row = self.row(id);
        let take = self.take;
        match self.kind {
            Shape::Seats => format!("{row} free"),
            Shape::GeneralAdmission if take == 1 => format!("a ticket left in {row}"),
            Shape::GeneralAdmission => format!("{take} tickets left in {row}"),
            Shape::Balance => format!("{take} in {row}"),
            Shape::RateLimit if take == 1 => format!("a call left on {row}"),
            Shape::RateLimit => format!("{take} calls left on {row}"),
            Shape::Coupon => format!("{row} unused"),
        }
    }

    /// What a buyer is about to do, on the phone before the first step: "about to buy a
    /// ticket", "about to withdraw 100", "about to call the API", "about to use a coupon".
    pub fn about_to(&self) -> String {
        let take = self.take;
        match self.kind {
            Shape::Seats => "choosing a seat".to_string(),
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
            Shape::Seats => "booking…".to_string(),
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
            Shape::Seats => format!("booked: {row} is yours"),
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
            Shape::Seats => format!("{id} is already taken"),
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
            Shape::Seats | Shape::Coupon => self.refused(id),
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
            Shape::Seats => format!("{row} looks free"),
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
            Shape::Seats => format!("{row} is already taken"),
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
            Shape::Seats => "was told they got it".to_string(),
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
            Shape::Seats => "told it was sold out".to_string(),
            Shape::GeneralAdmission => format!("told {} was sold out", self.row(id)),
            Shape::Balance => "told the withdrawal was declined".to_string(),
            Shape::RateLimit => "told the rate limit was reached".to_string(),
            Shape::Coupon => format!("told {id} could not be used"),
        }
    }

    /// What the headline calls a row that served more buyers than it could: "Oversold",
    /// "Overdrawn", "Over the limit", "One coupon, two discounts" (the count given).
    pub fn too_many(&self, told: usize) -> String {
        match self.kind {
            Shape::Seats => "Double booking".to_string(),
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
            Shape::Seats => format!("got {row}"),
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
            Shape::Seats => "a single seat".to_string(),
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
            Shape::Seats => format!("{row} ends taken"),
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
            Shape::Seats => format!("took {row}"),
            Shape::GeneralAdmission if take == 1 => format!("took a ticket from {row}"),
            Shape::GeneralAdmission => format!("took {take} tickets from {row}"),
            Shape::Balance => format!("withdrew {take} from {row}"),
            Shape::RateLimit if take == 1 => format!("used a call of {row}"),
            Shape::RateLimit => format!("used {take} calls of {row}"),
            Shape::Coupon => format!("marked {row} used"),
        }
    }

    /// Enough for one request, with no row named, as something a buyer did not see: "a ticket
    /// left", "100 left", "a call left", "the coupon unused".
    pub fn enough_bare(&self) -> String {
        let take = self.take;
        match self.kind {
            Shape::Seats => "the seat free".to_string(),
            Shape::GeneralAdmission if take == 1 => "a ticket left".to_string(),
            Shape::GeneralAdmission => format!("{take} tickets left"),
            Shape::Balance => format!("{take} left"),
            Shape::RateLimit if take == 1 => "a call left".to_string(),
            Shape::RateLimit => format!("{take} calls left"),
            Shape::Coupon => "the coupon unused".to_string(),
        }
    }

    /// The explorer's words for an order where nobody was stopped: "nobody was stopped: more
    /// tickets were sold than there were".
    pub fn not_stopped(&self) -> String {
        let what = match self.kind {
            Shape::Seats => "the seat was sold twice",
            Shape::GeneralAdmission => "more tickets were sold than there were",
            Shape::Balance => "the withdrawals overdrew the account",
            Shape::RateLimit => "more calls went through than the limit allows",
            Shape::Coupon => "the coupon was used twice",
        };
        format!("nobody was stopped: {what}")
    }

    /// The bounded decrement's condition, after what it takes: "only if a ticket is still
    /// left", "only if 100 is still there", "only if it is still unused".
    pub fn still_enough(&self) -> String {
        let take = self.take;
        match self.kind {
            Shape::Seats => "only if it is still free".to_string(),
            Shape::GeneralAdmission if take == 1 => "only if a ticket is still left".to_string(),
            Shape::GeneralAdmission => format!("only if {take} tickets are still left"),
            Shape::Balance => format!("only if {take} is still there"),
            Shape::RateLimit if take == 1 => "only if a call is still left".to_string(),
            Shape::RateLimit => format!("only if {take} calls are still left"),
            Shape::Coupon => "only if it is still unused".to_string(),
        }
    }

    /// The same as `ends`, once the row was named: "it ends at -1 tickets left: oversold by 1",
    /// "it is overdrawn: -50", "it ends used".
    pub fn ends_again(&self, value: i64) -> String {
        let at = format!("it ends at {}", self.value(value));
        match self.kind {
            Shape::Seats => "it ends taken".to_string(),
            Shape::GeneralAdmission if value < 0 => format!("{at}: oversold by {}", -value),
            Shape::RateLimit if value < 0 => format!("{at}: {} over the limit", -value),
            Shape::GeneralAdmission | Shape::RateLimit => at,
            Shape::Balance if value < 0 => format!("it is overdrawn: {value}"),
            Shape::Balance => format!("it ends at {value}"),
            Shape::Coupon => format!("it ends {}", self.value(value)),
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
