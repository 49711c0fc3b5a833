//! The shapes of a schedule file (format version 1) as written: the file, its scenario and
//! seats, a program given by its defence, the expectations. `decode` reads them, with errors
//! that name the field; serde writes them back.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{ClockUnit, Database};

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
    pub seats: Vec<SeatSpec>,
}

/// A seat at the start of the scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SeatSpec {
    pub id: String,
    pub status: SeatStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<i64>,
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

/// A seat's stored state at the end, as `expect.final` states it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FinalSeat {
    pub status: SeatStatus,
    pub holder: Option<String>,
}
