//! An entry in words, for the comments of the scripts: what it does, why a skipped one sent
//! nothing, and the heading of its step.

use super::Sent;
use crate::counter_words::CounterWords;
use crate::explain;
use crate::schedule::{ClockUnit, Condition, Op, Wait};

/// What an entry does, in a few words, for the comments of the scripts: "adam reads A7"; `unit`
/// is the schedule's clock's, `counter` the shape's words on a counter's rows ("adam withdraws
/// 100 from the joint account, only if 100 is still there").
pub(super) fn what(actor: &str, op: &Op, unit: ClockUnit, counter: Option<CounterWords>) -> String {
    if let Some(c) = counter {
        let rows = explain::join(&op.seats().iter().map(|id| c.row(id)).collect::<Vec<_>>());
        let takes = explain::join(
            &op.seats()
                .iter()
                .map(|id| c.takes(id, None))
                .collect::<Vec<_>>(),
        );
        match op {
            Op::Read { .. } => return format!("{actor} reads {rows}"),
            Op::Lock { wait, .. } => {
                let how = match wait {
                    Wait::Wait => "",
                    Wait::Nowait => " without waiting (nowait)",
                    Wait::SkipLocked => ", skipping locked rows",
                };
                return format!("{actor} locks {rows}{how}");
            }
            Op::Write { .. } => {
                return format!(
                    "{actor} {takes}, whatever is there now (the application checked first)"
                )
            }
            Op::Claim { .. } => return format!("{actor} {takes}, {}", c.still_enough()),
            _ => {}
        }
    }
    let seats = explain::join(op.seats());
    match op {
        Op::Begin { isolation } => format!("{actor} begins a {} transaction", isolation.as_sql()),
        Op::Commit => format!("{actor} commits"),
        Op::Rollback => format!("{actor} rolls back"),
        Op::Read { .. } => format!("{actor} reads {seats}"),
        Op::Lock { wait, .. } => format!(
            "{actor} locks {seats}{}",
            match wait {
                Wait::Wait => "",
                Wait::Nowait => " without waiting (nowait)",
                Wait::SkipLocked => ", skipping locked rows",
            }
        ),
        Op::Write { status, .. } => format!("{actor} writes {seats} as {}", status.as_sql()),
        Op::Claim { .. } => format!("{actor} claims {seats} if it is still free"),
        Op::Book { .. } => format!("{actor} inserts the ticket for {seats}"),
        Op::Hold { attempt, .. } => match attempt {
            Some(a) => format!("{actor} holds {seats} (attempt {a})"),
            None => format!("{actor} holds {seats}"),
        },
        Op::Confirm { .. } => format!("{actor}'s payment webhook confirms the hold"),
        Op::Pay { .. } => format!("{actor} pays the payment provider"),
        Op::Release => format!("{actor} releases the hold"),
        Op::RedisHold { .. } => format!("{actor} holds {seats} in Redis (SET NX with a TTL)"),
        Op::RedisRelease => format!("{actor} deletes its Redis hold"),
        Op::Advance { minutes } => format!("the clock moves {}", unit.span(*minutes)),
        Op::Sweep => "the sweeper frees the holds that ran out".to_string(),
    }
}

/// Why an entry whose condition did not hold sent nothing, for the comments of the scripts.
pub(super) fn unmet_words(sent: &Sent<'_>, condition: Condition) -> String {
    let name = &sent.actor.name;
    match condition {
        Condition::Failed => format!(
            "Skipped: a retry, and {name}'s last attempt did not fail with 40001, 40P01 or 55P03, so {name} does not try again."
        ),
        _ => match sent.counter {
            Some(c) => format!(
                "Skipped: {name} does this only once told it got {} (\"if\": \"held\"), and it was not.",
                c.request()
            ),
            None => format!(
                "Skipped: {name} does this only while it holds its seats (\"if\": \"held\"), and it was not told it has them."
            ),
        },
    }
}

/// "step 3 of 8 (after omar's read)".
pub(super) fn step_heading(plan: &[Sent<'_>], k: usize, total: usize) -> String {
    match k.checked_sub(1).and_then(|p| plan.get(p)) {
        Some(prev) => format!(
            "step {} of {total} (after {}'s {})",
            k + 1,
            prev.actor.name,
            prev.op.name()
        ),
        None => format!("step {} of {total}", k + 1),
    }
}
