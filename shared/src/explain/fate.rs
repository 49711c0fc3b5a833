//! How the seats ended, grouped: the consequence lines of the story and the parts of the
//! headline.

use std::collections::{BTreeMap, BTreeSet};

use super::{join, number, title};
use crate::outcome::{Answer, Outcome, StepResult};
use crate::schedule::{Op, SeatStatus};
use crate::sqlstate::SqlState;

/// What happened to a group of seats that ended the same way.
pub(super) struct Fate {
    seats: Vec<String>,
    status: SeatStatus,
    told: Vec<String>,
    tickets: usize,
    /// Buyers who tried to take these seats, ended with no seat at all and are owed nothing,
    /// with how they were refused.
    losers: Vec<(String, Refused)>,
    /// Booked with nobody told they have it, or held with no end.
    pub(super) lost: bool,
}

impl Fate {
    pub(super) fn double(&self) -> bool {
        self.told.len() >= 2 || self.tickets >= 2
    }

    fn seats(&self) -> String {
        join(&self.seats)
    }

    fn plural(&self) -> bool {
        self.seats.len() > 1
    }

    /// Each loser and what they were told, grouped by the refusal: "Omar was told it was sold
    /// out", "Group was told the seats were busy (55P03, lock not available)".
    fn sold_out(&self) -> String {
        let mut by: Vec<(Refused, Vec<String>)> = Vec::new();
        for (who, why) in &self.losers {
            match by.iter_mut().find(|(r, _)| r == why) {
                Some((_, names)) => names.push(title(who)),
                None => by.push((why.clone(), vec![title(who)])),
            }
        }
        let parts: Vec<String> = by
            .iter()
            .map(|(why, names)| {
                let who = join(names);
                let were = if names.len() > 1 { "were" } else { "was" };
                let it = if self.plural() { "they were" } else { "it was" };
                let they = if self.plural() {
                    "the seats were"
                } else {
                    "the seat was"
                };
                match why {
                    Refused::SoldOut => format!("{who} {were} told {it} sold out"),
                    Refused::Busy => format!(
                        "{who} {were} told {they} busy {}",
                        SqlState::LockNotAvailable.tag()
                    ),
                    Refused::Error(code) => {
                        let words = code.refused_words().unwrap_or_default();
                        format!("{who} {were} {words}")
                    }
                    Refused::HoldGone => format!("{who} {were} told the hold had run out"),
                }
            })
            .collect();
        join(&parts)
    }

    pub(super) fn consequence(&self) -> String {
        let seats = self.seats();
        let mut line = if self.told.len() >= 2 {
            let people = number(self.told.len());
            if self.status == SeatStatus::Booked {
                format!("⇒ {people} people were sold {seats}")
            } else {
                format!("⇒ {people} people were told they hold {seats}")
            }
        } else if self.tickets >= 2 {
            format!("⇒ {seats} {} {} tickets", self.has(), number(self.tickets))
        } else if let [winner] = self.told.as_slice() {
            let verb = if self.plural() { "were" } else { "was" };
            if self.sold() {
                format!("⇒ {seats} {verb} sold once, to {}", title(winner))
            } else {
                format!("⇒ {seats} {verb} held by {}, not sold yet", title(winner))
            }
        } else if self.lost {
            format!("⇒ {seats} {} lost: {}", self.is(), self.why_lost())
        } else {
            format!("⇒ nobody got {seats}")
        };
        if !self.losers.is_empty() && self.told.len() < 2 {
            line.push_str("; ");
            line.push_str(&self.sold_out());
        }
        line
    }

    /// Booked in the seat row, or with a ticket (an insert under the unique key books without
    /// touching the row).
    fn sold(&self) -> bool {
        self.status == SeatStatus::Booked || self.tickets == 1
    }

    pub(super) fn headline(&self) -> String {
        let seats = self.seats();
        let names = join(&self.told.iter().map(|a| title(a)).collect::<Vec<_>>());
        let mut line = if self.told.len() >= 2 {
            format!("Double booking: {seats} sold to {names}")
        } else if self.tickets >= 2 {
            format!(
                "Double booking: {seats} {} {} tickets",
                self.has(),
                number(self.tickets)
            )
        } else if self.told.len() == 1 && self.sold() {
            format!("Sold once: {seats} to {names}")
        } else if self.told.len() == 1 {
            format!("{seats} held by {names}, not sold yet")
        } else if self.lost {
            format!("Lost seat: {seats} {}", self.why_lost())
        } else {
            format!("Nobody got {seats}")
        };
        if !self.losers.is_empty() && self.told.len() < 2 {
            line.push_str("; ");
            line.push_str(&self.sold_out());
        }
        line
    }

    fn why_lost(&self) -> &'static str {
        if self.status == SeatStatus::Booked {
            "booked, but nobody holds its ticket"
        } else {
            "held with no end"
        }
    }

    fn is(&self) -> &'static str {
        if self.plural() {
            "are"
        } else {
            "is"
        }
    }

    fn has(&self) -> &'static str {
        if self.plural() {
            "have"
        } else {
            "has"
        }
    }
}

/// The seats someone tried to take or was told they got, grouped by how they ended. Each buyer
/// who tried and ended with no seat (and is owed nothing) is named, once, as sold out.
pub(super) fn fates(outcome: &Outcome) -> Vec<Fate> {
    let mut takers: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for e in &outcome.entries {
        if matches!(
            e.op,
            Op::Write { .. }
                | Op::Claim { .. }
                | Op::Book { .. }
                | Op::Hold { .. }
                | Op::RedisHold { .. }
        ) {
            for seat in e.op.seats() {
                takers
                    .entry(seat.as_str())
                    .or_default()
                    .insert(e.trace.actor.as_str());
            }
        }
    }
    let seated: BTreeSet<&str> = outcome
        .seats
        .values()
        .flat_map(|s| s.told.iter().map(String::as_str))
        .collect();
    let refunds = &outcome.verdict.refund_due;
    let mut unseated: BTreeSet<&str> = takers
        .values()
        .flatten()
        .copied()
        .filter(|a| !seated.contains(a) && !refunds.iter().any(|r| r == a))
        .collect();
    let mut groups: Vec<(Fate, BTreeSet<&str>)> = Vec::new();
    for (seat, s) in &outcome.seats {
        let held_forever = outcome
            .final_tables()
            .seats
            .iter()
            .any(|r| &r.id == seat && r.status == SeatStatus::Held && r.until.is_none());
        let lost = s.told.is_empty() && (s.status == SeatStatus::Booked || held_forever);
        let wanted = takers.get(seat.as_str());
        if s.told.is_empty() && !lost && wanted.is_none() {
            continue;
        }
        let fate = Fate {
            seats: vec![seat.clone()],
            status: s.status,
            told: s.told.clone(),
            tickets: s.tickets.len(),
            losers: Vec::new(),
            lost,
        };
        let same = |g: &Fate| {
            (g.status, &g.told, g.tickets, g.lost)
                == (fate.status, &fate.told, fate.tickets, fate.lost)
        };
        let group = match groups.iter().position(|(g, _)| same(g)) {
            Some(i) => {
                groups[i].0.seats.push(seat.clone());
                &mut groups[i]
            }
            None => {
                groups.push((fate, BTreeSet::new()));
                groups.last_mut().expect("just pushed")
            }
        };
        group.1.extend(wanted.into_iter().flatten().copied());
    }
    groups
        .into_iter()
        .map(|(mut fate, wanted)| {
            let mine: Vec<&str> = unseated
                .iter()
                .copied()
                .filter(|a| wanted.contains(a))
                .collect();
            for a in &mine {
                unseated.remove(a);
            }
            fate.losers = mine
                .into_iter()
                .map(|a| (a.to_string(), refused(outcome, a)))
                .collect();
            fate
        })
        .collect()
}

/// How a buyer with no seat was refused, as their application told them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Refused {
    SoldOut,
    Busy,
    /// An error that is a refusal of its own (`SqlState::refused_words`): 40001, 40P01, 23505.
    Error(SqlState),
    HoldGone,
}

/// The refusal of `actor`'s last attempt: the first error of its last failed transaction, or
/// the answer of its last take.
/// The buyers who got nothing, grouped by how they were refused (in the order each way first
/// appears), their names as the page writes them.
pub(super) fn by_refusal(losers: &[(String, Refused)]) -> Vec<(&Refused, Vec<String>)> {
    let mut by: Vec<(&Refused, Vec<String>)> = Vec::new();
    for (who, why) in losers {
        match by.iter_mut().find(|(r, _)| *r == why) {
            Some((_, names)) => names.push(super::title(who)),
            None => by.push((why, vec![super::title(who)])),
        }
    }
    by
}

pub(super) fn refused(outcome: &Outcome, actor: &str) -> Refused {
    let mut why = Refused::SoldOut;
    for e in outcome.entries.iter().filter(|e| e.trace.actor == actor) {
        why = match (&e.op, e.trace.result.as_ref()) {
            (_, Some(StepResult::Error { code, .. })) => match code {
                code if code.is_busy() => Refused::Busy,
                code if code.refused_words().is_some() => Refused::Error(code.clone()),
                _ => why,
            },
            (
                _,
                Some(StepResult::Answer {
                    answer: Answer::Busy,
                }),
            ) => Refused::Busy,
            (
                _,
                Some(StepResult::Answer {
                    answer: Answer::Expired,
                }),
            ) => Refused::HoldGone,
            (
                _,
                Some(StepResult::Answer {
                    answer: Answer::Unavailable,
                }),
            ) => Refused::SoldOut,
            (Op::Write { .. } | Op::Claim { .. } | Op::Book { .. }, Some(_)) => Refused::SoldOut,
            (Op::Begin { .. }, _) => Refused::SoldOut,
            _ => why,
        };
    }
    why
}
