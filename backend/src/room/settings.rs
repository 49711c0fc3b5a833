//! What a facilitator chooses for a room, each value checked with a message that says what is
//! accepted.

use serde::{Deserialize, Serialize};

use super::RoomError;

/// The defences a room offers (names of `shared::defences`).
pub const ROOM_DEFENCES: &[&str] = &[
    "check_then_act",
    "transaction",
    "serializable_retry",
    "atomic_update",
    "lock_row",
    "lock_nowait",
    "unique_constraint",
    "hold_confirm",
    "redis_hold",
];

pub const MAX_SEATS: i32 = 500;
pub const MAX_GAP_MS: i32 = 5000;
pub const MAX_HOLD_SECONDS: i32 = 3600;

/// A room's settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    pub seats: i32,
    pub defence: String,
    pub gap_ms: i32,
    pub hold_seconds: i32,
    pub late_payments: bool,
    pub duplicate_payments: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            seats: 8,
            defence: "atomic_update".to_string(),
            gap_ms: 0,
            hold_seconds: 60,
            late_payments: false,
            duplicate_payments: false,
        }
    }
}

/// A change of settings as a request sends it: every key optional, unknown keys refused.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Change {
    pub seats: Option<i64>,
    pub defence: Option<String>,
    pub gap_ms: Option<i64>,
    pub hold_seconds: Option<i64>,
    pub late_payments: Option<bool>,
    pub duplicate_payments: Option<bool>,
}

impl Settings {
    /// These settings with `change` applied, or what is wrong with it.
    pub fn with(&self, change: Change) -> Result<Settings, RoomError> {
        let mut s = self.clone();
        if let Some(n) = change.seats {
            s.seats = within("seats", n, 1, MAX_SEATS as i64, "seats")? as i32;
        }
        if let Some(d) = change.defence {
            if !ROOM_DEFENCES.contains(&d.as_str()) {
                return Err(RoomError::invalid(
                    "defence",
                    format!(
                        "{d:?} is not a defence a room offers: use one of {}",
                        ROOM_DEFENCES.join(", ")
                    ),
                ));
            }
            s.defence = d;
        }
        if let Some(g) = change.gap_ms {
            s.gap_ms = within("gap_ms", g, 0, MAX_GAP_MS as i64, "milliseconds")? as i32;
        }
        if let Some(h) = change.hold_seconds {
            s.hold_seconds =
                within("hold_seconds", h, 1, MAX_HOLD_SECONDS as i64, "seconds")? as i32;
        }
        if let Some(l) = change.late_payments {
            s.late_payments = l;
        }
        if let Some(d) = change.duplicate_payments {
            s.duplicate_payments = d;
        }
        Ok(s)
    }

    /// Whether the defence holds first and books when the participant pays.
    pub fn pays(&self) -> bool {
        matches!(self.defence.as_str(), "hold_confirm" | "redis_hold")
    }
}

fn within(field: &str, n: i64, low: i64, high: i64, unit: &str) -> Result<i64, RoomError> {
    if (low..=high).contains(&n) {
        Ok(n)
    } else {
        Err(RoomError::invalid(
            field,
            format!("{n} is out of range: use {low} to {high} {unit}"),
        ))
    }
}

/// The seat ids of a show of `n` seats: rows A, B, … of 10 seats (20 past 100 seats).
pub fn seat_ids(n: i32) -> Vec<String> {
    let per_row = if n > 100 { 20 } else { 10 };
    (0..n)
        .map(|i| {
            let row = (b'A' + (i / per_row) as u8) as char;
            format!("{row}{}", i % per_row + 1)
        })
        .collect()
}

/// The longest name a participant may pick, in characters.
pub const MAX_NAME: usize = 24;

/// A participant's display name, trimmed, or what is wrong with it.
pub fn name(raw: &str) -> Result<String, RoomError> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(RoomError::invalid("name", "pick a name: it is empty"));
    }
    if name.chars().count() > MAX_NAME {
        return Err(RoomError::invalid(
            "name",
            format!(
                "that name is {} characters long: use at most {MAX_NAME}",
                name.chars().count()
            ),
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| c.is_control() || !(c.is_alphanumeric() || " -_.'".contains(*c)))
    {
        return Err(RoomError::invalid(
            "name",
            format!("a name may use letters, digits, spaces and - _ . ' only, not {c:?}"),
        ));
    }
    Ok(name.to_string())
}

/// The schedule actor name a display name suggests: lowercase ASCII letters and digits, at
/// most 12 of them, or `p` and the participant's number.
pub fn actor_base(name: &str, n: i32) -> String {
    let base: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .take(12)
        .collect();
    if base.is_empty() || base == "clock" || base.starts_with(|c: char| c.is_ascii_digit()) {
        format!("p{n}")
    } else {
        base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_are_named_by_row_and_number() {
        assert_eq!(seat_ids(3), ["A1", "A2", "A3"]);
        assert_eq!(seat_ids(12)[10], "B1");
        let big = seat_ids(500);
        assert_eq!(big.last().unwrap(), "Y20");
        assert!(big.iter().all(|s| s.len() <= 8));
    }

    #[test]
    fn a_name_is_checked_and_an_actor_name_derived() {
        assert_eq!(name("  Ana  ").unwrap(), "Ana");
        assert!(name("").is_err());
        assert!(name("a;drop table").is_err());
        assert!(name(&"x".repeat(25)).is_err());
        assert_eq!(actor_base("Ana María", 3), "anamara");
        assert_eq!(actor_base("Клара", 4), "p4");
        assert_eq!(actor_base("clock", 5), "p5");
    }

    #[test]
    fn settings_out_of_range_say_what_is_accepted() {
        let s = Settings::default();
        let e = s
            .with(Change {
                seats: Some(501),
                ..Change::default()
            })
            .unwrap_err();
        assert!(e.to_string().contains("1 to 500"), "{e}");
        let e = s
            .with(Change {
                defence: Some("optimism".into()),
                ..Change::default()
            })
            .unwrap_err();
        assert!(e.to_string().contains("atomic_update"), "{e}");
    }
}
