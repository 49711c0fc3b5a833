//! The run as a PostgreSQL isolation-tester spec, and the output the tester must print for it
//! (`tester` plays the tester's loop over the outcome; `printed` writes what it prints;
//! `lexical` names the steps and writes names and SQL as the spec's lexer takes them).
//!
//! The spec's lexer ends an SQL block at the first `}`, wherever it is: text arrays are written
//! `array[…]` and the migration's one `'{}'` as an escape string.

mod lexical;
mod printed;
mod tester;

use std::collections::BTreeSet;

use super::{
    ends_on_clock, plan, quote_ident, session_settings, setup_sql, step_heading, unmet_words, Sent,
    SCHEMA,
};
use crate::explain;
use crate::outcome::{Outcome, StepResult};
use crate::schedule::{Op, Schedule};
use crate::sql;
use crate::sqlstate::SqlState;

use lexical::{ident, indent, spec_sql, step_names};
use printed::result;
use tester::{Item, Printed, Tester};

/// The deadlock timeout of the sessions that a deadlock in the run did not fail.
const SURVIVOR_TIMEOUT: &str = "set deadlock_timeout = '10s';\n";

/// The SQL text of the empty step that waits for a deadlock to be broken.
const SYNC_SQL: &str = "-- wait until the deadlock is broken";

/// The spec and its expected output, in the default schema (`SCHEMA`).
pub fn isolation_spec(schedule: &Schedule, outcome: &Outcome) -> (String, String) {
    isolation_spec_in(schedule, outcome, SCHEMA)
}

/// The spec and its expected output, creating and using the schema `schema`.
pub fn isolation_spec_in(schedule: &Schedule, outcome: &Outcome, schema: &str) -> (String, String) {
    let plan = plan(schedule, outcome);
    let names = step_names(&plan);
    let run = Tester::run(&plan, outcome, names.iter().flatten().cloned().collect());
    let spec = Spec {
        schedule,
        outcome,
        plan: &plan,
        names,
        run,
    };
    (spec.text(schema), spec.expected())
}

/// A spec in the making.
struct Spec<'p, 'a> {
    schedule: &'a Schedule,
    outcome: &'a Outcome,
    plan: &'p [Sent<'a>],
    /// Per entry of the order: its step's name, if it sends a statement.
    names: Vec<Option<String>>,
    run: Tester<'p, 'a>,
}

impl Spec<'_, '_> {
    /// The name of a permutation item, as the tester prints it.
    fn name(&self, item: &Item) -> String {
        match item {
            Item::Step(k) => self.names[*k].clone().unwrap_or_default(),
            Item::Sync { name, .. } => name.clone(),
        }
    }

    fn sql(&self, k: usize) -> String {
        self.plan[k]
            .statement
            .as_ref()
            .map(spec_sql)
            .unwrap_or_default()
    }

    fn text(&self, schema: &str) -> String {
        let mut spec = format!(
            "# Last Seat: {}\n# {}\n#\n# PostgreSQL's isolation tester runs this schedule on a real database, one session\n\
             # per actor, in the order of the permutation, and must print the expected output beside it:\n\
             #   isolationtester \"dbname=postgres\" < this.spec\n\
             # (It comes with PostgreSQL's client programs, e.g. on Debian\n\
             # /usr/lib/postgresql/15/lib/pgxs/src/test/isolation/isolationtester.)\n",
            self.schedule.name(),
            explain::headline(self.schedule, self.outcome)
        );
        let left_waiting = self
            .plan
            .iter()
            .any(|s| s.statement.is_some() && s.completed_after().is_none());
        if !self.deadlock_victims().is_empty() {
            spec.push_str(
                "#\n# PostgreSQL fails the session of a deadlock whose deadlock_timeout runs out first\n\
                 # once the cycle is closed. The run's victim keeps the run's 1 s; the other\n\
                 # sessions wait 10 s before they look, so that the victim is the same on a busy\n\
                 # machine.\n",
            );
        }
        if left_waiting {
            spec.push_str(
                "#\n# The order ends while a statement still waits: the tester waits for it until\n\
                 # statement_timeout (20 s) cancels it.\n",
            );
        }
        let ddl = sql::ddl_of(self.schedule).replace("'{}'", r"E'\x7b\x7d'");
        let setup = setup_sql(self.schedule, schema, &ddl);
        spec.push_str(&format!("\nsetup\n{{\n{}}}\n", indent(&setup)));
        spec.push_str(&format!(
            "\nteardown\n{{\n  drop schema {} cascade;\n}}\n",
            quote_ident(schema)
        ));
        for actor in self.schedule.actors() {
            spec.push_str(&self.session(&actor.name, schema));
        }
        spec.push_str(&self.permutation());
        spec
    }

    /// A session: its settings and its steps (nothing if it sends no statement).
    fn session(&self, actor: &str, schema: &str) -> String {
        let steps: String = self
            .run
            .permutation
            .iter()
            .filter_map(|item| {
                let (owner, sql) = match item {
                    Item::Step(k) => (
                        self.plan[*k].actor.name.as_str(),
                        spec_sql(self.plan[*k].statement.as_ref()?),
                    ),
                    Item::Sync { actor, .. } => (actor.as_str(), SYNC_SQL.to_string()),
                };
                (owner == actor).then(|| format!("step {} {{ {sql} }}\n", ident(&self.name(item))))
            })
            .collect();
        if steps.is_empty() {
            return String::new();
        }
        let mut settings = session_settings(schema);
        let victims = self.deadlock_victims();
        if !victims.is_empty() && !victims.contains(&actor) {
            settings.push_str(SURVIVOR_TIMEOUT);
        }
        let mut out = format!(
            "\nsession {}\nsetup\n{{\n{}}}\n{steps}",
            ident(actor),
            indent(&settings),
        );
        if ends_in_transaction(self.plan, actor) {
            // Its locks would keep the teardown's drop waiting.
            out.push_str("teardown { rollback }\n");
        }
        out
    }

    /// The actors a deadlock failed.
    fn deadlock_victims(&self) -> BTreeSet<&str> {
        self.plan
            .iter()
            .filter(
                |s| matches!(s.result(), Some(StepResult::Error { code, .. }) if *code == SqlState::DeadlockDetected),
            )
            .map(|s| s.actor.name.as_str())
            .collect()
    }

    /// The permutation, one step a line, with the entries that send nothing as comments.
    fn permutation(&self) -> String {
        let mut out = "\npermutation\n".to_string();
        let mut items = self.run.permutation.iter().peekable();
        let write = |out: &mut String, item: &Item| {
            out.push_str(&format!("  {}\n", ident(&self.name(item))));
            if let Item::Sync { .. } = item {
                out.push_str("  # the step above waits until the deadlock is broken\n");
            }
        };
        for s in self.plan {
            while let Some(item) = items.next_if(|i| !matches!(i, Item::Step(k) if *k > s.k)) {
                write(&mut out, item);
            }
            if s.statement.is_none() {
                let why = match s.unmet {
                    Some(condition) => unmet_words(s, condition),
                    None => "nothing is sent".to_string(),
                };
                out.push_str(&format!(
                    "  # {}: {} ({})\n",
                    step_heading(self.plan, s.k, self.schedule.order().len()),
                    s.what(self.schedule.scenario().clock_unit),
                    why.trim_end_matches('.')
                ));
            }
        }
        for item in items {
            write(&mut out, item);
        }
        out
    }

    /// What the tester prints. It prints names as they are, quoted or not in the spec.
    fn expected(&self) -> String {
        let sessions = self
            .schedule
            .actors()
            .iter()
            .filter(|a| {
                self.plan
                    .iter()
                    .any(|s| s.statement.is_some() && s.actor.name == a.name)
            })
            .count();
        let listed: Vec<String> = self.run.permutation.iter().map(|i| self.name(i)).collect();
        let mut out = format!(
            "Parsed test spec with {sessions} sessions\n\nstarting permutation: {}\n",
            listed.join(" ")
        );
        if ends_on_clock(self.schedule) {
            // The tester prints what the setup's last statement returned.
            out.push_str(&printed::setval(self.schedule.scenario().clock));
        }
        let name = |k: usize| self.names[k].clone().unwrap_or_default();
        for event in &self.run.printed {
            out.push_str(&match event {
                Printed::Done(k) => format!(
                    "step {}: {}\n{}",
                    name(*k),
                    self.sql(*k),
                    result(&self.plan[*k], self.outcome)
                ),
                Printed::Waiting(k) => {
                    format!("step {}: {} <waiting ...>\n", name(*k), self.sql(*k))
                }
                Printed::Completed(k) => format!(
                    "step {}: <... completed>\n{}",
                    name(*k),
                    result(&self.plan[*k], self.outcome)
                ),
                Printed::Sync(name) => format!("step {name}: {SYNC_SQL}\n"),
            });
        }
        out
    }
}

/// The actor's last `begin` has no `commit` or `rollback` after it in the order.
fn ends_in_transaction(plan: &[Sent<'_>], actor: &str) -> bool {
    plan.iter()
        .rev()
        .filter(|s| s.actor.name == actor)
        .find_map(|s| match s.op {
            Op::Begin { .. } => Some(true),
            Op::Commit | Op::Rollback => Some(false),
            _ => None,
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_setup_holds_no_brace_that_would_end_its_block() {
        let ddl = sql::SCHEMA_DDL.replace("'{}'", r"E'\x7b\x7d'");
        assert!(
            !ddl.contains('}'),
            "the migration has a new brace: escape it here too"
        );
    }
}
