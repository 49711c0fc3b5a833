//! The conditions of a program's operations (`"if": "held"` / `"failed"`): each one checked
//! where it is written, against what comes before it in the program.

use super::{Condition, Op, Scenario, ScheduleError, SeatStatus};

/// The condition of `op`, the next operation of a program that so far is `program` with
/// `conditions`: the one written (`None`: none), checked. Inside a transaction every
/// operation runs or is skipped with its `begin`, so it carries the begin's condition
/// (written again or left out); a condition needs something earlier for it to test.
pub(super) fn check(
    field: &str,
    actor: &str,
    op: &Op,
    written: Option<Condition>,
    program: &[Op],
    conditions: &[Condition],
    scenario: &Scenario,
) -> Result<Condition, ScheduleError> {
    let at = format!("{field}.if");
    let open_begin = program
        .iter()
        .rposition(|o| matches!(o, Op::Begin { .. }))
        .filter(|&b| {
            !program[b..]
                .iter()
                .any(|o| matches!(o, Op::Commit | Op::Rollback))
        });
    if let Some(b) = open_begin {
        let inherited = conditions[b];
        return match written {
            Some(c) if c != inherited => Err(ScheduleError::new(
                at,
                format!(
                    "inside a transaction every operation runs or is skipped with its begin (actors.{actor}[{b}]), whose condition is {}: give this {} the same \"if\" or none",
                    condition_words(inherited),
                    op.name(),
                ),
            )),
            _ => Ok(inherited),
        };
    }
    let Some(condition) = written else {
        return Ok(Condition::Always);
    };
    if op.is_clock_op() {
        return Err(ScheduleError::new(
            at,
            format!("the clock's {} always runs: remove \"if\"", op.name()),
        ));
    }
    match condition {
        Condition::Always => {}
        Condition::Held => {
            let held_at_start = scenario
                .seats
                .iter()
                .any(|s| s.holder.as_deref() == Some(actor) && s.status != SeatStatus::Available);
            if !held_at_start && !program.iter().any(Op::takes_seats) {
                return Err(ScheduleError::new(
                    at,
                    format!(
                        "\"if\": \"held\" on a {} that nothing before it could have got seats for: put a hold, redis_hold, claim, write or book before it, or remove \"if\"",
                        op.name()
                    ),
                ));
            }
        }
        Condition::Failed => {
            let mut in_tx = false;
            let attempted = program.iter().any(|o| match o {
                Op::Begin { .. } => {
                    in_tx = true;
                    false
                }
                Op::Commit | Op::Rollback => {
                    in_tx = false;
                    true
                }
                Op::Hold { .. } => true,
                o => o.is_statement() && !in_tx,
            });
            if !attempted {
                return Err(ScheduleError::new(
                    at,
                    format!(
                        "\"if\": \"failed\" on a {} with no earlier attempt that could fail: a retry comes after a transaction (begin … commit), a statement of its own or a hold; put the first attempt before it, or remove \"if\"",
                        op.name()
                    ),
                ));
            }
        }
    }
    Ok(condition)
}

/// A condition in a few words, as the errors say it.
fn condition_words(condition: Condition) -> &'static str {
    match condition {
        Condition::Always => "none (it always runs)",
        Condition::Held => "\"held\"",
        Condition::Failed => "\"failed\"",
    }
}
