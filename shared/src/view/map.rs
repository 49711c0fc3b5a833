//! The seat map: every seat as stored at a step, its tickets, who was told it is theirs, what
//! the open transactions hold (the row lock, who waits for it, an uncommitted write or ticket)
//! and its live Redis key.

mod words;

use serde::Serialize;

use super::{tables_at, told_at};
use crate::outcome::{PendingWrite, SeatLock, SeatRow};
use crate::schedule::{ClockUnit, Op, Schedule, SeatStatus};
use crate::Outcome;

pub use words::SeatState;

/// A seat as the map draws it once the first `step` entries have run. Serialised for the
/// browser tests, which compare the page's seats with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MapSeat {
    pub id: String,
    /// What the seat is: its row's status, except that a seat with a ticket is sold (BOOKED)
    /// whatever its row says (the unique-constraint defences never update the row).
    pub status: SeatStatus,
    /// The seat row's own status.
    pub stored: SeatStatus,
    /// Whose it is: the row's holder, or for a seat sold without updating its row, the first
    /// ticket's.
    pub holder: Option<String>,
    /// Ticks left on the hold, on the virtual clock (0 once it has run out): minutes, or the
    /// schedule's `clock_unit`, whatever the field's name says.
    pub minutes_left: Option<i64>,
    /// Tickets stored for this seat.
    pub tickets: Vec<String>,
    /// Buyers told that the seat is theirs.
    pub told: Vec<String>,
    /// The seat's live Redis key: whose hold it stores and the ticks of the clock it has left.
    pub redis: Option<(String, i64)>,
    /// The buyer whose open transaction holds the seat's row lock.
    pub lock: Option<String>,
    /// The buyers whose statement waits for this seat, first in line first.
    pub queue: Vec<String>,
    /// The row as an open transaction updated it, which nobody else sees until it commits.
    pub pending: Option<PendingWrite>,
    /// The buyer whose open transaction inserted a ticket for this seat, not yet committed.
    pub pending_ticket: Option<String>,
    /// The unit of the schedule's clock, in which the seat's words count the time left.
    #[serde(skip_serializing_if = "ClockUnit::is_minute")]
    pub clock_unit: ClockUnit,
}

impl MapSeat {
    /// Sold to more than one person: two tickets, or two buyers told it is theirs.
    pub fn double(&self) -> bool {
        self.tickets.len() > 1 || self.told.len() > 1
    }
}

/// A key of the simulated Redis once the first `step` entries have run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RedisRow {
    pub key: String,
    pub seat: String,
    pub holder: String,
    pub hold_id: String,
    pub until: i64,
    /// Its time ran out: Redis no longer has it.
    pub gone: bool,
}

/// The simulated Redis at the playhead, one row per seat that ever had a key (none for a
/// schedule without Redis steps).
pub fn redis_at(schedule: &Schedule, outcome: &Outcome, step: usize) -> Vec<RedisRow> {
    if !schedule.any_op(Op::is_redis) {
        return Vec::new();
    }
    let clock = tables_at(outcome, step).clock;
    crate::export::clients_at(schedule, outcome, step)
        .redis
        .into_iter()
        .map(|(seat, key)| RedisRow {
            key: crate::sql::redis_key(schedule.scenario().show, &seat),
            holder: schedule.actors()[key.actor].name.clone(),
            gone: !key.alive(clock),
            hold_id: key.hold_id,
            until: key.until,
            seat,
        })
        .collect()
}

/// Every seat of the scenario, as stored once the first `step` entries have run, with what the
/// open transactions hold on it (the simulator's trace says; a real run's does not) and its
/// live Redis key if it has one.
pub fn map_at(schedule: &Schedule, outcome: &Outcome, step: usize) -> Vec<MapSeat> {
    let tables = tables_at(outcome, step);
    let told = told_at(outcome, step);
    let redis = redis_at(schedule, outcome, step);
    let locks: &[SeatLock] = match step {
        0 => &[],
        n => {
            &outcome.entries[n.min(outcome.entries.len()) - 1]
                .trace
                .locks
        }
    };
    tables
        .seats
        .iter()
        .map(|row: &SeatRow| {
            let tickets: Vec<String> = tables
                .bookings
                .iter()
                .filter(|b| b.seat == row.id)
                .map(|b| b.holder.clone())
                .collect();
            let sold_by_ticket = row.status != SeatStatus::Booked && !tickets.is_empty();
            let live = locks.iter().find(|l| l.seat == row.id);
            MapSeat {
                id: row.id.clone(),
                status: if sold_by_ticket {
                    SeatStatus::Booked
                } else {
                    row.status
                },
                stored: row.status,
                holder: if sold_by_ticket {
                    tickets.first().cloned()
                } else {
                    row.holder.clone()
                },
                minutes_left: row
                    .until
                    .filter(|_| !sold_by_ticket)
                    .map(|until| (until - tables.clock).max(0)),
                tickets,
                told: told.get(&row.id).cloned().unwrap_or_default(),
                redis: redis
                    .iter()
                    .find(|k| k.seat == row.id && !k.gone)
                    .map(|k| (k.holder.clone(), k.until - tables.clock)),
                lock: live.and_then(|l| l.holder.clone()),
                queue: live.map(|l| l.queue.clone()).unwrap_or_default(),
                pending: live.and_then(|l| l.write.clone()),
                pending_ticket: live.and_then(|l| l.ticket.clone()),
                clock_unit: schedule.scenario().clock_unit,
            }
        })
        .collect()
}
