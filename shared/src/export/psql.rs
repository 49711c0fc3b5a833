//! The run as psql scripts: a setup script (the schema, the seats, and the clock's steps) and
//! one script per buyer, each step under a comment giving its place in the order and what
//! PostgreSQL answers to it (`step` writes a step).

pub(super) mod step;

use super::{quote_ident, session_settings, setup_label, setup_sql};
use crate::explain;
use crate::outcome::{Outcome, StepResult};
use crate::schedule::{Schedule, CLOCK};
use crate::sql;
use crate::sqlstate::SqlState;
use step::scripted_steps;

/// The scripts in the default schema (`SCHEMA`): the setup first (labelled by `setup_label`), then one
/// per buyer, labelled with its name.
pub fn psql_scripts(schedule: &Schedule, outcome: &Outcome) -> Vec<(String, String)> {
    psql_scripts_in(schedule, outcome, super::SCHEMA)
}

/// The scripts, creating and using the schema `schema`.
pub fn psql_scripts_in(
    schedule: &Schedule,
    outcome: &Outcome,
    schema: &str,
) -> Vec<(String, String)> {
    let total = schedule.order().len();
    let (buyers, steps) = scripted_steps(schedule, outcome, false);
    let steps_of = |actor: &str| steps.get(actor).cloned().unwrap_or_default();

    let label = setup_label(schedule);
    let deadlock = outcome.entries.iter().any(
        |e| matches!(&e.trace.result, Some(StepResult::Error { code, .. }) if *code == SqlState::DeadlockDetected),
    );
    let files: Vec<String> = buyers.iter().map(|b| format!("{b}.sql")).collect();
    let mut setup = format!(
        "-- Last Seat: {}\n-- {}\n--\n-- The run in psql, one terminal per buyer ({}) beside this one:\n\
         -- 1. Run this script in a terminal of its own. It creates the schema {} (nothing else of\n\
         --    the database is touched) and the scenario's {rows}.\n\
         -- 2. In each buyer's terminal, run that buyer's script up to its step 1.\n\
         -- 3. Then take the steps in order, 1 to {total}, each in the terminal of its script.\n",
        schedule.name(),
        explain::headline(schedule, outcome),
        explain::join(&files),
        quote_ident(schema),
        rows = if schedule.scenario().kind.is_counter() {
            "rows"
        } else {
            "seats"
        },
    );
    let clock_steps = steps_of(CLOCK);
    if !clock_steps.is_empty() {
        setup.push_str(
            "--    The clock's steps are at the end of this script: run each here when its turn comes.\n",
        );
    }
    setup.push_str(&format!(
        "-- When you are done: drop schema {} cascade;\n\n",
        quote_ident(schema)
    ));
    setup.push_str(&setup_sql(
        schedule,
        schema,
        &without_comments(sql::ddl_of(schedule)),
    ));
    if !clock_steps.is_empty() {
        setup.push_str(
            "\n-- The clock runs here, with the settings of every connection of a run.\n",
        );
        setup.push_str(&settings_by_hand(schema, deadlock));
        setup.push('\n');
        setup.push_str(&clock_steps);
    }

    let mut scripts = vec![(label.clone(), setup)];
    for buyer in buyers {
        let mut script = format!(
            "-- Last Seat: {}\n-- {buyer}'s terminal: open psql on the database where {label}.sql ran, run the\n\
             -- lines up to step 1, then each of {buyer}'s steps when its number comes up.\n\n",
            schedule.name()
        );
        script.push_str(&settings_by_hand(schema, deadlock));
        script.push('\n');
        let steps = steps_of(buyer);
        if steps.is_empty() {
            script.push_str(&format!("-- {buyer} has no step in this order.\n"));
        }
        script.push_str(&steps);
        scripts.push((buyer.to_string(), script));
    }
    scripts
}

/// The DDL without its comments: the migration explains itself to its maintainers, the setup
/// script to its reader (its own comments say what it does).
fn without_comments(ddl: &str) -> String {
    let mut out = String::new();
    for line in ddl.lines().filter(|l| !l.trim_start().starts_with("--")) {
        if line.trim().is_empty() && (out.is_empty() || out.ends_with("\n\n")) {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// A connection's settings for a person at a terminal: the run's, each set once, with the
/// limits a person typing the steps needs in place of the run's.
fn settings_by_hand(schema: &str, deadlock: bool) -> String {
    let by_hand = by_hand(deadlock);
    let overridden = |line: &str| {
        let name = line
            .strip_prefix("set ")
            .and_then(|l| l.split([' ', '=']).next());
        name.is_some_and(|n| by_hand.contains(&format!("set {n} =")))
    };
    let mut out: String = session_settings(schema)
        .lines()
        .filter(|l| !overridden(l))
        .map(|l| format!("{l}\n"))
        .collect();
    out.push_str(&by_hand);
    out
}

/// The settings a person typing the steps needs instead of the run's limits.
fn by_hand(deadlock: bool) -> String {
    let mut out =
        "-- Typed by hand, a step can take minutes: no statement or idle-in-transaction timeout.\n\
                   set statement_timeout = 0;\nset idle_in_transaction_session_timeout = 0;\n"
            .to_string();
    if deadlock {
        out.push_str(
            "-- This order runs into a deadlock. PostgreSQL fails the session whose deadlock_timeout\n\
             -- runs out first once the cycle is closed; at typing speed that would be whoever\n\
             -- closed it. With a long timeout it is the session that waited first, as in the run:\n\
             -- send the step that closes the cycle within 20 seconds of the first wait.\n\
             set deadlock_timeout = '20s';\n",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenarios;

    #[test]
    fn every_script_sets_each_setting_once_and_the_setup_carries_no_migration_comments() {
        for builtin in scenarios::all() {
            let (orders, _) = crate::explorer::orders(&builtin.schedule(), 1);
            let schedule = builtin.schedule().with_order(orders[0].clone());
            let outcome = crate::assess::assess(
                &schedule,
                crate::engine::simulate(&schedule).expect("the built-in order runs"),
            );
            let scripts = psql_scripts(&schedule, &outcome);
            for (name, text) in &scripts {
                for setting in [
                    "statement_timeout",
                    "idle_in_transaction_session_timeout",
                    "deadlock_timeout",
                ] {
                    let sets = text.matches(&format!("set {setting} =")).count();
                    assert!(
                        sets <= 1,
                        "{}: {name} sets {setting} {sets} times",
                        builtin.id
                    );
                }
            }
            let setup = &scripts[0].1;
            let comments = sql::SCHEMA_DDL
                .lines()
                .map(str::trim)
                .filter(|l| l.starts_with("--") && l.len() > 12);
            for comment in comments {
                assert!(!setup.contains(comment), "{}: {comment}", builtin.id);
            }
            assert!(
                setup.contains("create table"),
                "{}: the schema is still there",
                builtin.id
            );
        }
    }
}
