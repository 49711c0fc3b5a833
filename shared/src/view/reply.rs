//! A live room's phone after a tap, a payment or a cancel: the server's reply in the phone's
//! words (`words.rs`, the simulator's phone's own), from plain values: what was asked, whether
//! the participant holds (or owns) their seats after it, and what PostgreSQL or Redis answered
//! each operation. A refusal is found as the simulator's application finds it (`Refusal`), so
//! the same answer reads the same on both phones.

use super::refusal::Refusal;
use super::words;
use crate::defences::Defence;
use crate::outcome::{Answer, StepResult};
use crate::schedule::{Op, SeatStatus};
use crate::sqlstate::SqlState;

/// What a participant asked for.
#[derive(Clone, Copy, Debug)]
pub enum Request<'a> {
    /// A tap on `seats`: the round's defence up to its payment, whose holds last
    /// `hold_seconds`.
    Tap {
        seats: &'a [String],
        defence: Defence,
        hold_seconds: i64,
    },
    /// The rest of the defence's program: the payment, then the confirm or the booking.
    Pay,
    /// A release of the hold.
    Cancel,
}

/// What the phone says after `request`: `holding`, whether the participant holds or owns its
/// seats now; `results`, each operation's result in the order they ran.
pub fn reply(request: Request, holding: bool, results: &[StepResult]) -> String {
    let last = results.iter().rev().find(|r| **r != StepResult::Skipped);
    let answered = |answer: Answer| last == Some(&StepResult::Answer { answer });
    let unique_key_refused = results
        .iter()
        .any(|r| r.code().is_some_and(SqlState::is_duplicate));
    match request {
        Request::Tap {
            seats,
            defence,
            hold_seconds,
        } if holding => {
            if tap_holds(defence) {
                let next = defence.pays().then_some(words::PAY_NOW);
                words::held(seats, &format!(" for {hold_seconds} s"), next)
            } else {
                words::booked(seats)
            }
        }
        Request::Tap { seats, .. } => words::refusal(&refusal(seats, results)),
        Request::Pay if answered(Answer::Issued) => words::TICKET_ISSUED.to_string(),
        Request::Pay if answered(Answer::Duplicate) => words::PAID_TWICE_COUNTED_ONCE.to_string(),
        Request::Pay if answered(Answer::RefundDue) => words::REFUNDED.to_string(),
        Request::Pay if unique_key_refused && holding => words::PAID_TWICE_REFUSED.to_string(),
        Request::Pay if unique_key_refused => words::paid_but_sold(),
        Request::Pay if holding => words::TICKET_ISSUED.to_string(),
        Request::Pay => words::HOLD_GONE_BEFORE_PAYMENT.to_string(),
        Request::Cancel if answered(Answer::Released) => words::RELEASED.to_string(),
        Request::Cancel if last.is_none() => words::NOTHING_TO_CANCEL.to_string(),
        Request::Cancel => words::NOTHING_TO_RELEASE.to_string(),
    }
}

/// Why a tap of `seats` left the participant with none, as the simulator's application says
/// it: the last refusal among the results (in a failed transaction the first error, as 25P02
/// follows it; a write not sent or that took no row, the seats taken), or the seats taken.
fn refusal(seats: &[String], results: &[StepResult]) -> Refusal {
    let taken = || Refusal::SoldOut(seats.to_vec());
    results
        .iter()
        .rev()
        .find_map(|r| match r {
            StepResult::Error { code, .. } => Refusal::of_error(code, seats),
            StepResult::Answer {
                answer: answer @ (Answer::Busy | Answer::Expired | Answer::Unavailable),
            } => Refusal::of_hold(*answer, seats),
            StepResult::Skipped | StepResult::Ok { rows: Some(0) } => Some(taken()),
            _ => None,
        })
        .unwrap_or_else(taken)
}

/// Whether a tap under `defence` leaves its seats held, with a deadline, rather than booked.
fn tap_holds(defence: Defence) -> bool {
    let (ops, _) = defence.program(&["A1".to_string()]);
    ops.iter()
        .take_while(|op| !matches!(op, Op::Pay { .. }))
        .any(|op| {
            matches!(
                op,
                Op::Hold { .. }
                    | Op::RedisHold { .. }
                    | Op::Claim { .. }
                    | Op::Write {
                        status: SeatStatus::Held,
                        ..
                    }
            )
        })
}

// A live room's phones race for seats, whose words chapter 6's bundle leaves out.
#[cfg(all(test, feature = "seats"))]
mod tests;
