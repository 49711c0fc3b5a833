//! The words the page puts on an outcome: the verdict panel at a step (its headline and causal
//! story, revealed once decided), whether the goal can be reached, and the SQL each step sent. Thin: the words themselves live in `shared`.

use shared::export;
use shared::scenarios::BuiltIn;
use shared::{Outcome, Schedule};

/// The verdict panel at a step: nothing revealed before the step that decides the run.
pub fn verdict_at(schedule: &Schedule, step: usize, deciding: usize) -> shared::view::StepVerdict {
    shared::view::verdict_at(schedule, step, deciding)
}

/// Whether any order of these programs reaches the goal (`None`: too many orders to say), and
/// how many orders there are.
pub fn goal_reachable(builtin: &BuiltIn, schedule: &Schedule) -> Option<(bool, usize)> {
    builtin.goal_reachable(schedule, 5_000)
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

/// One mysql-client script per buyer beside a setup script, for a schedule on InnoDB.
pub fn mysql(schedule: &Schedule, outcome: &Outcome) -> Vec<(String, String)> {
    export::mysql_scripts(schedule, outcome)
}

/// An isolation-tester spec and its expected output.
pub fn isolation(schedule: &Schedule, outcome: &Outcome) -> (String, String) {
    export::isolation_spec(schedule, outcome)
}
