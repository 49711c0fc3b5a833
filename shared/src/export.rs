//! Reproduce it yourself: a schedule and its outcome as a JSON fixture for `schedules/`, as one
//! psql script per buyer beside a setup script, and as an isolation-tester spec with the output
//! it must print.
//!
//! The SQL is `sql.rs`'s, built by the very `Clients` that the executor and the simulator drive,
//! fed with the outcome's answers: every literal (a hold id, a clock reading) is the one the
//! run sent. The setup is the executor's: the migration text in a schema of its own, the seats,
//! the clock's start, and `SESSION_SETTINGS` on every connection.

mod isolation;
mod json;
mod psql;

use std::collections::BTreeSet;

pub use isolation::{isolation_spec, isolation_spec_in};
pub use psql::{psql_scripts, psql_scripts_in};

use crate::client::{Action, Clients};
use crate::explain;
use crate::outcome::{Entry, Outcome, StepResult};
use crate::schedule::{
    Actor, ClockUnit, Condition, Expect, FinalSeat, Op, Schedule, SeatStatus, Wait,
};
use crate::sql::{self, Param, Statement};

/// The schema the exports create and drop: nothing else of the database is touched.
pub const SCHEMA: &str = "last_seat";

/// The label of the setup script, the first of the psql scripts: `setup`, with a `_` in front
/// for as long as an actor has that name.
pub fn setup_label(schedule: &Schedule) -> String {
    let mut label = "setup".to_string();
    while schedule.actor_index(&label).is_some() {
        label.insert(0, '_');
    }
    label
}

/// The schedule as a fixture for `schedules/` (format v1), its `expect` filled from the
/// outcome: every step, the verdict, who was told they got each seat and how each seat ended
/// (for every seat the run touched). The fixture meets its `expect` against this outcome. An
/// outcome of the first entries only (a playhead half-way) gives the fixture of those entries.
pub fn fixture_json(schedule: &Schedule, outcome: &Outcome) -> String {
    let ran = outcome.entries.len().min(schedule.order().len());
    let mut schedule = schedule.with_order(schedule.order()[..ran].to_vec());
    schedule.set_expect(Some(expect_of(&schedule, outcome)));
    let mut file = schedule.to_file();
    file.description = Some(explain::headline(&schedule, outcome));
    let value = serde_json::to_value(&file).expect("schedule files serialise");
    json::pretty(&value)
}

/// The SQL each entry of the order sent, as psql would take it (`None` for an entry that sent
/// nothing to the database: a skipped write, a payment, a Redis op), in the order's order.
pub fn entry_sql(schedule: &Schedule, outcome: &Outcome) -> Vec<Option<String>> {
    plan(schedule, outcome)
        .into_iter()
        .map(|s| s.statement.map(|st| st.to_psql()))
        .collect()
}

/// What each entry of the order sent: its SQL as psql would take it, or for a Redis op its
/// command as redis-cli would (`None` for a skipped write or a payment).
pub fn entry_commands(schedule: &Schedule, outcome: &Outcome) -> Vec<Option<String>> {
    plan(schedule, outcome)
        .into_iter()
        .map(|s| s.statement.map(|st| st.to_psql()).or(s.redis))
        .collect()
}

/// Everything `check_expect` looks at, as this outcome has it.
fn expect_of(schedule: &Schedule, outcome: &Outcome) -> Expect {
    let seats = touched_seats(schedule, outcome);
    let v = &outcome.verdict;
    Expect {
        double_booked: Some(v.double_booked),
        lost_seat: Some(v.lost_seat),
        refund_due: Some(v.refund_due.clone()),
        unpaid_hold: Some(v.unpaid_hold.clone()),
        booked_late: Some(v.booked_late.clone()),
        told: Some(
            outcome
                .seats
                .iter()
                .filter(|(id, _)| seats.contains(*id))
                .map(|(id, s)| (id.clone(), s.told.clone()))
                .collect(),
        ),
        final_seats: Some(
            outcome
                .seats
                .iter()
                .filter(|(id, _)| seats.contains(*id))
                .map(|(id, s)| {
                    let seat = FinalSeat {
                        status: s.status,
                        holder: s.holder.clone(),
                    };
                    (id.clone(), seat)
                })
                .collect(),
        ),
        steps: Some(outcome.steps()),
    }
}

/// Seats an operation names, seats that start or end taken, and seats someone was told about.
fn touched_seats(schedule: &Schedule, outcome: &Outcome) -> BTreeSet<String> {
    let mut seats: BTreeSet<String> = schedule
        .actors()
        .iter()
        .flat_map(|a| a.program.iter().flat_map(|op| op.seats().iter().cloned()))
        .collect();
    seats.extend(
        schedule
            .scenario()
            .seats
            .iter()
            .filter(|s| s.status != SeatStatus::Available)
            .map(|s| s.id.clone()),
    );
    seats.extend(
        outcome
            .seats
            .iter()
            .filter(|(_, s)| s.status != SeatStatus::Available || !s.told.is_empty())
            .map(|(id, _)| id.clone()),
    );
    seats
}

/// One entry of the order as the client carried it out.
struct Sent<'a> {
    /// Its index in the order.
    k: usize,
    actor: &'a Actor,
    op: &'a Op,
    /// What was sent; `None` when nothing was (a skipped write, a payment, a Redis op).
    statement: Option<Statement>,
    /// The Redis command of a Redis op (Redis is simulated: it is shown, never sent).
    redis: Option<String>,
    /// Not sent because its condition (`"if"`) did not hold in this order.
    unmet: Option<Condition>,
    /// What it did, from the outcome.
    entry: Option<&'a Entry>,
}

impl Sent<'_> {
    fn result(&self) -> Option<&StepResult> {
        self.entry.and_then(|e| e.trace.result.as_ref())
    }

    fn completed_after(&self) -> Option<usize> {
        self.entry.and_then(|e| e.trace.completed_after)
    }

    fn waited(&self) -> bool {
        self.completed_after() != Some(self.k)
    }
}

/// Drives `Clients` through the order as the executor does, answering each operation with the
/// outcome's result at the entry where it completed, so that each statement is built from the
/// client state it was built from in the run. Stops early if the outcome is not this
/// schedule's.
fn plan<'a>(schedule: &'a Schedule, outcome: &'a Outcome) -> Vec<Sent<'a>> {
    plan_upto(schedule, outcome, schedule.order().len()).0
}

/// The client side once the first `step` entries of the order have run, fed with the
/// outcome's answers: what each buyer remembers, its hold, the simulated Redis's keys.
pub fn clients_at(schedule: &Schedule, outcome: &Outcome, step: usize) -> Clients {
    plan_upto(schedule, outcome, step).1
}

/// `plan` of the first `upto` entries, with the client side after them.
fn plan_upto<'a>(
    schedule: &'a Schedule,
    outcome: &'a Outcome,
    upto: usize,
) -> (Vec<Sent<'a>>, Clients) {
    let entries = &outcome.entries;
    let mut done_at: Vec<Vec<usize>> = vec![Vec::new(); schedule.order().len()];
    for (j, e) in entries.iter().enumerate() {
        if let Some(list) = e.trace.completed_after.and_then(|at| done_at.get_mut(at)) {
            list.push(j);
        }
    }
    for (k, list) in done_at.iter_mut().enumerate() {
        list.sort_by_key(|&j| (j != k, j));
    }
    let mut clients = Clients::new(schedule);
    let mut out = Vec::with_capacity(schedule.order().len());
    for (k, &a) in schedule.order().iter().enumerate().take(upto) {
        let actor = &schedule.actors()[a];
        let state = &clients.actors[a];
        if state.next >= actor.program.len() || state.in_flight.is_some() {
            break;
        }
        let entry = entries.get(k);
        if entry.is_some_and(|e| e.trace.actor != actor.name || e.trace.op_index != state.next) {
            break;
        }
        let op = &actor.program[state.next];
        let unmet = clients.unmet(schedule, a, state.next);
        let redis = clients
            .redis_command(schedule, a)
            .filter(|_| unmet.is_none());
        let statement = match clients.prepare(schedule, a) {
            Action::Send(st) => Some(st),
            Action::Done(_) => None,
        };
        clients.sent(schedule, a, k);
        for &j in &done_at[k] {
            let e = &entries[j].trace;
            if let (Some(b), Some(result)) = (schedule.actor_index(&e.actor), &e.result) {
                if e.op_index < schedule.actors()[b].program.len() {
                    clients.answered(schedule, b, e.op_index, result, &e.seen);
                }
            }
        }
        out.push(Sent {
            k,
            actor,
            op,
            statement,
            redis,
            unmet,
            entry,
        });
    }
    (out, clients)
}

/// What the setup runs, as the executor does it: the migration in a fresh schema, the seats
/// and their tickets, the clock's start, with `ddl` as the migration's text.
fn setup_sql(schedule: &Schedule, schema: &str, ddl: &str) -> String {
    let scenario = schedule.scenario();
    let quoted = quote_ident(schema);
    let mut out = format!(
        "set client_min_messages = warning;\ndrop schema if exists {quoted} cascade;\ncreate schema {quoted};\nset search_path to {quoted};\n\n{}\n",
        ddl.trim_end()
    );
    out.push_str(&format!(
        "\n-- The scenario: show {}, holds of {}, the clock at {}.\n",
        scenario.show,
        scenario.clock_unit.span(scenario.hold_minutes),
        scenario.clock_unit.at(scenario.clock)
    ));
    let clock = Statement {
        sql: sql::SET_CLOCK.to_string(),
        params: vec![Param::Int(scenario.clock)],
    };
    out.push_str(&format!("{};\n", clock.to_psql()));
    for seat in &scenario.seats {
        let hold_id = match seat.status {
            SeatStatus::Available => None,
            SeatStatus::Held | SeatStatus::Booked => seat.holder.as_deref().map(sql::initial_hold),
        };
        let insert = Statement {
            sql: sql::INSERT_SEAT.to_string(),
            params: vec![
                Param::Int(scenario.show),
                Param::Text(seat.id.clone()),
                Param::Text(seat.status.as_sql().to_string()),
                Param::OptText(seat.holder.clone()),
                Param::OptText(hold_id.clone()),
                Param::OptInt(seat.until),
            ],
        };
        out.push_str(&format!("{};\n", insert.to_psql()));
        if let (SeatStatus::Booked, Some(holder), Some(booking)) =
            (seat.status, &seat.holder, hold_id)
        {
            let ticket = Statement {
                sql: sql::INSERT_BOOKING.to_string(),
                params: vec![
                    Param::Text(booking),
                    Param::Int(scenario.show),
                    Param::Text(seat.id.clone()),
                    Param::Text(holder.clone()),
                ],
            };
            out.push_str(&format!("{};\n", ticket.to_psql()));
        }
    }
    out
}

/// Every session's settings, one statement per line.
fn session_settings(schema: &str) -> String {
    let mut out = format!("set search_path to {};\n", quote_ident(schema));
    for setting in sql::SESSION_SETTINGS.split(';') {
        let setting = setting.trim();
        if !setting.is_empty() {
            out.push_str(setting);
            out.push_str(";\n");
        }
    }
    out
}

/// A schema name as a quoted identifier (it is ours, quoted anyway).
fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// What an entry does, in a few words, for the comments of the scripts: "adam reads A7"; `unit`
/// is the schedule's clock's.
fn what(actor: &str, op: &Op, unit: ClockUnit) -> String {
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
fn unmet_words(sent: &Sent<'_>, condition: Condition) -> String {
    let name = &sent.actor.name;
    match condition {
        Condition::Failed => format!(
            "Skipped: a retry, and {name}'s last attempt did not fail with 40001, 40P01 or 55P03, so {name} does not try again."
        ),
        _ => format!(
            "Skipped: {name} does this only while it holds its seats (\"if\": \"held\"), and it was not told it has them."
        ),
    }
}

/// "step 3 of 8 (after omar's read)".
fn step_heading(plan: &[Sent<'_>], k: usize, total: usize) -> String {
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
