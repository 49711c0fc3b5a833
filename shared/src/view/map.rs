//! The seat map: every seat as stored at a step, its tickets, who was told it is theirs, and
//! its live Redis key.

use super::{tables_at, told_at};
use crate::outcome::SeatRow;
use crate::schedule::{Op, Schedule, SeatStatus};
use crate::Outcome;

/// A seat as the map draws it once the first `step` entries have run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapSeat {
    pub id: String,
    pub status: SeatStatus,
    pub holder: Option<String>,
    /// Minutes left on the hold, on the virtual clock (0 once it has run out).
    pub minutes_left: Option<i64>,
    /// Tickets stored for this seat.
    pub tickets: Vec<String>,
    /// Buyers told that the seat is theirs.
    pub told: Vec<String>,
    /// The seat's live Redis key: whose hold it stores and the minutes it has left.
    pub redis: Option<(String, i64)>,
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

/// Every seat of the scenario, as stored once the first `step` entries have run, with its
/// live Redis key if it has one.
pub fn map_at(schedule: &Schedule, outcome: &Outcome, step: usize) -> Vec<MapSeat> {
    let tables = tables_at(outcome, step);
    let told = told_at(outcome, step);
    let redis = redis_at(schedule, outcome, step);
    tables
        .seats
        .iter()
        .map(|row: &SeatRow| MapSeat {
            id: row.id.clone(),
            status: row.status,
            holder: row.holder.clone(),
            minutes_left: row.until.map(|until| (until - tables.clock).max(0)),
            tickets: tables
                .bookings
                .iter()
                .filter(|b| b.seat == row.id)
                .map(|b| b.holder.clone())
                .collect(),
            told: told.get(&row.id).cloned().unwrap_or_default(),
            redis: redis
                .iter()
                .find(|k| k.seat == row.id && !k.gone)
                .map(|k| (k.holder.clone(), k.until - tables.clock)),
        })
        .collect()
}
