//! What an operation did, as a verb phrase with no subject ("locks A7 AVAILABLE", "re-reads
//! A7, sees HELD and updates no rows"), from what its trace node recorded.

use crate::outcome::{Answer, SeenRow, StepResult};
use crate::schedule::{seats_shown_from_here, Condition, Now, Op, PayOutcome, SeatStatus};

use super::super::names::title;
use super::super::stmt::Fact;
use super::super::trace::Done;
use super::{counter, join, unmet, username, Cx};

/// What an operation did, as a verb phrase (no subject).
pub(super) fn phrase(e: &Cx<'_>, op: &Op, d: &Done) -> String {
    let seats = |fact: fn(&Fact) -> bool| rows_where(e, d, fact);
    if let Some(u) = &e.username {
        if let Some(line) = username::phrase(e, u, op, d) {
            return line;
        }
    }
    if let Some(c) = e.counter {
        match (&d.result, op) {
            (StepResult::Skipped, _) if d.facts.unmet.is_none() => return counter::skipped(c, op),
            (StepResult::Ok { .. }, Op::Read { .. }) => {
                return format!("reads {}", counter::rows(c, &d.seen))
            }
            (StepResult::Ok { .. }, Op::Write { .. } | Op::Claim { .. }) => {
                return counter::updates(e, c, d)
            }
            _ => {}
        }
    }
    match (&d.result, op) {
        (StepResult::Skipped, _) if d.facts.unmet.is_some() => unmet(e, op, d),
        (StepResult::Skipped, _) => format!(
            "skips the {}: the application remembers {} as taken",
            op.name(),
            join(op.seats())
        ),
        (StepResult::RolledBack, _) => {
            "commits, but an error had aborted the transaction: the commit rolls back".to_string()
        }
        // The procedure's handler rolls its whole call back and passes the error on.
        (StepResult::Error { code, .. }, Op::Confirm { .. })
            if matches!(code, crate::sqlstate::SqlState::DuplicateEntry) =>
        {
            format!(
            "is refused the confirm: a ticket for the seat already exists, and confirm_hold rolls its whole call back, seats and tickets ({code})"
            )
        }
        (StepResult::Error { code, message }, _) => format!(
            "is refused the {}: {} ({code})",
            op.name(),
            code.reason_words(message)
        ),
        (_, Op::Begin { isolation })
            if e.schedule.actors()[d.actor].condition(d.op_index) == Condition::Failed =>
        {
            format!(
                "tries again: the last attempt failed, so a new {} transaction begins",
                isolation.as_sql().to_uppercase()
            )
        }
        (_, Op::Begin { isolation }) => {
            format!("begins a {} transaction", isolation.as_sql().to_uppercase())
        }
        (_, Op::Commit) => "commits".to_string(),
        (_, Op::Rollback) => "rolls back".to_string(),
        // A hold, its confirm and release, the Redis hold, the clock: a race for seats only.
        (
            _,
            Op::Advance { .. }
            | Op::Hold { .. }
            | Op::Confirm { .. }
            | Op::RedisHold { .. }
            | Op::RedisRelease
            | Op::Release,
        ) => holds_and_clock(e, op, d),
        (_, Op::Pay { outcome }) => match outcome {
            PayOutcome::Succeeds => "pays: the provider takes the money".to_string(),
            PayOutcome::Declined => "pays: the provider declines".to_string(),
            PayOutcome::Unknown => {
                "pays: the provider times out, the money may have moved".to_string()
            }
        },
        (_, Op::Read { .. }) => format!("reads {}", rows(e, &d.seen)),
        (_, Op::Lock { .. }) => {
            let skipped = seats(|f| *f == Fact::Skipped);
            let mut s = match e.counter {
                _ if d.seen.is_empty() => "locks nothing".to_string(),
                Some(c) => format!("locks {}", counter::rows(c, &d.seen)),
                None => format!("locks {}", rows(e, &d.seen)),
            };
            if !skipped.is_empty() {
                s.push_str(&format!(", skipping {} (locked)", join(&skipped)));
            }
            s
        }
        _ => updates(op, d, &seats(|f| *f == Fact::Took), e),
    }
}

/// What a hold, its confirm or release, a Redis hold or the clock did: only a race for seats
/// has them, and a build that shows none (chapter 6's bundle) leaves these words out.
fn holds_and_clock(e: &Cx<'_>, op: &Op, d: &Done) -> String {
    seats_shown_from_here();
    let seats = |fact: fn(&Fact) -> bool| rows_where(e, d, fact);
    match (&d.result, op) {
        (_, Op::Advance { minutes }) => {
            let unit = e.schedule.scenario().clock_unit;
            format!("moves {} on, to {}", unit.span(*minutes), unit.at(e.clock))
        }
        (StepResult::Answer { answer }, Op::Hold { seats, .. }) => match answer {
            Answer::Held => format!("holds {}", join(seats)),
            Answer::Busy => format!(
                "cannot hold {}: a seat is locked right now (NOWAIT), so nothing is held",
                join(seats)
            ),
            Answer::Unavailable => format!(
                "cannot hold {}: a seat is taken, so nothing is held",
                join(seats)
            ),
            _ => "retries the hold and finds it gone: it was replaced or ran out".to_string(),
        },
        (StepResult::Answer { answer }, Op::Confirm { .. }) => match answer {
            Answer::Issued => match op.now() {
                Now::Evaluation => {
                    "confirms the payment: the hold was intact and in time, the tickets are issued"
                        .to_string()
                }
                // The deadline test read an earlier clock: say which, since the hold may have
                // run out by now (the verdict says so when it has).
                Now::Transaction => "confirms the payment: judged by the time the transaction \
                     began, the hold looks intact and in time, so the tickets are issued"
                    .to_string(),
                Now::Statement => "confirms the payment: judged by the time the statement \
                     began, the hold looks intact and in time, so the tickets are issued"
                    .to_string(),
            },
            Answer::Duplicate => {
                "confirms again: the decision was already issued, same ticket".to_string()
            }
            _ => "confirms the payment, but the hold is gone or ran out: a refund is owed"
                .to_string(),
        },
        (StepResult::Answer { answer }, Op::RedisHold { seats }) => match answer {
            Answer::Held => {
                let scenario = e.schedule.scenario();
                let unit = scenario.clock_unit;
                format!(
                    "holds {} in Redis: SET NX found no live key; the key lives {}, to {}",
                    join(seats),
                    unit.span(scenario.hold_minutes),
                    unit.at(e.clock + scenario.hold_minutes)
                )
            }
            _ => format!(
                "cannot hold {} in Redis: SET NX found a live key, so nothing is held",
                join(seats)
            ),
        },
        (StepResult::Answer { answer }, Op::RedisRelease) => match answer {
            Answer::Released => {
                "deletes the Redis hold: the seat is free in Redis again".to_string()
            }
            _ => {
                "deletes nothing in Redis: the key had already run out or been replaced".to_string()
            }
        },
        (StepResult::Answer { answer }, Op::Release) => match answer {
            Answer::Released => format!("releases {}", join(&seats(|f| *f == Fact::Took))),
            _ => "releases nothing: the hold is no longer there".to_string(),
        },
        _ => updates(op, d, &seats(|f| *f == Fact::Took), e),
    }
}

/// The rows whose fact in `d` is one `fact` accepts, by name.
fn rows_where(e: &Cx<'_>, d: &Done, fact: fn(&Fact) -> bool) -> Vec<String> {
    d.facts
        .iter()
        .filter(|(_, f)| fact(f))
        .map(|(s, _)| e.row(s as usize))
        .collect()
}

/// An UPDATE or INSERT that ran: what it took and, for the rows it did not, what it saw.
fn updates(op: &Op, d: &Done, took: &[String], e: &Cx<'_>) -> String {
    let mut parts: Vec<String> = d
        .facts
        .iter()
        .filter_map(|(s, f)| {
            let seat = &e.names.seats[s as usize];
            match f {
                Fact::Recheck(status) => Some(format!("re-reads {seat}, sees {}", status.as_sql())),
                // The sweeper and a release scan the whole show: the rest is not news.
                Fact::NoMatch(_) if matches!(op, Op::Sweep | Op::Release) => None,
                Fact::NoMatch(status) => Some(format!("finds {seat} {}", status.as_sql())),
                _ => None,
            }
        })
        .collect();
    let did = match op {
        _ if took.is_empty() => "updates no rows".to_string(),
        Op::Claim { .. } => format!("claims {}", join(took)),
        Op::Write { status, .. } => format!("writes {} as {}", join(took), status.as_sql()),
        Op::Book { .. } => format!("inserts the ticket for {}", join(took)),
        Op::Sweep => format!("frees the expired hold on {}", join(took)),
        _ => format!("updates {}", join(took)),
    };
    let overwrote: Vec<String> = d
        .facts
        .overwritten()
        .map(|s| e.names.seats[s as usize].clone())
        .collect();
    let did = if overwrote.is_empty() {
        did
    } else {
        format!(
            "{did}, overwriting what was committed to {} after its snapshot: REPEATABLE READ's update reads the newest committed row",
            join(&overwrote)
        )
    };
    if parts.is_empty() {
        return did;
    }
    parts.push(did);
    let last = parts.pop().unwrap_or_default();
    format!("{} and {last}", parts.join(", "))
}

fn rows(e: &Cx<'_>, seen: &[SeenRow]) -> String {
    let unit = e.schedule.scenario().clock_unit;
    let each: Vec<String> = seen
        .iter()
        .map(|r| {
            let by = r
                .holder
                .as_deref()
                .map(|h| format!(" by {}", title(h)))
                .unwrap_or_default();
            match (r.status, r.until) {
                (SeatStatus::Held, Some(u)) if r.available => {
                    format!("{} HELD{by} until {} (run out)", r.seat, unit.at(u))
                }
                (SeatStatus::Held, Some(u)) => {
                    format!("{} HELD{by} until {}", r.seat, unit.at(u))
                }
                (status, _) => format!("{} {}{by}", r.seat, status.as_sql()),
            }
        })
        .collect();
    if each.is_empty() {
        "no rows".to_string()
    } else {
        join(&each)
    }
}
