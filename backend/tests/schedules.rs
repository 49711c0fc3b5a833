//! Every exported schedule under `schedules/` and every built-in scenario, replayed: the
//! simulator and PostgreSQL agree, and the schedule's `expect` holds.

mod common;

use backend::executor::{execute, ExecError};
use backend::replay::{describe, replay, replay_file, ReplayError};
use common::{pool, schedule_files};

#[tokio::test]
async fn every_exported_schedule_agrees_with_postgres_and_meets_its_expect() {
    let pool = pool().await;
    let mut failed = Vec::new();
    for path in schedule_files() {
        let result = replay_file(&pool, &path).await;
        if !result.as_ref().is_ok_and(|r| r.passed()) {
            failed.push(describe(&path.display().to_string(), &result));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// A file's `expect` is one outcome, so its order must be one whose outcome PostgreSQL decides
/// alone: where the model names a race, a loaded machine takes the other way now and then.
#[test]
fn no_exported_schedule_leaves_its_outcome_to_a_race() {
    let mut racy = Vec::new();
    for path in schedule_files() {
        let text = std::fs::read_to_string(&path).expect("a schedule file");
        let schedule = shared::schedule::Schedule::parse_json(&text).expect("a valid schedule");
        let trace = shared::engine::simulate(&schedule).expect("the model runs it");
        if !trace.races.is_empty() {
            racy.push(format!("{}: entries {:?}", path.display(), trace.races));
        }
    }
    assert!(
        racy.is_empty(),
        "these files' orders leave their outcome to a race between sessions one commit woke; \
         give each an order without one:\n{}",
        racy.join("\n")
    );
}

#[tokio::test]
async fn every_builtin_scenario_as_written_runs_alike_on_postgres_and_in_the_simulator() {
    let pool = pool().await;
    let mut failed = Vec::new();
    for builtin in shared::scenarios::all() {
        let schedule = builtin.schedule();
        match replay(&pool, &schedule).await {
            Ok(r) if r.passed() => {}
            Ok(r) => failed.push(format!(
                "{}: {:?} {:?}",
                builtin.id, r.differences, r.expect_failures
            )),
            // An order the model refuses must be refused by PostgreSQL too, in the same words.
            Err(ReplayError::Invalid(model)) => match execute(&pool, &schedule).await {
                Err(ExecError::Schedule(real)) if real == model => {}
                other => failed.push(format!(
                    "{}: the model says {model}, the executor {other:?}",
                    builtin.id
                )),
            },
            Err(e) => failed.push(format!("{}: {e}", builtin.id)),
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
