//! How a counter's rows ended, in their shape's words (`CounterWords`): the headline ("Overdrawn:
//! Adam and Omar withdrew 100 from the joint account, which held 150") and the consequence ("⇒
//! … ; the joint account is overdrawn: -50"). A row serves as many buyers as its starting value
//! covers (`Scenario::capacity`): telling more that they got it is the race lost, whatever the
//! row reads at the end (a coupon used twice still reads "used").

use std::collections::BTreeSet;

use super::fate::{refused, Refused};
use super::{join, number, title};
use crate::counter_words::CounterWords;
use crate::outcome::Outcome;
use crate::schedule::{Op, Schedule};
use crate::sqlstate::SqlState;

/// One row that someone tried to take from, or was told they got.
struct Row<'a> {
    id: &'a str,
    /// Its value at the start and at the end.
    start: i64,
    end: i64,
    capacity: usize,
    told: Vec<String>,
    /// Those who tried and were told no, with how.
    losers: Vec<(String, Refused)>,
}

fn rows<'a>(schedule: &'a Schedule, outcome: &Outcome) -> Vec<Row<'a>> {
    let scenario = schedule.scenario();
    let end = outcome.final_tables();
    let seated: BTreeSet<&str> = outcome
        .seats
        .values()
        .flat_map(|s| s.told.iter().map(String::as_str))
        .collect();
    let mut named: BTreeSet<String> = BTreeSet::new();
    let mut out = Vec::new();
    for (i, spec) in scenario.seats.iter().enumerate() {
        let id = spec.id.as_str();
        let told = outcome
            .seats
            .get(id)
            .map(|s| s.told.clone())
            .unwrap_or_default();
        let mut takers: Vec<&str> = outcome
            .entries
            .iter()
            .filter(|e| matches!(e.op, Op::Write { .. } | Op::Claim { .. }))
            .filter(|e| e.op.seats().iter().any(|s| s == id))
            .map(|e| e.trace.actor.as_str())
            .collect();
        takers.dedup();
        if told.is_empty() && takers.is_empty() {
            continue;
        }
        let mut losers = Vec::new();
        for who in takers {
            if !seated.contains(who) && named.insert(who.to_string()) {
                losers.push((who.to_string(), refused(outcome, who)));
            }
        }
        out.push(Row {
            id,
            start: spec.value.unwrap_or(0),
            end: end
                .seats
                .iter()
                .find(|r| r.id == id)
                .and_then(|r| r.value)
                .unwrap_or(0),
            capacity: scenario.capacity(i),
            told,
            losers,
        });
    }
    out
}

impl Row<'_> {
    fn names(&self) -> String {
        join(&self.told.iter().map(|a| title(a)).collect::<Vec<_>>())
    }

    fn over(&self) -> bool {
        self.told.len() > self.capacity
    }

    /// "Adam got a ticket from GA", "Nobody got a ticket from GA".
    fn served(&self, c: CounterWords) -> String {
        match self.told.len() {
            0 => format!("nobody {}", c.served(self.id, 1)),
            n => format!("{} {}", self.names(), c.served(self.id, n)),
        }
    }

    /// "Omar was told GA was sold out", grouped by how.
    fn losers(&self, c: CounterWords) -> Option<String> {
        let parts: Vec<String> = super::fate::by_refusal(&self.losers)
            .iter()
            .map(|(why, names)| {
                let were = if names.len() > 1 { "were" } else { "was" };
                let how = match why {
                    Refused::SoldOut | Refused::HoldGone => c.told_no(self.id),
                    Refused::Busy => format!(
                        "told {} was busy {}",
                        c.row(self.id),
                        SqlState::LockNotAvailable.tag()
                    ),
                    Refused::Error(code) => code.refused_words().unwrap_or_default(),
                };
                format!("{} {were} {how}", join(names))
            })
            .collect();
        (!parts.is_empty()).then(|| join(&parts))
    }

    fn headline(&self, c: CounterWords) -> String {
        let mut line = if self.over() {
            format!(
                "{}: {}, {}",
                c.too_many(self.told.len()),
                self.served(c),
                c.capacity(self.start)
            )
        } else {
            crate::engine::capitalise(&self.served(c))
        };
        if let Some(losers) = self.losers(c) {
            line.push_str("; ");
            line.push_str(&losers);
        }
        line
    }

    fn consequence(&self, c: CounterWords) -> String {
        let mut line = if self.over() {
            let all = match self.told.len() {
                2 => "both".to_string(),
                n => format!("all {}", number(n)),
            };
            format!(
                "⇒ {} {all} {}, {}; {}",
                self.names(),
                c.served(self.id, self.told.len()),
                c.capacity(self.start),
                c.ends_again(self.end)
            )
        } else {
            let served = crate::engine::capitalise(&self.served(c));
            format!("⇒ {served}; {}", c.ends_again(self.end))
        };
        if let Some(losers) = self.losers(c) {
            line.push_str("; ");
            line.push_str(&losers);
        }
        line
    }
}

/// The headline of a counter scenario's outcome.
pub(super) fn headline(schedule: &Schedule, outcome: &Outcome, c: CounterWords) -> String {
    let rows = rows(schedule, outcome);
    let over: Vec<&Row> = rows.iter().filter(|r| r.over()).collect();
    let shown: Vec<&Row> = if over.is_empty() {
        rows.iter().collect()
    } else {
        over
    };
    if shown.is_empty() {
        return "Nothing taken yet".to_string();
    }
    shown
        .iter()
        .map(|r| r.headline(c))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The consequence lines of a counter scenario's outcome, one per row someone tried.
pub(super) fn consequences(schedule: &Schedule, outcome: &Outcome, c: CounterWords) -> Vec<String> {
    rows(schedule, outcome)
        .iter()
        .map(|r| r.consequence(c))
        .collect()
}
