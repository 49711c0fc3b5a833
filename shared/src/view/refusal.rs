//! Why a buyer's application was refused, as it tells its user, and how an answer becomes a
//! refusal: one reading for the simulator's application (`app.rs`) and a live room's reply
//! (`reply.rs`), so both phones give the same answer the same words (`words.rs`).

use crate::outcome::Answer;
use crate::sqlstate::SqlState;

/// Why the application was refused, as it tells its user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The seats were taken (a read, a claim of no rows, a hold answered `unavailable`).
    SoldOut(Vec<String>),
    /// It remembered the seats as taken and did not send its write.
    RemembersTaken(Vec<String>),
    /// Locked right now: NOWAIT (55P03) or a hold answered `busy`.
    Busy(Vec<String>, Option<SqlState>),
    /// A ticket for the seat already exists (23505).
    TicketExists(Vec<String>),
    /// Any other error, by SQLSTATE (40001, 40P01…): worth trying again.
    Error(SqlState),
    /// A retried hold found its hold gone.
    HoldGone,
}

impl Refusal {
    /// The refusal of a statement of `seats` that failed with `code`, or `None` for 25P02:
    /// an earlier error failed the transaction, and that one is the reason.
    pub fn of_error(code: &SqlState, seats: &[String]) -> Option<Refusal> {
        Some(match code {
            code if code.is_busy() => Refusal::Busy(seats.to_vec(), Some(code.clone())),
            code if code.is_duplicate() => Refusal::TicketExists(seats.to_vec()),
            SqlState::InFailedTransaction => return None,
            other => Refusal::Error(other.clone()),
        })
    }

    /// The refusal of a hold of `seats` answered `answer`, or `None` for `held`.
    pub fn of_hold(answer: Answer, seats: &[String]) -> Option<Refusal> {
        Some(match answer {
            Answer::Held => return None,
            Answer::Busy => Refusal::Busy(seats.to_vec(), None),
            Answer::Expired => Refusal::HoldGone,
            _ => Refusal::SoldOut(seats.to_vec()),
        })
    }
}
