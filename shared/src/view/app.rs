//! What one buyer's application knows at a step, read from its own answers only: how it got
//! each seat it was told is its own (a booking, or a hold and its deadline), the last thing it
//! was told that matters (a refusal and why, a payment, a release), and what its open
//! transaction has done so far. The phone renders this; the model's `told` says which seats.
//! `apply` takes in one answer.

mod apply;

use std::collections::BTreeMap;

use super::entry_state;
use super::refusal::Refusal;
use super::EntryState;
use crate::outcome::Outcome;
use crate::schedule::{Schedule, SeatStatus};

/// How the application got a seat it was told is its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Got {
    /// Booked: a ticket, or a row written BOOKED.
    Booked,
    /// Held, until this minute on the virtual clock when it is known.
    Held(Option<i64>),
}

/// The last thing the application told its user that is not "this seat is yours".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Said {
    /// A read or lock: the seats that looked free and those that looked taken.
    Looked {
        free: Vec<String>,
        taken: Vec<String>,
    },
    Refused(Refusal),
    /// It began a transaction, or took seats inside one that has not committed yet.
    Working(Vec<String>),
    Paid,
    PaymentDeclined,
    /// The confirm came too late: a refund is owed.
    RefundDue,
    Released,
    NothingToRelease,
}

/// One buyer's application at a step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct App {
    /// How it got each seat it was ever told is its own (the model's `told` says which still
    /// count).
    pub got: BTreeMap<String, Got>,
    pub said: Option<Said>,
    /// It paid for its current hold.
    pub paid: bool,
    /// It skipped a payment or confirm because it held no seat.
    pub skipped_for_no_seat: bool,
    /// Its last operation was sent and waits for these actors.
    pub waiting: Option<Vec<String>>,
    /// The rows its last read or lock returned (a counter's with their values).
    pub seen: Vec<crate::outcome::SeenRow>,
}

/// Replays `actor`'s own answers among the first `step` entries.
pub fn app_at(schedule: &Schedule, outcome: &Outcome, actor: &str, step: usize) -> App {
    let step = step.min(outcome.entries.len());
    let mut app = App::default();
    for row in &outcome.initial.seats {
        if row.holder.as_deref() == Some(actor) {
            let got = match row.status {
                SeatStatus::Booked => Got::Booked,
                _ => Got::Held(row.until),
            };
            app.got.insert(row.id.clone(), got);
        }
    }
    let Some(a) = schedule.actor_index(actor) else {
        return app;
    };
    let mut tx: Option<Tx> = None;
    for (j, e) in outcome.entries[..step].iter().enumerate() {
        if e.trace.actor != actor {
            continue;
        }
        if let EntryState::Waiting(on) = entry_state(e, j, step) {
            app.waiting = Some(on);
            break;
        }
        let Some(result) = e.trace.result.as_ref() else {
            continue;
        };
        let after = &outcome.entries[e.trace.completed_after.unwrap_or(j)]
            .trace
            .tables;
        let condition = schedule.actors()[a].condition(e.trace.op_index);
        let hold_minutes = schedule.scenario().hold_minutes;
        app.apply(
            &mut tx,
            &e.op,
            result,
            condition,
            &e.trace.seen,
            after,
            actor,
            hold_minutes,
        );
    }
    app
}

/// An open transaction: the seats it took (told at commit), and the error that failed it.
#[derive(Default)]
struct Tx {
    took: Vec<(String, Got)>,
    failed: Option<Refusal>,
}
