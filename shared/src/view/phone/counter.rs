//! The phone of a buyer racing for a counter's row, in its shape's words (`CounterWords`):
//! "1 ticket left in GA", "you got a ticket from GA", "declined: the joint account has 50, not
//! enough for 100", "SAVE50 was already used". What it says is what the application knows at the
//! step: the values its last read returned, the rows it was told it got (which the model's
//! `told` says), the refusal it met.

use super::{Phone, Tone};
use crate::counter_words::CounterWords;
use crate::engine::{capitalise, join};
use crate::sqlstate::SqlState;
use crate::view::app::{App, Said};
use crate::view::refusal::Refusal;
use crate::view::words;

/// What `app`'s phone says on a counter's rows, `yours` the rows it was told it got and `wants`
/// the rows its program asks for.
pub(super) fn phone(c: CounterWords, app: &App, yours: &[String], wants: &[String]) -> Phone {
    let phone = |text: String, tone: Tone| Phone {
        text: capitalise(&text),
        tone,
        yours: yours.to_vec(),
        until: None,
    };
    if let Some(on) = &app.waiting {
        let on: Vec<String> = on.iter().map(|a| super::display_name(a)).collect();
        return phone(words::waiting(&on), Tone::Busy);
    }
    if !yours.is_empty() {
        let mut text = join(&yours.iter().map(|id| c.got(id)).collect::<Vec<_>>());
        if let Some(Said::Refused(r)) = &app.said {
            text.push_str(&format!(" (asked again: {})", refusal(c, app, r)));
        }
        return phone(text, Tone::Good);
    }
    match &app.said {
        None => phone(c.about_to(), Tone::Neutral),
        Some(Said::Looked { free, taken }) if taken.is_empty() && !free.is_empty() => {
            let each: Vec<String> = free.iter().map(|id| looks(c, app, id)).collect();
            phone(join(&each), Tone::Neutral)
        }
        Some(Said::Looked { taken, .. }) if !taken.is_empty() => {
            let each: Vec<String> = taken.iter().map(|id| short_seen(c, app, id)).collect();
            phone(join(&each), Tone::Bad)
        }
        Some(Said::Looked { .. }) => phone(words::NOTHING_TO_SHOW.to_string(), Tone::Neutral),
        Some(Said::Working(rows)) => {
            let id = rows.first().or(wants.first()).map(String::as_str);
            phone(c.working(id), Tone::Neutral)
        }
        Some(Said::Refused(r)) => phone(refusal(c, app, r), Tone::Bad),
        // No counter's program pays, confirms or releases: these are a seat's words.
        Some(other) => phone(seat_words(other), Tone::Neutral),
    }
}

/// A row the last read found enough in, with the value it read.
fn looks(c: CounterWords, app: &App, id: &str) -> String {
    match seen_value(app, id) {
        Some(v) => c.looks(id, v),
        None => c.enough_in(id),
    }
}

/// A row the last read found too little in, with the value it read, or that the locking read
/// skipped as locked.
fn short_seen(c: CounterWords, app: &App, id: &str) -> String {
    match seen_value(app, id) {
        Some(v) => c.refused_seen(id, v),
        None => c.skipped(id),
    }
}

/// The value the application's last read or lock returned for `id`, if it returned the row.
fn seen_value(app: &App, id: &str) -> Option<i64> {
    app.seen.iter().find(|r| r.seat == id).and_then(|r| r.value)
}

/// A refusal in the shape's words, with the value the application read when it has one.
fn refusal(c: CounterWords, app: &App, r: &Refusal) -> String {
    let each = |rows: &[String], one: &dyn Fn(&str) -> String| -> String {
        join(&rows.iter().map(|id| one(id)).collect::<Vec<_>>())
    };
    match r {
        // A write or claim that took no row: the WHERE found too little.
        Refusal::SoldOut(rows) => each(rows, &|id| c.refused(id)),
        Refusal::RemembersTaken(rows) => each(rows, &|id| short_seen(c, app, id)),
        Refusal::Busy(rows, code) => {
            let code = code
                .as_ref()
                .map(|c| format!(" {}", c.tag()))
                .unwrap_or_default();
            format!("{}{code}: try again", each(rows, &|id| c.busy(id)))
        }
        Refusal::Error(code) => error(code),
        Refusal::TicketExists(_) | Refusal::HoldGone => words::refusal(r),
    }
}

/// An error that is worth trying again, as the application tells its user.
fn error(code: &SqlState) -> String {
    match code {
        SqlState::SerializationFailure => {
            format!(
                "someone else changed it at the same time {}: try again",
                code.tag()
            )
        }
        SqlState::DeadlockDetected | SqlState::LockDeadlock => {
            format!("two requests blocked each other {}: try again", code.tag())
        }
        other => other.phone_words(),
    }
}

/// What no counter's program says (a payment, a release): the seat's words, never reached.
fn seat_words(said: &Said) -> String {
    match said {
        Said::Paid => words::PAID_NO_SEAT.to_string(),
        Said::PaymentDeclined => words::DECLINED.to_string(),
        Said::RefundDue => words::REFUNDED.to_string(),
        Said::Released => words::RELEASED.to_string(),
        Said::NothingToRelease => words::NOTHING_TO_RELEASE.to_string(),
        Said::Looked { .. } | Said::Working(_) | Said::Refused(_) => String::new(),
    }
}
