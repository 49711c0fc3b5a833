//! What a participant's phone says after a request, in words: from the defence, whether they
//! hold their seats now, and what PostgreSQL (or Redis) answered.

use shared::outcome::{Answer, StepResult};

use crate::room::request::{Done, Kind};
use crate::room::store::Room;

/// What the phone says, in words.
pub(super) fn message(room: &Room, kind: &Kind, holding: bool, done: &[Done]) -> String {
    let last = done
        .iter()
        .rev()
        .find(|d| d.result != StepResult::Skipped)
        .map(|d| &d.result);
    let code = |c: &str| {
        matches!(last, Some(StepResult::Error { code, .. }) if code == c)
            || done
                .iter()
                .any(|d| matches!(&d.result, StepResult::Error { code, .. } if code == c))
    };
    let hold = room.settings.hold_seconds;
    match kind {
        Kind::Tap(seats) => {
            let seats = seats.join(", ");
            if holding {
                if room.settings.defence.pays() {
                    format!("you hold {seats}: {hold} s left, pay now")
                } else if matches!(room.settings.defence.id(), "atomic_update" | "lock_nowait") {
                    format!("you hold {seats} for {hold} s")
                } else {
                    format!("{seats} is yours")
                }
            } else if code("55P03")
                || matches!(
                    last,
                    Some(StepResult::Answer {
                        answer: Answer::Busy
                    })
                )
            {
                "those seats are busy, pick again".to_string()
            } else if code("23505") {
                format!("someone else got {seats} first: the unique key refused your ticket")
            } else if code("40001") || code("40P01") {
                "PostgreSQL cancelled your transaction to keep the race fair: tap again".to_string()
            } else {
                format!("{seats} is taken: pick another seat")
            }
        }
        Kind::Pay => match last {
            Some(StepResult::Answer {
                answer: Answer::Issued,
            }) => "paid: your ticket is issued".to_string(),
            Some(StepResult::Answer {
                answer: Answer::Duplicate,
            }) => "paid: your ticket is issued (the payment arrived twice; it counted once)"
                .to_string(),
            Some(StepResult::Answer {
                answer: Answer::RefundDue,
            }) => "paid too late: refund on its way".to_string(),
            _ if code("23505") && holding => {
                "paid: your ticket is issued (a second delivery was refused by the unique key)"
                    .to_string()
            }
            _ if code("23505") => {
                "paid, but the seat was sold to someone else: refund on its way".to_string()
            }
            _ if holding => "paid: your ticket is issued".to_string(),
            _ => "your hold was gone before the payment landed".to_string(),
        },
        Kind::Cancel => match last {
            Some(StepResult::Answer {
                answer: Answer::Released,
            }) => "released: the seat is free again".to_string(),
            Some(StepResult::Skipped) | None => "you hold nothing to cancel".to_string(),
            _ => "your hold had already run out".to_string(),
        },
    }
}
