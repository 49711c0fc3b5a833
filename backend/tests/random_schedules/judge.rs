//! One case run in the model and on its real database (PostgreSQL, or MariaDB for a schedule
//! on InnoDB), the two outcomes compared (`shared::assess::compare`), and what the run went
//! through, tallied so that a generator that stops reaching waits or errors shows.

use std::collections::BTreeSet;

use shared::assess::{assess, compare_in};
use shared::outcome::StepResult;
use shared::schedule::Condition;
use shared::Schedule;
use sqlx::mysql::MySqlPool;
use sqlx::PgPool;

use super::Case;

/// The real database the cases run on.
#[derive(Clone)]
pub enum Target {
    Postgres(PgPool),
    Mariadb(MySqlPool),
}

/// What one case came to: agreed, disagreed where the model named a race, disagreed, or not
/// run to its end for a reason of the machine, not of the schedule (PostgreSQL too busy for the
/// deadlock the model foresees; on MariaDB a run that timed out or never got a fresh reading
/// of the lock tables; a deadlock the model foresees that PostgreSQL broke otherwise): such a
/// case is tried alone again.
pub enum Verdict {
    Agreed,
    RaceTaken,
    Disagreed(String),
    TooBusy(String),
}

/// Runs `case` in the model and on `target`: its verdict and what the run went through.
pub async fn judge(target: &Target, case: &Case) -> (Verdict, Vec<String>) {
    let schedule = &case.schedule;
    let simulated = shared::engine::simulate(schedule)
        .map(|t| assess(schedule, t))
        .map_err(|e| format!("the model refused it: {e}"));
    let real = match target {
        Target::Postgres(pool) => match backend::executor::execute(pool, schedule).await {
            Err(e @ backend::executor::ExecError::TooSlow(_)) if simulated.is_ok() => {
                return (
                    Verdict::TooBusy(format!("{}\n  {e}", case.file)),
                    Vec::new(),
                )
            }
            real => real,
        },
        Target::Mariadb(pool) => match backend::innodb::execute(pool, schedule).await {
            // Only a refusal of the order (a buyer MariaDB keeps waiting where the model does
            // not) is the schedule's doing: anything else is tried alone again.
            Err(e) if !matches!(e, backend::innodb::ExecError::Schedule(_)) => {
                return (
                    Verdict::TooBusy(format!("{}\n  {e}", case.file)),
                    Vec::new(),
                )
            }
            real => real,
        },
    };
    let real = real
        .map(|t| assess(schedule, t))
        .map_err(|e| format!("the executor failed: {e}"));
    // Which session PostgreSQL's deadlock check fails depends on the pace of the waits' starts
    // (`executor/spacing.rs`), which a machine loaded far past its cores can lose without the
    // executor seeing it: a deadlock the model foresees and PostgreSQL broke otherwise is run
    // alone again, and fails the test if it still differs then.
    let deadlock = matches!(target, Target::Postgres(_))
        && simulated
            .as_ref()
            .is_ok_and(|s| s.entries.iter().any(|e| is_deadlock(&e.trace.result)));
    let (differences, seen) = match (simulated, real) {
        (Ok(s), Ok(r)) => (compare_in(schedule, &s, &r), what_happened(schedule, &r)),
        (s, r) => (vec![format!("{:?} / {:?}", s.err(), r.err())], Vec::new()),
    };
    let verdict = if differences.is_empty() {
        Verdict::Agreed
    } else if !case.races.is_empty() {
        // The race the model named went the other way: the real run may then differ, or stop
        // where the order sends a buyer the server still keeps waiting (the executor refuses
        // the order then).
        Verdict::RaceTaken
    } else if deadlock {
        Verdict::TooBusy(format!(
            "{}\n  a deadlock broken otherwise:\n  {}",
            case.file,
            differences.join("\n  ")
        ))
    } else {
        Verdict::Disagreed(format!("{}\n  {}", case.file, differences.join("\n  ")))
    };
    (verdict, seen)
}

/// Whether a step failed with PostgreSQL's 40P01, the deadlock's victim.
fn is_deadlock(result: &Option<StepResult>) -> bool {
    matches!(result, Some(StepResult::Error { code, .. }) if code.to_string() == "40P01")
}

/// What a run went through: "a wait" if a statement waited, each SQLSTATE it raised, and
/// whether a conditional operation ran ("a retry ran", "ran while held") or was skipped, and
/// whether more buyers were told yes than a row could serve ("double booked").
pub fn what_happened(schedule: &Schedule, outcome: &shared::Outcome) -> Vec<String> {
    let mut seen = BTreeSet::new();
    if outcome.verdict.double_booked {
        seen.insert("double booked".to_string());
    }
    for e in &outcome.entries {
        if !e.trace.waited_for.is_empty() {
            seen.insert("a wait".to_string());
        }
        if e.trace.waited_for.len() >= 2 {
            // The third in a row's queue waits for the two ahead of it.
            seen.insert("a queue of 3".to_string());
        }
        let actor = schedule
            .actor_index(&e.trace.actor)
            .map(|a| &schedule.actors()[a]);
        let condition = actor.map_or(Condition::Always, |a| a.condition(e.trace.op_index));
        let skipped = e.trace.result == Some(StepResult::Skipped);
        match (condition, skipped) {
            (Condition::Always, _) => {}
            (Condition::Held, false) => {
                seen.insert("ran while held".to_string());
            }
            (Condition::Failed, false) => {
                seen.insert("a retry ran".to_string());
            }
            (_, true) => {
                seen.insert("a condition skipped it".to_string());
            }
        }
        if let Some(StepResult::Error { code, .. }) = &e.trace.result {
            seen.insert(code.to_string());
        }
    }
    seen.into_iter().collect()
}
