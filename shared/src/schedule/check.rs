//! The checks of a file's parts other than its programs and order: the version, the scenario
//! and its seats, actor names and count, the expectations.

use super::{
    Database, Expect, Scenario, Schedule, ScheduleError, SeatStatus, MAX_ACTORS, MAX_MINUTES,
    MAX_SEATS,
};

/// Only format version 1 exists.
pub(super) fn version(version: i64) -> Result<(), ScheduleError> {
    if version == 1 {
        return Ok(());
    }
    Err(ScheduleError::new(
        "version",
        format!(
            "version {version} is not supported; this is format version 1: write \"version\": 1"
        ),
    ))
}

/// A database this build has a model of: both, unless built without the `innodb` feature (the
/// page's first bundle, whose reader has not asked for InnoDB yet).
pub(super) fn engine(engine: Database) -> Result<(), ScheduleError> {
    if engine == Database::Postgresql || cfg!(feature = "innodb") {
        return Ok(());
    }
    Err(ScheduleError::new(
        "engine",
        "this page was loaded without InnoDB's model: copy this schedule, choose MySQL/InnoDB \
         above the seat map (the page loads the model), then paste the schedule again",
    ))
}

/// The scenario with its limits checked and its seats sorted by id.
pub(super) fn scenario(mut scenario: Scenario) -> Result<Scenario, ScheduleError> {
    if !(1..=1440).contains(&scenario.hold_minutes) {
        return Err(ScheduleError::new(
            "scenario.hold_minutes",
            format!(
                "{} is out of range: give a hold length between 1 and 1440 minutes",
                scenario.hold_minutes
            ),
        ));
    }
    if !(0..=MAX_MINUTES).contains(&scenario.clock) {
        return Err(ScheduleError::new(
            "scenario.clock",
            format!(
                "{} is out of range: the clock starts between minute 0 and {MAX_MINUTES}",
                scenario.clock
            ),
        ));
    }
    if !(1..=i64::from(i32::MAX)).contains(&scenario.show) {
        return Err(ScheduleError::new(
            "scenario.show",
            format!(
                "{} is not a show id: give a positive number, e.g. 501",
                scenario.show
            ),
        ));
    }
    if scenario.seats.is_empty() {
        return Err(ScheduleError::new(
            "scenario.seats",
            "no seats: give at least one, e.g. {\"id\": \"A7\"}",
        ));
    }
    if scenario.seats.len() > MAX_SEATS {
        return Err(ScheduleError::new(
            "scenario.seats",
            format!(
                "{} seats is more than the limit of {MAX_SEATS}",
                scenario.seats.len()
            ),
        ));
    }
    for (i, seat) in scenario.seats.iter().enumerate() {
        let field = format!("scenario.seats[{i}]");
        seat_id(&format!("{field}.id"), &seat.id)?;
        // A counter's row has no status to check: `shape::check` refuses one, as a counter's.
        match (seat.status, &seat.holder, seat.until) {
            _ if scenario.kind.is_counter() => {}
            (SeatStatus::Available, None, None) => {}
            (SeatStatus::Available, _, _) => {
                return Err(ScheduleError::new(field, "an AVAILABLE seat has no holder and no until: remove them, or give the seat \"status\": \"HELD\" or \"BOOKED\""))
            }
            (SeatStatus::Held, Some(_), Some(until)) if (0..=MAX_MINUTES).contains(&until) => {}
            (SeatStatus::Held, _, _) => {
                return Err(ScheduleError::new(
                    field,
                    "a HELD seat needs a holder and an until minute (0 or more), e.g. {\"id\": \"A14\", \"status\": \"HELD\", \"holder\": \"a\", \"until\": 5}",
                ))
            }
            (SeatStatus::Booked, Some(_), None) => {}
            (SeatStatus::Booked, _, _) => {
                return Err(ScheduleError::new(field, "a BOOKED seat needs a holder and no until, e.g. {\"id\": \"A7\", \"status\": \"BOOKED\", \"holder\": \"a\"}"))
            }
        }
        if let Some(holder) = &seat.holder {
            name(&format!("{field}.holder"), holder)?;
        }
        if scenario.seats[..i].iter().any(|s| s.id == seat.id) {
            return Err(ScheduleError::new(
                format!("{field}.id"),
                format!("seat {} is listed twice: give each seat once", seat.id),
            ));
        }
    }
    super::shape::check(&scenario)?;
    scenario.seats.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(scenario)
}

pub(super) fn actor_count(count: usize) -> Result<(), ScheduleError> {
    if count == 0 {
        return Err(ScheduleError::new(
            "actors",
            "no actors: give at least one buyer and its program",
        ));
    }
    if count > MAX_ACTORS {
        return Err(ScheduleError::new(
            "actors",
            format!("{count} actors is more than the limit of {MAX_ACTORS}"),
        ));
    }
    Ok(())
}

pub(super) fn actor_name(name: &str) -> Result<(), ScheduleError> {
    self::name(&super::decode::key_path("actors", name), name)
}

fn seat_id(field: &str, id: &str) -> Result<(), ScheduleError> {
    let ok = !id.is_empty() && id.len() <= 8 && id.chars().all(|c| c.is_ascii_alphanumeric());
    if ok {
        Ok(())
    } else {
        Err(ScheduleError::new(
            field,
            format!("{id:?} is not a seat id: use 1 to 8 letters and digits, e.g. \"A7\""),
        ))
    }
}

fn name(field: &str, name: &str) -> Result<(), ScheduleError> {
    let ok = !name.is_empty()
        && name.len() <= 16
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(ScheduleError::new(
            field,
            format!("{name:?} is not an actor name: use 1 to 16 lowercase letters, digits or _, e.g. \"adam\""),
        ))
    }
}

/// The expectations, checked against the schedule: every actor and seat they name exists,
/// and `steps` has one step per entry of the order.
pub(super) fn expect(expect: Expect, schedule: &Schedule) -> Result<Expect, ScheduleError> {
    let known = |field: String, name: &str| -> Result<(), ScheduleError> {
        let holds = schedule
            .scenario
            .seats
            .iter()
            .any(|s| s.holder.as_deref() == Some(name));
        if schedule.actor_index(name).is_some() || holds {
            return Ok(());
        }
        let names: Vec<&str> = schedule.actors.iter().map(|a| a.name.as_str()).collect();
        Err(ScheduleError::new(
            field,
            format!(
                "unknown actor {name:?}{}: the actors are {}",
                super::suggest::aside(name, &names),
                names.join(", ")
            ),
        ))
    };
    let lists = [
        ("refund_due", &expect.refund_due),
        ("unpaid_hold", &expect.unpaid_hold),
        ("booked_late", &expect.booked_late),
    ];
    for (key, list) in lists {
        for (i, name) in list.iter().flatten().enumerate() {
            known(format!("expect.{key}[{i}]"), name)?;
        }
    }
    let seat_ids: Vec<&str> = schedule
        .scenario
        .seats
        .iter()
        .map(|s| s.id.as_str())
        .collect();
    let seats = (expect
        .told
        .iter()
        .flat_map(|m| m.keys())
        .map(|s| ("told", s)))
    .chain(
        expect
            .final_seats
            .iter()
            .flat_map(|m| m.keys())
            .map(|s| ("final", s)),
    );
    for (key, seat) in seats {
        if !seat_ids.contains(&seat.as_str()) {
            return Err(ScheduleError::new(
                super::decode::key_path(&format!("expect.{key}"), seat),
                format!(
                    "unknown seat {seat:?}: the scenario has {}",
                    seat_ids.join(", ")
                ),
            ));
        }
    }
    // A counter's row (and a username's) ends with a value; a seat with a status and holder.
    let kind = schedule.scenario.kind;
    let counts = kind.is_counter() || kind.is_username();
    for (seat, f) in expect.final_seats.iter().flatten() {
        let path = super::decode::key_path("expect.final", seat);
        if counts && f.value.is_none() {
            return Err(ScheduleError::new(
                path,
                format!(
                    "a {} row ends with a value, not a status: write {{\"value\": 0}} with its \
                     value at the end",
                    kind.id()
                ),
            ));
        }
        if !counts && f.value.is_some() {
            return Err(ScheduleError::new(
                path,
                "a seat ends with a status, not a value: write e.g. {\"status\": \"BOOKED\", \
                 \"holder\": \"adam\"}, or give the scenario a counter's \"kind\"",
            ));
        }
    }
    for (seat, names) in expect.told.iter().flatten() {
        for (i, name) in names.iter().enumerate() {
            known(format!("expect.told.{seat}[{i}]"), name)?;
        }
    }
    let entries = schedule.order.len();
    if let Some(steps) = &expect.steps {
        if steps.len() != entries {
            return Err(ScheduleError::new(
                "expect.steps",
                format!(
                    "{} steps for an order of {entries} entries: give one step per entry",
                    steps.len()
                ),
            ));
        }
    }
    Ok(expect)
}

/// Run by `cargo test -p shared --no-default-features --features seats --lib` (scripts/test):
/// the page's first bundle refuses a schedule on InnoDB, naming the field and how to load the
/// model.
#[cfg(all(test, not(feature = "innodb"), feature = "seats"))]
mod without_innodb {
    use crate::schedule::{Database, Schedule};

    #[test]
    fn a_schedule_on_innodb_is_refused_saying_how_to_load_its_model() {
        let file = crate::scenarios::get("ch4-check_then_act").unwrap().file;
        let refused = Schedule::parse(crate::schedule::ScheduleFile {
            engine: Database::Innodb,
            ..file.clone()
        })
        .unwrap_err();
        assert_eq!(refused.field, "engine");
        assert!(
            refused.message.contains("choose MySQL/InnoDB"),
            "{}",
            refused.message
        );
        assert_eq!(
            Schedule::parse(file).unwrap().database(),
            Database::Postgresql
        );
    }
}

/// Run by `cargo test -p shared --no-default-features --lib` (scripts/test): the page's first
/// bundle refuses a scenario of another shape than seats, naming the field and the page that
/// has the shapes' models.
#[cfg(all(test, not(feature = "shapes")))]
mod without_shapes {
    use crate::schedule::Schedule;

    #[test]
    fn a_counter_or_a_username_is_refused_saying_where_to_paste_it() {
        for kind in ["balance", "username"] {
            let json = format!(
                r#"{{"version": 1, "scenario": {{"kind": "{kind}", "seats": [{{"id": "x", "value": 1}}]}},
                    "actors": {{"adam": {{"defence": "check_then_act"}}}}}}"#
            );
            let refused = Schedule::parse_json(&json).unwrap_err();
            assert_eq!(refused.field, "scenario.kind", "{kind}");
            assert!(
                refused.message.contains("/chapter/5?with=shapes"),
                "{}",
                refused.message
            );
        }
        assert!(crate::scenarios::all().iter().all(|b| b.chapter != 6));
        assert!(crate::chapters::chapter(6).is_some_and(|c| c.parts.is_empty()));
    }
}
