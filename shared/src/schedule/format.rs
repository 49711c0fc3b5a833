//! The shapes of a schedule file (format version 1) as written: the file, its scenario and
//! seats, a program given by its defence, the expectations. `decode` reads them, with errors
//! that name the field; serde writes them back.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::shape::is_one;
use super::{ClockUnit, Database, Shape};

/// A schedule file as written (format version 1). Read it with `Schedule::parse_json`, or
/// with serde (`decode` gives it its own `Deserialize`, with the same errors).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScheduleFile {
    pub version: u32,
    pub name: String,
    /// The database it races on: PostgreSQL unless the file says `"engine": "innodb"`.
    #[serde(default, skip_serializing_if = "Database::is_postgresql")]
    pub engine: Database,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub scenario: Scenario,
    pub actors: BTreeMap<String, ProgramSpec>,
    /// Empty: the file gives no order, and `Schedule::parse` fills in the default one.
    pub order: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
}

/// The initial state: one show, its seats, the hold length, the clock's start and its unit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scenario {
    /// 501 unless the file says otherwise.
    pub show: i64,
    /// 10 unless the file says otherwise; in the clock's unit, whatever the key's name says.
    pub hold_minutes: i64,
    pub clock: i64,
    /// What one tick of the clock stands for: minutes unless the file says otherwise (a live
    /// round's replay counts seconds). Written only when it is not minutes.
    #[serde(default, skip_serializing_if = "ClockUnit::is_minute")]
    pub clock_unit: ClockUnit,
    /// What the rows are: numbered seats unless the file says otherwise (`shape.rs`).
    #[serde(default, skip_serializing_if = "Shape::is_seats")]
    pub kind: Shape,
    /// What one request takes from a counter row: 1 unless the file says otherwise.
    #[serde(skip_serializing_if = "is_one")]
    pub take: i64,
    pub seats: Vec<SeatSpec>,
}

impl Scenario {
    /// On a counter's rows, what one request takes; `None` on seats.
    pub fn counter_take(&self) -> Option<i64> {
        self.kind.is_counter().then_some(self.take)
    }

    /// How many buyers the row at `index` (of `seats`) can serve: one a seat, and on a counter
    /// as many requests as its starting value covers. Telling more that they got it is the
    /// double booking (the oversold section, the overdrawn account, the 11th call, the coupon
    /// spent twice).
    pub fn capacity(&self, index: usize) -> usize {
        if self.kind.is_username() {
            // One account may have a free name; none may have a taken one.
            return self
                .seats
                .get(index)
                .map_or(1, |row| 1 - row.value.unwrap_or(0).clamp(0, 1) as usize);
        }
        match (self.kind.is_counter(), self.seats.get(index)) {
            (true, Some(row)) => (row.value.unwrap_or(0) / self.take.max(1)).max(0) as usize,
            _ => 1,
        }
    }
}

/// A seat at the start of the scenario, or a counter's row with its value (written without
/// a seat's status, which it does not have).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatSpec {
    pub id: String,
    pub status: SeatStatus,
    pub holder: Option<String>,
    pub until: Option<i64>,
    /// A counter's value (`Shape`); `None` for a seat.
    pub value: Option<i64>,
}

impl Serialize for SeatSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("id", &self.id)?;
        match self.value {
            Some(value) => m.serialize_entry("value", &value)?,
            None => m.serialize_entry("status", &self.status)?,
        }
        if let Some(holder) = &self.holder {
            m.serialize_entry("holder", holder)?;
        }
        if let Some(until) = &self.until {
            m.serialize_entry("until", until)?;
        }
        m.end()
    }
}

/// The stored status of a seat row.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "UPPERCASE")]
pub enum SeatStatus {
    #[default]
    Available,
    Held,
    Booked,
}

impl SeatStatus {
    pub fn as_sql(self) -> &'static str {
        match self {
            SeatStatus::Available => "AVAILABLE",
            SeatStatus::Held => "HELD",
            SeatStatus::Booked => "BOOKED",
        }
    }

    pub fn from_sql(s: &str) -> Option<SeatStatus> {
        match s {
            "AVAILABLE" => Some(SeatStatus::Available),
            "HELD" => Some(SeatStatus::Held),
            "BOOKED" => Some(SeatStatus::Booked),
            _ => None,
        }
    }
}

/// An actor's program: a list of operations (each kept as written, and read by
/// `Schedule::parse`), or a defence by name.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ProgramSpec {
    Ops(Vec<serde_json::Value>),
    Defence {
        defence: String,
        /// The scenario's first seat when `None`.
        #[serde(skip_serializing_if = "Option::is_none")]
        seats: Option<Vec<String>>,
    },
}

/// What a schedule says must come out; keys it does not give are not checked.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Expect {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub double_booked: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lost_seat: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refund_due: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unpaid_hold: Option<Vec<String>>,
    /// The buyers whose ticket was issued after their hold's deadline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub booked_late: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub told: Option<BTreeMap<String, Vec<String>>>,
    #[serde(rename = "final", skip_serializing_if = "Option::is_none")]
    pub final_seats: Option<BTreeMap<String, FinalSeat>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<String>>,
}

/// A seat's stored state at the end, as `expect.final` states it: its status and holder, or
/// on a counter (and a username) its value alone (`{"value": -50}`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinalSeat {
    pub status: SeatStatus,
    pub holder: Option<String>,
    pub value: Option<i64>,
}

impl Serialize for FinalSeat {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        match self.value {
            Some(value) => map.serialize_entry("value", &value)?,
            None => {
                map.serialize_entry("status", &self.status)?;
                map.serialize_entry("holder", &self.holder)?;
            }
        }
        map.end()
    }
}
