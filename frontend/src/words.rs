//! The words the page puts on an outcome: its headline, the causal story, whether the goal was
//! reached, and the SQL each step sent. Thin: the words themselves live in `shared`.

use shared::scenarios::BuiltIn;
use shared::{Outcome, Schedule};

use shared::{explain, export};

/// One line for the live region: who got the seat, or that it was sold twice.
pub fn headline(_schedule: &Schedule, outcome: &Outcome) -> String {
    explain::headline(outcome)
}

/// The causal chain, ending in its consequence.
pub fn story(schedule: &Schedule, outcome: &Outcome) -> Vec<String> {
    explain::verdict_story(schedule, outcome)
}

pub fn goal_met(builtin: &BuiltIn, schedule: &Schedule, outcome: &Outcome) -> bool {
    builtin.goal_met(schedule, outcome)
}

/// The SQL that entry `index` sent, or the command of a Redis step (empty for a step that
/// sends nothing, such as a payment).
pub fn entry_sql(schedule: &Schedule, outcome: &Outcome, index: usize) -> String {
    export::entry_commands(schedule, outcome)
        .into_iter()
        .nth(index)
        .flatten()
        .unwrap_or_default()
}

/// A file name for the schedule's exports: its name, in lowercase words joined by dashes.
pub fn file_stem(schedule: &Schedule) -> String {
    let mut stem = String::new();
    for c in schedule.name().chars() {
        if c.is_ascii_alphanumeric() {
            stem.push(c.to_ascii_lowercase());
        } else if !stem.ends_with('-') && !stem.is_empty() {
            stem.push('-');
        }
        if stem.len() >= 60 {
            break;
        }
    }
    let stem = stem.trim_end_matches('-');
    if stem.is_empty() {
        "schedule".to_string()
    } else {
        stem.to_string()
    }
}

/// Text for a `data:` URL: everything but unreserved characters percent-encoded.
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The schedule as a `schedules/` fixture, its `expect` filled from the outcome.
pub fn fixture(schedule: &Schedule, outcome: &Outcome) -> String {
    export::fixture_json(schedule, outcome)
}

/// One psql script per buyer (and the set-up), named.
pub fn psql(schedule: &Schedule, outcome: &Outcome) -> Vec<(String, String)> {
    export::psql_scripts(schedule, outcome)
}

/// An isolation-tester spec and its expected output.
pub fn isolation(schedule: &Schedule, outcome: &Outcome) -> (String, String) {
    export::isolation_spec(schedule, outcome)
}
