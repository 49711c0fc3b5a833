//! The one plain-English line of each entry: what the operation did and why, and whom the
//! entry released ("Adam commits; this releases Omar, who re-reads A7, sees HELD and updates
//! no rows"). Written from what the entry's trace node recorded, so it can be rendered late.

use crate::outcome::{Answer, SeenRow, StepResult};
use crate::schedule::{Condition, Now, Op, PayOutcome, Schedule, SeatStatus};

use super::locks::WaitOn;
use super::names::{title, Names};
use super::stmt::Fact;
use super::trace::{Done, Node};

/// What the reason line needs: the run's strings and programs, and the clock after the entry.
struct Cx<'a> {
    names: &'a Names,
    schedule: &'a Schedule,
    clock: i64,
}

/// The reason line of an entry.
pub(crate) fn line(names: &Names, schedule: &Schedule, node: &Node) -> String {
    let e = Cx {
        names,
        schedule,
        clock: node.committed.clock,
    };
    let op = &schedule.actors()[node.actor].program[node.op_index];
    let who = subject(&e, node.actor, op);
    let ev = &node.events;
    let own = match ev.done.iter().find(|d| d.entry == node.k) {
        Some(d) => format!("{who} {}", phrase(&e, op, d)),
        None => format!("{who} waits: {}", waiting(&e, node)),
    };
    let others = ev.done.iter().filter(|d| d.entry != node.k);
    let victims: Vec<String> = others
        .clone()
        .filter(|d| ev.victims.contains(&d.actor))
        .map(|d| subject(&e, d.actor, op_of(&e, d)))
        .collect();
    let released: Vec<String> = others
        .filter(|d| !ev.victims.contains(&d.actor))
        .map(|d| {
            let (who, op) = (subject(&e, d.actor, op_of(&e, d)), op_of(&e, d));
            format!("{who}, who {}", phrase(&e, op, d))
        })
        .collect();
    // A deadlock is broken before anything it held up goes on: say so first.
    let mut line = match victims.len() {
        0 => own,
        n => format!(
            "deadlock: {}, whose deadlock check runs first, {} (40P01, deadlock detected); {own}",
            join(&victims),
            if n == 1 { "fails" } else { "fail" }
        ),
    };
    if !released.is_empty() {
        line.push_str("; this releases ");
        line.push_str(&released.join("; and "));
    }
    title(&line)
}

fn op_of<'s>(e: &Cx<'s>, d: &Done) -> &'s Op {
    &e.schedule.actors()[d.actor].program[d.op_index]
}

/// Who does it: the actor's name, capitalised; the clock actor by its role.
fn subject(e: &Cx<'_>, actor: usize, op: &Op) -> String {
    match op {
        Op::Advance { .. } => "the clock".to_string(),
        Op::Sweep => "the sweeper".to_string(),
        _ => title(&e.names.names[actor]),
    }
}

/// Why the entry's operation waits, in words.
fn waiting(e: &Cx<'_>, node: &Node) -> String {
    let names: Vec<String> = node
        .blockers
        .iter()
        .map(|&b| title(&e.names.names[b]))
        .collect();
    let Some(w) = node.wait else {
        return "for a lock".to_string();
    };
    let seat = &e.names.seats[w.seat as usize];
    match w.on {
        WaitOn::Xact(_) => format!(
            "{} inserted a ticket for {seat} and has not committed yet",
            join(&names)
        ),
        WaitOn::Update(..) => format!(
            "{} is updating {seat}, which must be re-checked",
            join(&names)
        ),
        WaitOn::Row(..) if w.for_holder => format!("{} holds the row lock on {seat}", join(&names)),
        WaitOn::Row(..) => {
            format!(
                "{} {} ahead in the queue for {seat}",
                join(&names),
                if names.len() == 1 { "is" } else { "are" }
            )
        }
    }
}

/// Why an operation whose condition did not hold was not sent, as a verb phrase.
fn unmet(e: &Cx<'_>, op: &Op, d: &Done) -> String {
    let actor = &e.schedule.actors()[d.actor];
    let what = match op {
        Op::Pay { .. } => "does not pay".to_string(),
        Op::Confirm { .. } => "sends no confirmation".to_string(),
        op => format!("skips the {}", op.name()),
    };
    let attempt = actor.condition(d.op_index) == Condition::Failed;
    let in_skipped_tx = !matches!(op, Op::Begin { .. })
        && actor.program[..d.op_index]
            .iter()
            .rposition(|o| matches!(o, Op::Begin { .. }))
            .is_some_and(|b| {
                !actor.program[b..d.op_index]
                    .iter()
                    .any(|o| matches!(o, Op::Commit | Op::Rollback))
            });
    match (attempt, in_skipped_tx) {
        (true, true) => format!("{what}: the retry it belongs to is not needed"),
        (true, false) => format!(
            "{what}: the last attempt did not fail with a serialization failure (40001), a deadlock (40P01) or a busy row (55P03), so there is nothing to retry"
        ),
        (false, true) => format!("{what}: the transaction it belongs to did not start"),
        (false, false) => format!("{what}: the application was never told the seats are held"),
    }
}

/// What an operation did, as a verb phrase (no subject).
fn phrase(e: &Cx<'_>, op: &Op, d: &Done) -> String {
    let seats = |fact: fn(&Fact) -> bool| -> Vec<String> {
        d.facts
            .iter()
            .filter(|(_, f)| fact(f))
            .map(|(s, _)| e.names.seats[s as usize].clone())
            .collect()
    };
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
        (_, Op::Advance { minutes }) => {
            let unit = e.schedule.scenario().clock_unit;
            format!("moves {} on, to {}", unit.span(*minutes), unit.at(e.clock))
        }
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
            let mut s = if d.seen.is_empty() {
                "locks nothing".to_string()
            } else {
                format!("locks {}", rows(e, &d.seen))
            };
            if !skipped.is_empty() {
                s.push_str(&format!(", skipping {} (locked)", join(&skipped)));
            }
            s
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

/// "A7", "A7 and A8", "A12, A13 and A14".
pub(crate) fn join<S: AsRef<str>>(items: &[S]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_string(),
        [init @ .., last] => {
            format!(
                "{} and {}",
                init.iter()
                    .map(|s| s.as_ref())
                    .collect::<Vec<_>>()
                    .join(", "),
                last.as_ref()
            )
        }
    }
}
