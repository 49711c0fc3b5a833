//! What a participant's phone says after a request: `shared::view::reply`'s words, the
//! simulator's phone's own, from the round's defence and hold, whether they hold their seats
//! now, and what PostgreSQL (or Redis) answered. A general-admission round's tap is worded here:
//! a ticket, sold out, or the error that refused it.

use shared::outcome::StepResult;
use shared::schedule::Shape;
use shared::sqlstate::SqlState;
use shared::view::{reply, Request};
use shared::Defence;

use crate::room::request::{Done, Kind};

/// What a phone that got a general-admission ticket says.
pub const GOT_A_TICKET: &str = "you got a ticket";
/// What a phone refused a general-admission ticket without an error says.
pub const SOLD_OUT: &str = "sold out: no ticket left for you";

/// What the phone says, in words.
pub(super) fn message(
    (defence, hold_seconds, played): (Defence, i32, Shape),
    kind: &Kind,
    holding: bool,
    done: &[Done],
) -> String {
    let results: Vec<StepResult> = done.iter().map(|d| d.result.clone()).collect();
    let request = match kind {
        Kind::Tap(_) if played.is_counter() => return ticket(holding, &results),
        Kind::Tap(seats) => Request::Tap {
            seats,
            defence,
            hold_seconds: hold_seconds.into(),
        },
        Kind::Pay => Request::Pay,
        Kind::Cancel => Request::Cancel,
    };
    reply(request, holding, &results)
}

/// A general-admission tap's answer: a ticket; or the error that refused it (the first of a
/// failed transaction: 25P02 only follows it), which a try again may get past; or sold out.
pub fn ticket(holding: bool, results: &[StepResult]) -> String {
    if holding {
        return GOT_A_TICKET.to_string();
    }
    let error = results
        .iter()
        .filter_map(StepResult::code)
        .find(|c| **c != SqlState::InFailedTransaction);
    match error {
        Some(c @ SqlState::LockNotAvailable) => {
            format!(
                "someone else was buying at that very moment {}: try again",
                c.tag()
            )
        }
        Some(c) => c.phone_words(),
        None => SOLD_OUT.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ticket_sold_out_and_a_refusal_are_worded_for_general_admission() {
        assert_eq!(ticket(true, &[]), "you got a ticket");
        let none = [StepResult::Ok { rows: Some(0) }];
        assert_eq!(ticket(false, &none), "sold out: no ticket left for you");
        let busy = [StepResult::Error {
            code: SqlState::LockNotAvailable,
            message: String::new(),
        }];
        assert!(
            ticket(false, &busy).contains("55P03"),
            "{}",
            ticket(false, &busy)
        );
        let serial = [
            StepResult::Error {
                code: SqlState::SerializationFailure,
                message: String::new(),
            },
            StepResult::Error {
                code: SqlState::InFailedTransaction,
                message: String::new(),
            },
        ];
        assert!(ticket(false, &serial).contains("40001"));
    }
}
