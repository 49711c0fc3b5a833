//! "InnoDB behaves the same", tested: every feasible order of every built-in scenario, run on
//! both databases' models, counted as answered alike at every step or not, with the first order
//! that tells them apart and the step where they part. The README's table and the page's are
//! this, written out; `backend claim --confirm` runs each example on both real servers.

use crate::explain::{contrast, Contrast};
use crate::explorer::orders;
use crate::scenarios::{self, BuiltIn};
use crate::schedule::Schedule;

/// How many orders of one scenario are compared at most (a sample of the first ones past it).
pub const ORDER_LIMIT: u64 = 2_000;

/// One built-in scenario on both databases.
#[derive(Clone, Debug, PartialEq)]
pub struct Family {
    pub scenario: &'static str,
    pub title: &'static str,
    /// The orders compared (feasible on PostgreSQL's model).
    pub orders: usize,
    /// Answered alike at every step on both.
    pub same: usize,
    /// Where the verdicts differ (a seat sold twice on one only, say).
    pub verdict_differs: usize,
    /// Where some step is answered differently but the verdicts agree.
    pub steps_differ: usize,
    /// Orders that cannot run on InnoDB as written (a step waits there that did not on
    /// PostgreSQL, so the next entry of its buyer cannot be sent).
    pub cannot_run: usize,
    /// The first order that tells them apart, as actor names, and its contrast.
    pub example: Option<(Vec<String>, Contrast)>,
}

impl Family {
    /// Whether the claim holds for this scenario: every order answered alike.
    pub fn holds(&self) -> bool {
        self.same == self.orders
    }
}

/// Every built-in scenario's family, in the chapters' order.
pub fn families() -> Vec<Family> {
    scenarios::all().iter().map(family).collect()
}

/// One scenario's family.
pub fn family(builtin: &BuiltIn) -> Family {
    let schedule = builtin.schedule();
    let (all, _) = orders(&schedule, ORDER_LIMIT);
    let mut family = Family {
        scenario: builtin.id,
        title: builtin.title,
        orders: all.len(),
        same: 0,
        verdict_differs: 0,
        steps_differ: 0,
        cannot_run: 0,
        example: None,
    };
    for order in all {
        let pg = schedule.with_order(order.clone());
        let c = contrast(&pg);
        let kind = if !c.sides[1].runs {
            &mut family.cannot_run
        } else if c.same() {
            &mut family.same
        } else if c.verdicts_differ() {
            &mut family.verdict_differs
        } else {
            &mut family.steps_differ
        };
        *kind += 1;
        let better = match &family.example {
            None => !c.same(),
            Some((_, e)) => c.verdicts_differ() && !e.verdicts_differ(),
        };
        if better {
            family.example = Some((names(&pg, &order), c));
        }
    }
    family
}

fn names(schedule: &Schedule, order: &[usize]) -> Vec<String> {
    order
        .iter()
        .map(|&a| schedule.actors()[a].name.clone())
        .collect()
}

/// The families as a Markdown table, for the README.
pub fn markdown(families: &[Family]) -> String {
    let mut out = String::from(
        "| Scenario | Orders | Alike | Verdict differs | Steps differ | Cannot run on InnoDB | An order that tells them apart |\n|---|---:|---:|---:|---:|---:|---|\n",
    );
    for f in families {
        let example = f.example.as_ref().map_or("—".to_string(), |(order, c)| {
            format!(
                "{}: PostgreSQL: {}; InnoDB: {}",
                order.join(" "),
                c.sides[0].headline,
                c.sides[1].headline
            )
        });
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            f.title, f.orders, f.same, f.verdict_differs, f.steps_differ, f.cannot_run, example
        ));
    }
    out
}
