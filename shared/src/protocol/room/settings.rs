//! A room's settings (what its facilitator chose for the next round), a change of them as a
//! request sends it, and the options a facilitator chooses from (`GET /api/rooms/options`).

use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

use crate::schedule::Shape;
use crate::Defence;

/// The tickets of a general-admission round unless the facilitator says otherwise.
pub const DEFAULT_TICKETS: i32 = 100;

fn default_tickets() -> i32 {
    DEFAULT_TICKETS
}

/// A room's settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// What a round sells: numbered seats (`seats`), or a count of tickets in one section
    /// (`general_admission`).
    #[serde(default)]
    pub kind: Shape,
    /// Seats in the show (a round of numbered seats).
    pub seats: i32,
    /// Tickets in the section (a general-admission round).
    #[serde(default = "default_tickets")]
    pub tickets: i32,
    pub defence: Defence,
    /// The pause between a check and its write, in milliseconds.
    pub gap_ms: i32,
    pub hold_seconds: i32,
    /// Payments land after the hold ran out.
    pub late_payments: bool,
    /// The payment provider delivers its webhook twice.
    pub duplicate_payments: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            kind: Shape::Seats,
            seats: 8,
            tickets: DEFAULT_TICKETS,
            defence: Defence::AtomicUpdate,
            gap_ms: 0,
            hold_seconds: 60,
            late_payments: false,
            duplicate_payments: false,
        }
    }
}

/// A change of settings as a request sends it (`POST /api/rooms`, `…/settings`): every key
/// optional (left out, or `null`), unknown keys refused. Numbers and the defence are taken as
/// sent, so that the server's refusal names the field and what it accepts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Change {
    /// `seats` or `general_admission`.
    pub kind: Option<String>,
    pub seats: Option<i64>,
    pub tickets: Option<i64>,
    pub defence: Option<String>,
    pub gap_ms: Option<i64>,
    pub hold_seconds: Option<i64>,
    pub late_payments: Option<bool>,
    pub duplicate_payments: Option<bool>,
}

/// What a facilitator chooses from: every defence a room offers (each marked unavailable, and
/// why, when it cannot run now or does not fit the kind of round asked about), the defaults and
/// the bounds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    pub defences: Vec<DefenceOption>,
    pub defaults: Settings,
    pub limits: Limits,
}

/// A defence a room offers, and why it cannot run now if it cannot. On the wire it carries its
/// words too, for a reader without `shared` (curl, README): `{"name", "title", "summary",
/// "pays", "unavailable"}`; they are `name`'s (`Defence::title`, `summary`, `pays`), so they are
/// written from it and not read back.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct DefenceOption {
    /// Its identifier (`check_then_act`).
    pub name: Defence,
    pub unavailable: Option<String>,
}

impl Serialize for DefenceOption {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("DefenceOption", 5)?;
        s.serialize_field("name", &self.name)?;
        s.serialize_field("title", self.name.title())?;
        s.serialize_field("summary", self.name.summary())?;
        s.serialize_field("pays", &self.name.pays())?;
        s.serialize_field("unavailable", &self.unavailable)?;
        s.end()
    }
}

/// The bounds of every setting, of a release of bots, of a tap and of a name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    pub seats: i32,
    /// The most tickets a general-admission round sells.
    #[serde(default)]
    pub tickets: i32,
    pub gap_ms: i32,
    pub hold_seconds: i32,
    pub bots: i64,
    pub tap_seats: usize,
    /// The longest name, in characters.
    pub name: usize,
}
