//! Reproduce it yourself: a schedule and its outcome as a JSON fixture for `schedules/`, as one
//! psql script per buyer beside a setup script, and as an isolation-tester spec with the output
//! it must print.
//!
//! The SQL is `sql.rs`'s, built by the very `Clients` that the executor and the simulator drive,
//! fed with the outcome's answers: every literal (a hold id, a clock reading) is the one the
//! run sent. The setup is the executor's: the migration text in a schema of its own, the seats,
//! the clock's start, and `SESSION_SETTINGS` on every connection.
//!
//! This file replays the order through `Clients` (`plan`) for them all; `fixture`, `psql` and
//! `isolation` write the three exports, `setup` the setup, `comments` an entry in words.

mod comments;
mod fixture;
mod isolation;
mod json;
mod mysql;
mod psql;
mod setup;
mod username;

pub use fixture::fixture_json;
pub use isolation::{isolation_spec, isolation_spec_in};
pub use mysql::mysql_scripts;
pub use psql::{psql_scripts, psql_scripts_in};

use crate::client::{Action, Clients};
use crate::outcome::{Entry, Outcome, StepResult};
use crate::schedule::{Actor, Condition, Database, Op, Schedule};
use crate::sql::Statement;
use comments::{step_heading, unmet_words};
use setup::{ends_on_clock, quote_ident, session_settings, setup_sql};

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

/// The SQL each entry of the order sent, as psql would take it (`None` for an entry that sent
/// nothing to the database: a skipped write, a payment, a Redis op), in the order's order.
pub fn entry_sql(schedule: &Schedule, outcome: &Outcome) -> Vec<Option<String>> {
    plan(schedule, outcome)
        .into_iter()
        .map(|s| s.statement.map(|st| typed(schedule, &st)))
        .collect()
}

/// A statement as its database's own client takes it: psql, or the mysql client for InnoDB.
fn typed(schedule: &Schedule, statement: &Statement) -> String {
    match schedule.database() {
        Database::Postgresql => statement.to_psql(),
        Database::Innodb => statement.to_mysql(),
    }
}

/// What each entry of the order sent: its SQL as psql would take it, or for a Redis op its
/// command as redis-cli would (`None` for a skipped write or a payment).
pub fn entry_commands(schedule: &Schedule, outcome: &Outcome) -> Vec<Option<String>> {
    plan(schedule, outcome)
        .into_iter()
        .map(|s| s.statement.map(|st| typed(schedule, &st)).or(s.redis))
        .collect()
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
    /// On a counter's rows, its shape's words.
    counter: Option<crate::counter_words::CounterWords>,
    /// On a username, its words.
    username: Option<crate::username_words::UsernameWords>,
}

impl Sent<'_> {
    /// What the entry does, in a few words, for the comments of the scripts.
    fn what(&self, unit: crate::schedule::ClockUnit) -> String {
        self.username()
            .and_then(|u| username::what(&self.actor.name, self.op, u))
            .unwrap_or_else(|| comments::what(&self.actor.name, self.op, unit, self.counter))
    }
}

impl Sent<'_> {
    /// On a username, its words; `None` at compile time without the `shapes` feature.
    fn username(&self) -> Option<&crate::username_words::UsernameWords> {
        self.username.as_ref().filter(|_| crate::schedule::SHAPES)
    }

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
            counter: crate::counter_words::CounterWords::of(schedule.scenario()),
            username: crate::username_words::UsernameWords::of(schedule.scenario()),
        });
    }
    (out, clients)
}
