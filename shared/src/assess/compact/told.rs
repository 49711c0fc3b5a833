//! `apply_event`, `refused` and `end_claims` on indices: what one completion tells its buyer,
//! and the claims that end when the committed rows change.

use super::{CompactBook, CompactEvent};
use crate::engine::Committed;
use crate::outcome::{Answer, StepResult};
use crate::schedule::{Op, SeatStatus};

/// `apply_event` on indices.
pub(super) fn apply_compact(
    book: &mut CompactBook,
    told: &mut [u128],
    e: CompactEvent,
    op: &Op,
    result: &StepResult,
    (before, after): (&Committed, &Committed),
) {
    let me = 1u128 << e.actor;
    let tell = |book: &mut CompactBook, told: &mut [u128], seats: u64| {
        if book.in_tx {
            book.pending |= seats;
        } else {
            book.redis_only &= !seats;
            for (s, t) in told.iter_mut().enumerate() {
                if seats & (1 << s) != 0 {
                    *t |= me;
                }
            }
        }
    };
    match (op, result) {
        (Op::Begin { .. }, StepResult::Ok { .. }) => {
            book.in_tx = true;
            book.pending = 0;
        }
        (Op::Commit, StepResult::Ok { .. }) => {
            book.in_tx = false;
            let seats = std::mem::take(&mut book.pending);
            tell(book, told, seats);
        }
        (Op::Commit | Op::Rollback, _) => {
            book.in_tx = false;
            let seats = std::mem::take(&mut book.pending);
            refused_compact(book, told, me, seats);
        }
        (Op::Claim { seats, .. } | Op::Write { seats, .. }, StepResult::Ok { rows: Some(n) })
            if *n as usize == seats.len() =>
        {
            book.current_hold = Some(e.hold);
            tell(book, told, e.seats);
        }
        (Op::Book { seats }, StepResult::Ok { rows: Some(n) }) if *n as usize == seats.len() => {
            tell(book, told, e.seats);
        }
        (Op::Claim { .. } | Op::Write { .. } | Op::Book { .. }, _) => {
            refused_compact(book, told, me, e.seats);
        }
        (
            Op::RedisHold { .. },
            StepResult::Answer {
                answer: Answer::Held,
            },
        ) => book.current_hold = Some(e.hold),
        (
            Op::Hold { .. },
            StepResult::Answer {
                answer: Answer::Held,
            },
        ) => {
            book.current_hold = Some(e.hold);
            tell(book, told, e.seats);
        }
        (Op::Confirm { .. }, StepResult::Answer { answer }) => {
            book.confirmed = true;
            if *answer == Answer::Issued
                && before.seats.iter().any(|r| {
                    r.status == SeatStatus::Held
                        && r.hold.is_some()
                        && r.hold == book.current_hold
                        && r.until.is_some_and(|u| u < after.clock)
                })
            {
                book.booked_late = true;
            }
            if matches!(answer, Answer::Issued | Answer::Duplicate) {
                let seats = after
                    .bookings
                    .iter()
                    .filter(|b| Some(b.2) == book.current_hold)
                    .fold(0, |m, b| m | 1 << b.0);
                tell(book, told, seats);
            } else if *answer == Answer::RefundDue {
                for (row, t) in after.seats.iter().zip(told.iter_mut()) {
                    if row.hold.is_some() && row.hold == book.current_hold {
                        *t &= !me;
                    }
                }
            }
        }
        (Op::Pay { outcome }, StepResult::Ok { .. }) => {
            let key = book.current_hold.unwrap_or(e.no_hold);
            if !book.payments.iter().any(|(k, _)| *k == key) {
                book.payments.push((key, *outcome));
            }
        }
        _ => {}
    }
}

/// `refused` on indices.
fn refused_compact(book: &mut CompactBook, told: &mut [u128], me: u128, seats: u64) {
    let ended = book.redis_only & seats;
    if ended != 0 {
        book.redis_only &= !ended;
        for (s, t) in told.iter_mut().enumerate() {
            if ended & (1 << s) != 0 {
                *t &= !me;
            }
        }
    }
}

/// `end_claims` on indices.
pub(super) fn end_claims_compact(told: &mut [u128], before: &Committed, after: &Committed) {
    for ((old, new), t) in before.seats.iter().zip(&after.seats).zip(told.iter_mut()) {
        let Some(holder) = old.holder else { continue };
        if new.holder == Some(holder) {
            continue;
        }
        let expired = old.status == SeatStatus::Held && old.until.is_some_and(|u| u < after.clock);
        if new.status == SeatStatus::Available || expired {
            *t &= !(1u128 << holder);
        }
    }
}
