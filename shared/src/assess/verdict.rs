//! The verdicts over a whole run, from the seats at the end and each buyer's bookkeeping.

use std::collections::{BTreeMap, BTreeSet};

use super::redis::RedisKeys;
use super::told::ActorBook;
use crate::outcome::{SeatOutcome, Tables, Verdict};
use crate::schedule::{Op, PayOutcome, Schedule, SeatStatus};

pub(super) fn verdict(
    schedule: &Schedule,
    books: &[ActorBook],
    seats: &BTreeMap<String, SeatOutcome>,
    tables: &Tables,
    keys: &RedisKeys,
) -> Verdict {
    let scenario = schedule.scenario();
    let double_booked = seats.iter().any(|(id, s)| {
        let capacity = scenario
            .seats
            .iter()
            .position(|r| r.id == *id)
            .map_or(1, |i| scenario.capacity(i));
        s.told.len() > capacity || s.tickets.len() >= 2
    });
    let lost_seat = seats
        .values()
        .any(|s| s.status == SeatStatus::Booked && s.told.is_empty())
        || abandoned_checkout(schedule, books, seats)
        || tables
            .seats
            .iter()
            .any(|r| r.status == SeatStatus::Held && r.until.is_none());
    let has_seat: BTreeSet<&String> = seats.values().flat_map(|s| s.told.iter()).collect();
    let refund_due = schedule
        .actors()
        .iter()
        .zip(books)
        .filter(|(actor, book)| {
            let pays = actor.program.iter().any(|op| matches!(op, Op::Pay { .. }));
            let paid = if pays {
                book.payments.values().any(|o| *o != PayOutcome::Declined)
            } else {
                book.confirmed
            };
            paid && !has_seat.contains(&actor.name)
        })
        .map(|(actor, _)| actor.name.clone())
        .collect();
    let mut unpaid_hold: BTreeSet<String> = tables
        .seats
        .iter()
        .filter(|r| r.status == SeatStatus::Held && r.until.is_some_and(|u| u >= tables.clock))
        .filter_map(|r| r.holder.clone())
        .collect();
    // A live Redis hold that nothing in the database stands behind is a hold too.
    unpaid_hold.extend(
        keys.iter()
            .filter(|(seat, (a, _, until))| {
                *until >= tables.clock && books[*a].redis_only.contains(*seat)
            })
            .map(|(_, (a, _, _))| schedule.actors()[*a].name.clone()),
    );
    let booked_late = schedule
        .actors()
        .iter()
        .zip(books)
        .filter(|(_, book)| book.booked_late)
        .map(|(actor, _)| actor.name.clone())
        .collect();
    Verdict {
        double_booked,
        lost_seat,
        refund_due,
        unpaid_hold: unpaid_hold.into_iter().collect(),
        booked_late,
    }
}

/// On a counter, a buyer who took a unit and whose payment was then declined walked away from
/// the checkout: nothing gives the unit back, so it is lost (a hold on a seat's own row would
/// have run out instead).
fn abandoned_checkout(
    schedule: &Schedule,
    books: &[ActorBook],
    seats: &BTreeMap<String, SeatOutcome>,
) -> bool {
    schedule.scenario().kind.is_counter()
        && schedule.actors().iter().zip(books).any(|(actor, book)| {
            let declined = book.payments.values().any(|o| *o == PayOutcome::Declined);
            declined && seats.values().any(|s| s.told.contains(&actor.name))
        })
}
