//! A schedule whose clock counts seconds (a live round's replay) says seconds wherever it names
//! the clock: every sentence it shows at every step and every export reads as the same
//! schedule counted in minutes, with the unit's words changed and nothing else. A file that
//! leaves the unit unsaid is read as minutes and written back without the key.

use shared::explorer;
use shared::export;
use shared::scenarios;
use shared::schedule::ClockUnit;
use shared::view;
use shared::{explain, Schedule};

/// Every sentence and export of `schedule` at every step: phones, the verdict panel, the seat
/// map's words, each entry's reason, the story, the psql scripts and the isolation spec.
fn texts(schedule: &Schedule) -> Vec<String> {
    let Ok(outcome) = view::run(schedule) else {
        return Vec::new();
    };
    let deciding = view::deciding_step(schedule);
    let mut out = Vec::new();
    for step in 0..=outcome.entries.len() {
        for (_, phone) in view::phones(schedule, &outcome, step) {
            out.push(phone.text);
        }
        let v = view::verdict_at(schedule, step, deciding);
        out.push(v.headline);
        out.extend(v.story);
        for seat in view::map_at(schedule, &outcome, step) {
            out.extend(seat.owner_line());
            out.extend(seat.redis_line());
            out.push(seat.sentence());
        }
    }
    out.extend(outcome.entries.iter().map(|e| e.trace.reason.clone()));
    out.push(explain::headline(schedule, &outcome));
    out.extend(explain::verdict_story(schedule, &outcome));
    for (_, script) in export::psql_scripts(schedule, &outcome) {
        out.extend(script.lines().map(str::to_string));
    }
    let (spec, _) = export::isolation_spec(schedule, &outcome);
    out.extend(spec.lines().map(str::to_string));
    out
}

/// Lines about the wall clock, not the schedule's: they say minutes whatever the unit. (The
/// schema's own text, `sql::SCHEMA_DDL`, is the migration's, word for word, and stays too.)
const WALL_CLOCK: [&str; 1] =
    ["-- Typed by hand, a step can take minutes: no statement or idle-in-transaction timeout."];

/// `schedule` with its clock counting `unit`.
fn counting(schedule: &Schedule, unit: ClockUnit) -> Schedule {
    let mut file = schedule.to_file();
    file.scenario.clock_unit = unit;
    Schedule::parse(file)
        .expect("the unit changes no rule")
        .with_order(schedule.order().to_vec())
}

/// A line about minutes as it reads about seconds: "minute 12" → "second 12", "5 minutes" →
/// "5 seconds", "9 min" → "9 s". Words only: identifiers such as `p_minutes` stay.
fn in_seconds(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find("min") {
        let (before, after) = (&rest[..at], &rest[at + 3..]);
        let starts = !before.ends_with(|c: char| c.is_alphanumeric() || c == '_');
        let word = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(after, |end| &after[..end]);
        out.push_str(before);
        let swap = match word {
            "ute" | "utes" if starts => Some(if word == "ute" { "second" } else { "seconds" }),
            "" if starts && before.ends_with(' ') => {
                let number = before.trim_end().ends_with(|c: char| c.is_ascii_digit());
                number.then_some("s")
            }
            _ => None,
        };
        match swap {
            Some(w) => out.push_str(w),
            None => {
                out.push_str("min");
                out.push_str(word);
            }
        }
        rest = &after[word.len()..];
    }
    out.push_str(rest);
    out
}

/// Whether `line` names minutes in words (not in an identifier such as `p_minutes`).
fn says_minutes(line: &str) -> bool {
    line.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w == "minute" || w == "minutes")
}

#[test]
fn a_clock_of_seconds_says_seconds_in_every_sentence_and_export_at_every_step() {
    let ddl: Vec<&str> = shared::sql::SCHEMA_DDL.lines().map(str::trim).collect();
    let mut compared = 0;
    let mut about_time = 0;
    for b in scenarios::all() {
        let base = view::playable(&b.schedule());
        let (orders, _) = explorer::orders(&base, 12);
        let mut schedules = vec![base.clone()];
        schedules.extend(orders.into_iter().map(|o| base.with_order(o)));
        for minutes in schedules {
            let seconds = counting(&minutes, ClockUnit::Second);
            let (m, s) = (texts(&minutes), texts(&seconds));
            assert_eq!(m.len(), s.len(), "{}", b.id);
            for (m, s) in m.iter().zip(&s) {
                compared += 1;
                let fixed = WALL_CLOCK.contains(&m.as_str()) || ddl.contains(&m.trim());
                if m == s && fixed {
                    continue;
                }
                about_time += usize::from(m != s);
                assert_eq!(&in_seconds(m), s, "{}: the line in minutes was {m:?}", b.id);
                assert!(!says_minutes(s), "{}: {s:?}", b.id);
            }
        }
    }
    assert!(compared > 10_000, "{compared} lines compared");
    assert!(about_time > 100, "{about_time} lines name the clock");
}

#[test]
fn a_file_says_its_unit_only_when_it_is_not_minutes() {
    let b = scenarios::get("ch4-late-payment").expect("a built-in with a hold");
    let minutes = b.schedule();
    assert_eq!(minutes.scenario().clock_unit, ClockUnit::Minute);
    let written = serde_json::to_string(&minutes.to_file()).unwrap();
    assert!(!written.contains("clock_unit"), "{written}");

    let seconds = counting(&minutes, ClockUnit::Second);
    let written = serde_json::to_string(&seconds.to_file()).unwrap();
    assert!(written.contains(r#""clock_unit":"second""#), "{written}");
    let back = Schedule::parse_json(&written).expect("the file reads back");
    assert_eq!(back.scenario().clock_unit, ClockUnit::Second);
    assert_eq!(back.to_file(), seconds.to_file());
}

#[test]
fn a_wrong_unit_names_the_key_and_the_nearest_word() {
    let b = scenarios::get("ch4-late-payment").expect("a built-in with a hold");
    let mut value = serde_json::to_value(b.schedule().to_file()).unwrap();
    value["scenario"]["clock_unit"] = "seconds".into();
    let err = Schedule::parse_json(&value.to_string())
        .unwrap_err()
        .to_string();
    assert!(err.contains("scenario.clock_unit"), "{err}");
    assert!(err.contains("\"second\""), "{err}");
}
