//! The phone's words: every sentence a buyer's phone says about its seats, a refusal, a payment
//! or a release, whether it is the simulator's phone (`phone.rs`, from what the application
//! knows at a step) or a live room's (`reply.rs`, from the answer to one request), so that the
//! same answer reads the same on both. Each starts in lowercase; a surface that starts a line
//! with one capitalises it. A code is worded by `SqlState`.

use super::refusal::Refusal;
use crate::engine::join;
use crate::sqlstate::SqlState;

/// What a phone says while its holder has a seat to pay for.
pub const PAY_NOW: &str = "pay now";
/// What a phone says once it paid for a hold and waits for the ticket.
pub const PAID_WAITING: &str = "paid, waiting for the ticket";
/// A confirm too late for its hold (`refund_due`).
pub const REFUNDED: &str =
    "too late for a ticket: your hold had ended, so your money is being refunded";
/// A release that released the hold.
pub const RELEASED: &str = "you let the seat go";
/// A release that found no hold to release.
pub const NOTHING_TO_RELEASE: &str = "your hold had already ended: nothing to let go";
/// Paid, and the hold was gone: nothing was booked.
pub const PAID_NO_SEAT: &str = "paid, but you hold no seat";
/// A payment the provider declined.
pub const DECLINED: &str = "your payment was declined";
/// Before the buyer's first step.
pub const CHOOSING: &str = "choosing a seat";
/// A seat the buyer had at the start and no longer has.
pub const SEAT_GONE: &str = "your seat is gone";
/// A read that returned nothing.
pub const NOTHING_TO_SHOW: &str = "nothing to show";
/// A payment or confirm not sent for want of a seat, after whatever the phone says.
pub const SO_NO_PAYMENT: &str = ", so no payment";
/// A live payment that booked the seat (the answer names no seat: the ticket is the news).
pub const TICKET_ISSUED: &str = "paid: your ticket is issued";
/// A live cancel with no hold to cancel: nothing was sent.
pub const NOTHING_TO_CANCEL: &str = "you hold nothing to cancel";
/// A live payment that arrived after the hold was gone, and booked nothing.
pub const HOLD_GONE_BEFORE_PAYMENT: &str = "your hold was gone before the payment landed";

/// "A7 is", "A7 and A8 are".
fn are(seats: &[String]) -> String {
    let verb = if seats.len() > 1 { "are" } else { "is" };
    format!("{} {verb}", join(seats))
}

/// Booked seats: "booked: A7 is yours".
pub fn booked(seats: &[String]) -> String {
    format!("booked: {} yours", are(seats))
}

/// Held seats: "A7 is held for you until 0:10: pay now"; `deadline` says how long, as the
/// surface knows it (" until 0:10", " for 60 s"), `next` what to do, if anything.
pub fn held(seats: &[String], deadline: &str, next: Option<&str>) -> String {
    let next = next.map(|n| format!(": {n}")).unwrap_or_default();
    format!("{} held for you{deadline}{next}", are(seats))
}

/// A read that saw its seats free: "A7 looks free".
pub fn looks_free(seats: &[String]) -> String {
    let verb = if seats.len() > 1 { "look" } else { "looks" };
    format!("{} {verb} free", join(seats))
}

/// A transaction under way: "booking A7…", or "booking…" before it took a seat.
pub fn booking(seats: &[String]) -> String {
    if seats.is_empty() {
        "booking…".to_string()
    } else {
        format!("booking {}…", join(seats))
    }
}

/// A statement waiting for other buyers' locks: "working… waiting for Adam".
pub fn waiting(on: &[String]) -> String {
    format!("working… waiting for {}", join(on))
}

/// A hold that ran out: "your hold on A7 ran out at 0:10, after you paid".
pub fn ran_out(seats: &[String], at: &str, paid: bool) -> String {
    let paid = if paid { ", after you paid" } else { "" };
    format!("your hold on {} ran out at {at}{paid}", join(seats))
}

/// A refusal the buyer met after the seats it has: " (asked again: …)".
pub fn asked_again(r: &Refusal) -> String {
    format!(" (asked again: {})", refusal(r))
}

/// A refusal, as the phone words it.
pub fn refusal(r: &Refusal) -> String {
    match r {
        Refusal::SoldOut(seats) | Refusal::RemembersTaken(seats) => {
            format!("{} already taken", are(seats))
        }
        Refusal::Busy(seats, code) => {
            let code = code
                .as_ref()
                .map(|c| format!(" {}", c.tag()))
                .unwrap_or_default();
            let those = if seats.len() > 1 {
                "those seats are"
            } else {
                "that seat is"
            };
            format!("{those} busy right now{code}: pick again")
        }
        Refusal::TicketExists(seats) => format!(
            "{} already {} a ticket {}",
            join(seats),
            if seats.len() > 1 { "have" } else { "has" },
            SqlState::UniqueViolation.tag()
        ),
        Refusal::Error(code) => code.phone_words(),
        Refusal::HoldGone => "your hold is gone: pick a seat again".to_string(),
    }
}

/// A live payment whose booking the unique key refused: paid, and the seat is someone else's.
pub fn paid_but_sold() -> String {
    format!(
        "paid, but the seat already has a ticket {}: your money is being refunded",
        SqlState::UniqueViolation.tag()
    )
}

/// A live payment that booked, whose second delivery the unique key refused.
pub const PAID_TWICE_REFUSED: &str =
    "paid: your ticket is issued (a second delivery was refused by the unique key)";

/// A live payment delivered twice and counted once (`duplicate`).
pub const PAID_TWICE_COUNTED_ONCE: &str =
    "paid: your ticket is issued (the payment arrived twice; it counted once)";
