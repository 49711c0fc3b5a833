//! What a facilitator chooses for a room (`shared::protocol::room::Settings`), each value of a
//! change checked with a message that names the field and says what is accepted (a defence
//! that does not fit the kind of round is refused, saying which do); the seats of a show, the
//! section of a general-admission round, a participant's name and the actor name it suggests.

use shared::protocol::room::{Change, Settings};
use shared::schedule::Shape;
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

/// The kinds of round a room plays.
pub const ROOM_KINDS: &[Shape] = &[Shape::Seats, Shape::GeneralAdmission];

pub const MAX_SEATS: i32 = 500;
pub const MAX_TICKETS: i32 = 500;
/// The one section of a general-admission round (`sections.section_id`).
pub const SECTION: &str = "floor";
pub const MAX_GAP_MS: i32 = 5000;
pub const MAX_HOLD_SECONDS: i32 = 3600;

/// `settings` with `change` applied, or what is wrong with it (the field, and what it accepts).
pub fn apply(settings: &Settings, change: Change) -> Result<Settings, RoomError> {
    let mut s = settings.clone();
    if let Some(k) = change.kind {
        s.kind = kind(&k)?;
    }
    if let Some(n) = change.seats {
        s.seats = within("seats", n, 1, MAX_SEATS as i64, "seats")? as i32;
    }
    if let Some(n) = change.tickets {
        s.tickets = within("tickets", n, 1, MAX_TICKETS as i64, "tickets")? as i32;
    }
    let defence_changed = change.defence.is_some();
    if let Some(d) = change.defence {
        s.defence = offered(&d)?;
    }
    if let Some(why) = unfit(s.defence, s.kind) {
        // The field to fix is the one the change sent: the defence, or the kind that no longer
        // fits the defence the room had.
        let field = if defence_changed { "defence" } else { "kind" };
        let fitting: Vec<&str> = ROOM_DEFENCES
            .iter()
            .filter(|d| d.fits(s.kind))
            .map(|d| d.id())
            .collect();
        return Err(RoomError::invalid(
            field,
            format!("{why}: choose one that does: {}", fitting.join(", ")),
        ));
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

/// The kind of round spelled `id`, or a refusal that lists them.
fn kind(id: &str) -> Result<Shape, RoomError> {
    ROOM_KINDS
        .iter()
        .copied()
        .find(|k| k.id() == id)
        .ok_or_else(|| {
            let ids: Vec<&str> = ROOM_KINDS.iter().map(|k| k.id()).collect();
            RoomError::invalid(
                "kind",
                format!(
                    "{:?} is not a kind of round a room plays: use {}",
                    id.chars().take(32).collect::<String>(),
                    ids.join(" or ")
                ),
            )
        })
}

/// The kind of round an options query asks about (`kind=general_admission`; numbered seats
/// without one), or a refusal naming the field.
pub fn kind_of_query(query: Option<&str>) -> Result<Shape, RoomError> {
    let asked = query
        .unwrap_or("")
        .split('&')
        .find_map(|pair| pair.strip_prefix("kind="));
    asked.map_or(Ok(Shape::Seats), kind)
}

/// Why `defence` cannot run a round of `kind`, if it cannot: its program holds, pays or
/// inserts a ticket per seat, and a general-admission round has one count and no seat.
pub fn unfit(defence: Defence, kind: Shape) -> Option<String> {
    if defence.fits(kind) {
        return None;
    }
    let what = match kind {
        Shape::Seats => "a round of numbered seats",
        Shape::GeneralAdmission => "a general-admission round, which has no seat to hold",
        Shape::Balance | Shape::RateLimit | Shape::Coupon | Shape::Username => "this kind of round",
    };
    Some(format!("{} does not fit {what}", defence.title()))
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

    #[test]
    fn a_general_admission_round_takes_only_the_defences_that_fit_it() {
        let ga = |defence: Option<&str>| Change {
            kind: Some("general_admission".into()),
            tickets: Some(3),
            defence: defence.map(str::to_string),
            ..Change::default()
        };
        let s = apply(&Settings::default(), ga(Some("check_then_act"))).unwrap();
        assert_eq!((s.kind, s.tickets), (Shape::GeneralAdmission, 3));
        for d in ROOM_DEFENCES {
            let fits = apply(&Settings::default(), ga(Some(d.id()))).is_ok();
            assert_eq!(fits, d.fits(Shape::GeneralAdmission), "{d}");
        }
        let e = apply(&Settings::default(), ga(Some("unique_constraint"))).unwrap_err();
        assert!(e.to_string().starts_with("defence: "), "{e}");
        assert!(e.to_string().contains("check_then_act, transaction"), "{e}");
        // The default defence fits, and a kind switched under an unfitting one names the kind.
        assert!(apply(&Settings::default(), ga(None)).is_ok());
        let holds = Settings {
            defence: Defence::HoldConfirm,
            ..Settings::default()
        };
        let e = apply(&holds, ga(None)).unwrap_err();
        assert!(e.to_string().starts_with("kind: "), "{e}");
        assert_eq!(
            kind_of_query(Some("kind=general_admission")).unwrap(),
            Shape::GeneralAdmission
        );
        assert_eq!(kind_of_query(None).unwrap(), Shape::Seats);
        assert!(kind_of_query(Some("kind=balance")).is_err());
    }
}
