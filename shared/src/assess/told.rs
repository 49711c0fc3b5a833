//! Who was told they got which seat: each completion's effect on its buyer's bookkeeping and
//! on the claims, and the claims that end legitimately (released, swept, or taken by someone
//! else after the hold ran out).

use std::collections::{BTreeMap, BTreeSet};

use crate::outcome::{Answer, SeatOutcome, StepResult, Tables};
use crate::schedule::{Op, PayOutcome, SeatStatus};
use crate::sql;

/// seat → the actors told they got it.
pub(super) type Told = BTreeMap<String, BTreeSet<String>>;

/// Per-actor bookkeeping while replaying the events of a trace.
#[derive(Default)]
pub(super) struct ActorBook {
    pub(super) in_tx: bool,
    /// Seats its open transaction would tell it it got, at commit.
    pub(super) pending: Vec<String>,
    pub(super) current_hold: Option<String>,
    /// Payment decisions by idempotency key: a retry gets the first one.
    pub(super) payments: BTreeMap<String, PayOutcome>,
    pub(super) confirmed: bool,
    /// Seats it was told it got by a Redis hold alone, with nothing in the database behind
    /// the claim (yet): the claim ends when another buyer's SET NX takes the key (it had run
    /// out), when it deletes its key, or when the database refuses it the seat.
    pub(super) redis_only: BTreeSet<String>,
    /// A confirm issued its ticket after its hold's deadline had passed (the check read the
    /// clock when its transaction or statement began, before it waited).
    pub(super) booked_late: bool,
}

/// The database refused `actor` the `seats` it tried to take: its application tells it so,
/// and its Redis-only claims on them end.
pub(super) fn refused(book: &mut ActorBook, told: &mut Told, actor: &str, seats: &[String]) {
    for seat in seats {
        if book.redis_only.remove(seat) {
            if let Some(t) = told.get_mut(seat) {
                t.remove(actor);
            }
        }
    }
}

pub(super) fn apply_event(
    book: &mut ActorBook,
    told: &mut Told,
    actor: &str,
    op: &Op,
    result: &StepResult,
    hold: String,
    (before, after): (&Tables, &Tables),
) {
    let tell = |book: &mut ActorBook, told: &mut Told, seats: Vec<String>| {
        if book.in_tx {
            book.pending.extend(seats);
        } else {
            for seat in seats {
                book.redis_only.remove(&seat);
                told.entry(seat).or_default().insert(actor.to_string());
            }
        }
    };
    match (op, result) {
        (Op::Begin { .. }, StepResult::Ok { .. }) => {
            book.in_tx = true;
            book.pending.clear();
        }
        (Op::Commit, StepResult::Ok { .. }) => {
            book.in_tx = false;
            let seats = std::mem::take(&mut book.pending);
            tell(book, told, seats);
        }
        (Op::Commit | Op::Rollback, _) => {
            book.in_tx = false;
            let seats = std::mem::take(&mut book.pending);
            refused(book, told, actor, &seats);
        }
        (Op::Claim { seats, .. } | Op::Write { seats, .. }, StepResult::Ok { rows: Some(n) })
            if *n as usize == seats.len() =>
        {
            book.current_hold = Some(hold);
            tell(book, told, seats.clone());
        }
        (Op::Book { seats }, StepResult::Ok { rows: Some(n) }) if *n as usize == seats.len() => {
            tell(book, told, seats.clone());
        }
        (Op::Claim { seats, .. } | Op::Write { seats, .. } | Op::Book { seats }, _) => {
            refused(book, told, actor, seats);
        }
        (
            Op::Hold { seats, .. },
            StepResult::Answer {
                answer: Answer::Held,
            },
        ) => {
            book.current_hold = Some(hold);
            tell(book, told, seats.clone());
        }
        (
            Op::RedisHold { .. },
            StepResult::Answer {
                answer: Answer::Held,
            },
        ) => book.current_hold = Some(hold),
        (Op::Confirm { .. }, StepResult::Answer { answer }) => {
            book.confirmed = true;
            if *answer == Answer::Issued && decided_late(before, after, &book.current_hold) {
                book.booked_late = true;
            }
            if matches!(answer, Answer::Issued | Answer::Duplicate) {
                let current = book.current_hold.clone();
                let seats: Vec<String> = after
                    .bookings
                    .iter()
                    .filter(|b| Some(&b.booking_id) == current.as_ref())
                    .map(|b| b.seat.clone())
                    .collect();
                tell(book, told, seats);
            } else if *answer == Answer::RefundDue {
                // The buyer is told the hold is gone: its claim on the hold's seats ends here.
                for row in after
                    .seats
                    .iter()
                    .filter(|r| r.hold_id.is_some() && r.hold_id == book.current_hold)
                {
                    if let Some(actors) = told.get_mut(&row.id) {
                        actors.remove(actor);
                    }
                }
            }
        }
        (Op::Pay { outcome }, StepResult::Ok { .. }) => {
            let key = book
                .current_hold
                .clone()
                .unwrap_or_else(|| sql::no_hold(actor));
            book.payments.entry(key).or_insert(*outcome);
        }
        _ => {}
    }
}

/// Ends the claims that ended legitimately during one entry: a seat made AVAILABLE (released
/// or swept), or taken by someone else after its holder's hold had run out. A claim that was
/// overwritten while still valid stays counted: that is the double booking.
pub(super) fn end_claims(told: &mut Told, before: &Tables, after: &Tables) {
    for (old, new) in before.seats.iter().zip(&after.seats) {
        let Some(holder) = &old.holder else { continue };
        if new.holder.as_ref() == Some(holder) {
            continue;
        }
        let expired = old.status == SeatStatus::Held && old.until.is_some_and(|u| u < after.clock);
        if new.status == SeatStatus::Available || expired {
            if let Some(actors) = told.get_mut(&old.id) {
                actors.remove(holder);
            }
        }
    }
}

pub(super) fn seat_outcomes(tables: &Tables, told: &Told) -> BTreeMap<String, SeatOutcome> {
    tables
        .seats
        .iter()
        .map(|row| {
            let outcome = SeatOutcome {
                status: row.status,
                holder: row.holder.clone(),
                told: told
                    .get(&row.id)
                    .map(|a| a.iter().cloned().collect())
                    .unwrap_or_default(),
                tickets: tables
                    .bookings
                    .iter()
                    .filter(|b| b.seat == row.id)
                    .map(|b| b.holder.clone())
                    .collect(),
                value: row.value,
            };
            (row.id.clone(), outcome)
        })
        .collect()
}

/// A confirm of the hold `current` that answered `issued` during an entry decided after the
/// deadline: the hold's rows, as committed before the entry, had run out by the clock after it.
fn decided_late(before: &Tables, after: &Tables, current: &Option<String>) -> bool {
    before.seats.iter().any(|r| {
        r.status == SeatStatus::Held
            && r.hold_id.is_some()
            && r.hold_id == *current
            && r.until.is_some_and(|u| u < after.clock)
    })
}
