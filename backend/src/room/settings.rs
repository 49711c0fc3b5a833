//! What a facilitator chooses for a room (`shared::protocol::room::Settings`), each value of a
//! change checked with a message that names the field and says what is accepted; the seats of a
//! show, a participant's name and the actor name it suggests.

use shared::protocol::room::{Change, Settings};
use shared::Defence;

use super::error::RoomError;

/// The defences a room offers.
pub const ROOM_DEFENCES: &[Defence] = &[
    Defence::CheckThenAct,
    Defence::Transaction,
    Defence::SerializableRetry,
    Defence::AtomicUpdate,
    Defence::LockRow,
    Defence::LockNowait,
    Defence::UniqueConstraint,
    Defence::HoldConfirm,
    Defence::RedisHold,
];

pub const MAX_SEATS: i32 = 500;
pub const MAX_GAP_MS: i32 = 5000;
pub const MAX_HOLD_SECONDS: i32 = 3600;

/// `settings` with `change` applied, or what is wrong with it (the field, and what it accepts).
pub fn apply(settings: &Settings, change: Change) -> Result<Settings, RoomError> {
    let mut s = settings.clone();
    if let Some(n) = change.seats {
        s.seats = within("seats", n, 1, MAX_SEATS as i64, "seats")? as i32;
    }
    if let Some(d) = change.defence {
        s.defence = offered(&d)?;
    }
    if let Some(g) = change.gap_ms {
        s.gap_ms = within("gap_ms", g, 0, MAX_GAP_MS as i64, "milliseconds")? as i32;
    }
    if let Some(h) = change.hold_seconds {
        s.hold_seconds = within("hold_seconds", h, 1, MAX_HOLD_SECONDS as i64, "seconds")? as i32;
    }
    if let Some(l) = change.late_payments {
        s.late_payments = l;
    }
    if let Some(d) = change.duplicate_payments {
        s.duplicate_payments = d;
    }
    Ok(s)
}

/// The defence a room offers spelled `id`, or a refusal that lists them.
fn offered(id: &str) -> Result<Defence, RoomError> {
    Defence::parse(id)
        .filter(|d| ROOM_DEFENCES.contains(d))
        .ok_or_else(|| {
            let ids: Vec<&str> = ROOM_DEFENCES.iter().map(|d| d.id()).collect();
            RoomError::invalid(
                "defence",
                format!(
                    "{id:?} is not a defence a room offers: use one of {}",
                    ids.join(", ")
                ),
            )
        })
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
        let e = apply(
            &s,
            Change {
                seats: Some(501),
                ..Change::default()
            },
        )
        .unwrap_err();
        assert!(e.to_string().contains("1 to 500"), "{e}");
        // A defence of the simulator's that a room does not offer is refused like a typo.
        for id in ["optimism", "skip_locked"] {
            let e = apply(
                &s,
                Change {
                    defence: Some(id.into()),
                    ..Change::default()
                },
            )
            .unwrap_err();
            assert!(e.to_string().starts_with("defence: "), "{e}");
            assert!(e.to_string().contains("atomic_update, lock_row"), "{e}");
        }
        let e = apply(
            &s,
            Change {
                defence: Some("redis_hold".into()),
                ..Change::default()
            },
        );
        assert_eq!(e.unwrap().defence, Defence::RedisHold);
    }
}
