//! One step of a psql script: its heading, its SQL (or why nothing is sent), and what
//! PostgreSQL answers, as psql prints it in short.

use std::collections::BTreeMap;

use crate::explain;
use crate::export::{step_heading, unmet_words, Sent};
use crate::outcome::{Answer, Outcome, SeenRow, StepResult};
use crate::schedule::{ClockUnit, Op, Schedule, SeatStatus, CLOCK};
use crate::sql::Param;

/// The buyers who get a script of their own (every actor but the clock), and every actor's
/// steps as its script writes them, in psql's words or (`mysql`) the mysql client's.
pub(in crate::export) fn scripted_steps<'s>(
    schedule: &'s Schedule,
    outcome: &Outcome,
    mysql: bool,
) -> (Vec<&'s str>, BTreeMap<String, String>) {
    let plan = super::super::plan(schedule, outcome);
    let (total, unit) = (schedule.order().len(), schedule.scenario().clock_unit);
    let mut steps: BTreeMap<String, String> = BTreeMap::new();
    for sent in &plan {
        let text = step(&plan, sent, total, outcome, unit, mysql);
        steps
            .entry(sent.actor.name.clone())
            .or_default()
            .push_str(&text);
    }
    let buyers = schedule
        .actors()
        .iter()
        .map(|a| a.name.as_str())
        .filter(|&n| n != CLOCK)
        .collect();
    (buyers, steps)
}

/// One step: its heading, its SQL (or why nothing is sent), and what PostgreSQL answers, the
/// clock's moments in `unit`.
fn step(
    plan: &[Sent<'_>],
    sent: &Sent<'_>,
    total: usize,
    outcome: &Outcome,
    unit: ClockUnit,
    mysql: bool,
) -> String {
    let mut out = format!(
        "-- {}: {}\n",
        step_heading(plan, sent.k, total),
        sent.what(unit)
    );
    let Some(statement) = &sent.statement else {
        let why = match (sent.op, sent.result()) {
            _ if sent.unmet.is_some() => {
                unmet_words(sent, sent.unmet.expect("a condition that did not hold"))
            }
            (Op::Pay { .. }, _) => "No SQL: the payment provider is not the database.".to_string(),
            (op, result) if op.is_redis() => format!(
                "No SQL: Redis, not the database (simulated in the run). In redis-cli:\n--   {}\n-- Redis answers: {}",
                sent.redis.as_deref().unwrap_or(""),
                result.map_or("(not run)".to_string(), |r| r.short())
            ),
            (_, Some(StepResult::Skipped)) if sent.username().is_some() => {
                let u = sent.username().expect("a username");
                super::super::username::not_sent(&sent.actor.name, u)
            }
            (_, Some(StepResult::Skipped)) if sent.counter.is_some() => {
                let c = sent.counter.expect("a counter");
                let first = sent.op.seats().first().map_or("", String::as_str);
                format!(
                    "Not sent: {}'s application did not see {}, so it says \"{}\" instead.",
                    sent.actor.name,
                    c.enough_in(first),
                    c.refused(first)
                )
            }
            (_, Some(StepResult::Skipped)) => format!(
                "Not sent: {} remembers {} as taken, so the application says sold out instead.",
                sent.actor.name,
                explain::join(sent.op.seats())
            ),
            _ => "Nothing is sent.".to_string(),
        };
        out.push_str(&format!("-- {why}\n\n"));
        return out;
    };
    let (text, server) = match mysql {
        false => (statement.to_psql(), "PostgreSQL"),
        true => (statement.to_mysql(), "MariaDB"),
    };
    out.push_str(&text);
    out.push_str(";\n");
    // The hold a `release` names is its second parameter in both dialects.
    let hold = statement.params.get(1);
    let answer = match mysql {
        false => answer(sent, hold, outcome, unit),
        true => mysql_answer(sent, hold, outcome, unit),
    };
    let line = match (sent.waited(), sent.completed_after(), sent.entry) {
        (false, _, _) => format!("{server} answers: {answer}"),
        (true, done, Some(e)) => {
            let on = explain::join(&e.trace.waited_for);
            let on = if on.is_empty() {
                "a lock".to_string()
            } else {
                on
            };
            match done {
                Some(c) => format!(
                    "This waits for {on}; step {} lets it go on, and {server} answers: {answer}",
                    c + 1
                ),
                None => format!("This waits for {on}, and is still waiting when the order ends."),
            }
        }
        (true, _, None) => "Not run: the outcome ends before this step.".to_string(),
    };
    out.push_str(&format!("-- {line}\n\n"));
    out
}

/// What psql prints for the step's statement, in short. `hold` is the statement's second
/// parameter (the hold a `release` names).
fn answer(sent: &Sent<'_>, hold: Option<&Param>, outcome: &Outcome, unit: ClockUnit) -> String {
    let Some(result) = sent.result() else {
        return "nothing yet".to_string();
    };
    let after = sent
        .completed_after()
        .and_then(|c| outcome.entries.get(c))
        .map(|e| &e.trace.tables);
    match (sent.op, result) {
        (_, StepResult::Error { code, message }) => {
            format!("ERROR: {} ({code})", message)
        }
        (_, StepResult::RolledBack) => "ROLLBACK (the transaction had failed)".to_string(),
        (Op::Begin { .. }, _) => "BEGIN".to_string(),
        (Op::Commit, _) => "COMMIT".to_string(),
        (Op::Rollback, _) => "ROLLBACK".to_string(),
        (Op::Read { .. } | Op::Lock { .. }, _) if sent.username().is_some() => {
            let u = sent.username().expect("a username");
            super::super::username::seen(sent.entry.map_or(&[][..], |e| &e.trace.seen), u)
        }
        (Op::Read { .. } | Op::Lock { .. }, _) => {
            rows(sent.entry.map_or(&[][..], |e| &e.trace.seen), unit, sent)
        }
        (Op::Write { .. } | Op::Claim { .. }, StepResult::Ok { rows })
            if sent.username().is_some() =>
        {
            format!("INSERT 0 {}", rows.unwrap_or(0))
        }
        (Op::Book { .. }, StepResult::Ok { rows }) => format!("INSERT 0 {}", rows.unwrap_or(0)),
        (Op::Write { .. } | Op::Claim { .. } | Op::Sweep, StepResult::Ok { rows }) => {
            format!("UPDATE {}", rows.unwrap_or(0))
        }
        (Op::Hold { .. }, StepResult::Answer { answer }) => {
            format!("hold_seats = {}", answer.as_str())
        }
        (Op::Confirm { .. }, StepResult::Answer { answer }) => {
            format!("confirm_hold = {}", answer.as_str())
        }
        (
            Op::Release,
            StepResult::Answer {
                answer: Answer::Released,
            },
        ) => {
            let before = sent
                .completed_after()
                .and_then(|c| c.checked_sub(1))
                .and_then(|p| outcome.entries.get(p))
                .map_or(&outcome.initial, |e| &e.trace.tables);
            let released = before
                .seats
                .iter()
                .filter(|r| r.status == SeatStatus::Held)
                .filter(|r| matches!(hold, Some(Param::Text(h)) if r.hold_id.as_ref() == Some(h)))
                .count();
            format!("UPDATE {}", released.max(1))
        }
        (Op::Release, _) => "UPDATE 0".to_string(),
        (Op::Advance { .. }, _) => format!("setval = {}", after.map_or(0, |t| t.clock)),
        (_, other) => other.short(),
    }
}

/// What the mysql client prints for the step's statement, in short: MySQL's words for the same
/// answers (`hold` as in `answer`).
fn mysql_answer(
    sent: &Sent<'_>,
    hold: Option<&Param>,
    outcome: &Outcome,
    unit: ClockUnit,
) -> String {
    let Some(result) = sent.result() else {
        return "nothing yet".to_string();
    };
    let affected = |n: u64| {
        format!(
            "Query OK, {n} row{} affected",
            if n == 1 { "" } else { "s" }
        )
    };
    match (sent.op, result) {
        (_, StepResult::Error { code, message }) => format!(
            "ERROR {code} ({}): {}",
            code.mysql_sqlstate().unwrap_or("HY000"),
            message
        ),
        (Op::Begin { .. } | Op::Commit | Op::Rollback, _) => {
            "Query OK, 0 rows affected".to_string()
        }
        (
            Op::Book { .. } | Op::Write { .. } | Op::Claim { .. } | Op::Sweep,
            StepResult::Ok { rows },
        ) => affected(rows.unwrap_or(0)),
        (Op::Release, _) => match answer(sent, hold, outcome, unit).strip_prefix("UPDATE ") {
            Some(n) => affected(n.parse().unwrap_or(0)),
            None => affected(0),
        },
        (Op::Advance { .. }, _) => affected(1),
        _ => answer(sent, hold, outcome, unit),
    }
}

/// The rows a read or lock returns: "1 row: A7 AVAILABLE".
fn rows(seen: &[SeenRow], unit: ClockUnit, sent: &Sent<'_>) -> String {
    let count = match seen.len() {
        1 => "1 row".to_string(),
        n => format!("{n} rows"),
    };
    if seen.is_empty() {
        return count;
    }
    let rows: Vec<String> = seen
        .iter()
        .map(|r| {
            if let (Some(c), Some(v)) = (sent.counter, r.value) {
                return c.with_value(&r.seat, v);
            }
            let mut row = format!("{} {}", r.seat, r.status.as_sql());
            if let Some(h) = &r.holder {
                row.push_str(&format!(" by {h}"));
            }
            if let Some(u) = r.until {
                row.push_str(&format!(" until {}", unit.at(u)));
            }
            row
        })
        .collect();
    format!("{count}: {}", rows.join(", "))
}
