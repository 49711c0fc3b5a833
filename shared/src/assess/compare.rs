//! The comparison of a simulated and a real outcome, in plain words, and what a race in the
//! model means for a real run.

use crate::outcome::{BookingRow, Outcome, SeatRow, SeenRow, StepResult, Tables, Verdict};
use crate::schedule::{ClockUnit, Database, Schedule};

/// What the model's first race means for a real run, when the order has one (`Trace::races`).
pub fn race_note(simulated: &Outcome) -> Option<String> {
    let k = *simulated.races.first()?;
    Some(format!(
        "entry {} is a race on a real server: the sessions that one commit or rollback woke run \
         in whichever order the machine picks. The model lets the one that waited first go first; \
         the real server may take another order from there",
        k + 1
    ))
}

/// The differences between a simulated and a real outcome, in plain words; empty if identical.
/// A clock in minutes, on PostgreSQL; `compare_in` names the moments in the schedule's own unit
/// and the real side by its own server.
pub fn compare(simulated: &Outcome, real: &Outcome) -> Vec<String> {
    compare_words(
        ClockUnit::Minute,
        Database::Postgresql.product(),
        simulated,
        real,
    )
}

/// The differences between a simulated and a real outcome of `schedule`, in plain words (its
/// clock's unit, its database's server); empty if identical.
pub fn compare_in(schedule: &Schedule, simulated: &Outcome, real: &Outcome) -> Vec<String> {
    let server = schedule.database().product();
    compare_words(schedule.scenario().clock_unit, server, simulated, real)
}

fn compare_words(
    unit: ClockUnit,
    server: &str,
    simulated: &Outcome,
    real: &Outcome,
) -> Vec<String> {
    let mut out = Vec::new();
    if simulated.initial != real.initial {
        out.push("the initial tables differ".to_string());
    }
    if simulated.entries.len() != real.entries.len() {
        out.push(format!(
            "the simulator ran {} entries, {server} {}",
            simulated.entries.len(),
            real.entries.len()
        ));
    }
    for (k, (s, r)) in simulated.entries.iter().zip(&real.entries).enumerate() {
        let (s, r) = (&s.trace, &r.trace);
        let what = format!(
            "entry {} ({} {})",
            k + 1,
            s.actor,
            simulated.entries[k].op.name()
        );
        if s.actor != r.actor || s.op_index != r.op_index {
            out.push(format!(
                "{what}: {server} ran {}'s operation {} instead",
                r.actor,
                r.op_index + 1
            ));
            continue;
        }
        if s.result != r.result && !same_error(&s.result, &r.result) {
            out.push(format!(
                "{what}: simulated {}, {server} {}",
                describe(&s.result),
                describe(&r.result)
            ));
        }
        if s.waited_for != r.waited_for {
            out.push(format!(
                "{what}: simulated waiting for [{}], {server} waiting for [{}]",
                s.waited_for.join(", "),
                r.waited_for.join(", ")
            ));
        }
        if s.completed_after != r.completed_after {
            out.push(format!(
                "{what}: simulated completing {}, {server} {}",
                when(s.completed_after),
                when(r.completed_after)
            ));
        }
        if s.seen != r.seen {
            out.push(format!(
                "{what}: the rows returned differ: simulated {}, {server} {}",
                seen_rows(&s.seen),
                seen_rows(&r.seen)
            ));
        }
        if s.tables != r.tables {
            out.push(format!(
                "{what}: the stored tables differ afterwards: {}",
                diff_tables(&s.tables, &r.tables, unit)
            ));
        }
    }
    if simulated.seats != real.seats {
        out.push("the seats at the end differ (status, holder, told or tickets)".to_string());
    }
    if simulated.verdict != real.verdict {
        out.push(format!(
            "the verdict differs: simulated {}, {server} {}",
            verdict_words(&simulated.verdict),
            verdict_words(&real.verdict)
        ));
    }
    out
}

/// Errors are equal when their SQLSTATEs are: the message is PostgreSQL's wording, shown, not
/// compared.
fn same_error(a: &Option<StepResult>, b: &Option<StepResult>) -> bool {
    matches!((a, b), (Some(StepResult::Error { code: x, .. }), Some(StepResult::Error { code: y, .. })) if x == y)
}

fn describe(r: &Option<StepResult>) -> String {
    r.as_ref()
        .map(StepResult::short)
        .unwrap_or_else(|| "still waiting".to_string())
}

fn when(at: Option<usize>) -> String {
    at.map(|k| format!("during entry {}", k + 1))
        .unwrap_or_else(|| "never".to_string())
}

fn diff_tables(s: &Tables, r: &Tables, unit: ClockUnit) -> String {
    let mut parts = Vec::new();
    if s.clock != r.clock {
        parts.push(format!("clock {} vs {}", s.clock, r.clock));
    }
    for (a, b) in s.seats.iter().zip(&r.seats) {
        if a != b {
            parts.push(format!("{} vs {}", seat_row(a, unit), seat_row(b, unit)));
        }
    }
    if s.bookings != r.bookings {
        parts.push(format!(
            "{} vs {}",
            tickets(&s.bookings),
            tickets(&r.bookings)
        ));
    }
    if s.refunds != r.refunds {
        parts.push(format!(
            "refunds owed to [{}] vs [{}]",
            s.refunds.join(", "),
            r.refunds.join(", ")
        ));
    }
    parts.join("; ")
}

/// A seat row in a difference: `A3 HELD by ana (hold ana:3) until minute 10`; a counter's row
/// by its value: `joint = -50`.
fn seat_row(row: &SeatRow, unit: ClockUnit) -> String {
    if let Some(value) = row.value {
        return format!("{} = {value}", row.id);
    }
    let mut text = format!("{} {}", row.id, row.status.as_sql());
    if let Some(holder) = &row.holder {
        text.push_str(&format!(" by {holder}"));
    }
    if let Some(hold) = &row.hold_id {
        text.push_str(&format!(" (hold {hold})"));
    }
    if let Some(until) = row.until {
        text.push_str(&format!(" until {}", unit.at(until)));
    }
    text
}

/// The ticket rows in a difference: `tickets A2 to ana (ana:3), A3 to ben (ben:4)`.
fn tickets(rows: &[BookingRow]) -> String {
    if rows.is_empty() {
        return "no tickets".to_string();
    }
    let rows: Vec<String> = rows
        .iter()
        .map(|b| format!("{} to {} ({})", b.seat, b.holder, b.booking_id))
        .collect();
    format!("tickets {}", rows.join(", "))
}

/// The rows a statement returned, in a difference: `[A1 AVAILABLE, A2 HELD by ana]`, or a
/// counter's `[joint = 150]`.
fn seen_rows(rows: &[SeenRow]) -> String {
    let rows: Vec<String> = rows
        .iter()
        .map(|r| match (&r.holder, r.value) {
            (_, Some(value)) => format!("{} = {value}", r.seat),
            (Some(holder), None) => format!("{} {} by {holder}", r.seat, r.status.as_sql()),
            (None, None) => format!("{} {}", r.seat, r.status.as_sql()),
        })
        .collect();
    format!("[{}]", rows.join(", "))
}

/// A verdict in a difference: what went wrong, or "nothing wrong".
fn verdict_words(v: &Verdict) -> String {
    let problems = v.problems();
    if problems.is_empty() {
        "nothing wrong".to_string()
    } else {
        problems.join(", ")
    }
}
