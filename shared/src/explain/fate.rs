//! How the seats ended, grouped: the consequence lines of the story and the parts of the
//! headline.

use std::collections::{BTreeMap, BTreeSet};

use super::{join, number, title};
use crate::outcome::Outcome;
use crate::schedule::{Op, SeatStatus};

/// What happened to a group of seats that ended the same way.
pub(super) struct Fate {
    seats: Vec<String>,
    status: SeatStatus,
    told: Vec<String>,
    tickets: usize,
    /// Buyers who tried to take these seats, ended with no seat at all and are owed nothing:
    /// they were told it was sold out.
    losers: Vec<String>,
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

    fn sold_out(&self) -> String {
        let who = join(&self.losers.iter().map(|a| title(a)).collect::<Vec<_>>());
        let were = if self.losers.len() > 1 { "were" } else { "was" };
        let it = if self.plural() { "they were" } else { "it was" };
        format!("{who} {were} told {it} sold out")
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
                format!("⇒ {seats} {verb} held once, by {}", title(winner))
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
            format!("Held once: {seats} by {names}")
        } else if self.lost {
            format!("Lost seat: {seats} {}", self.why_lost())
        } else {
            format!("Nobody got {seats}")
        };
        if !self.losers.is_empty() && self.told.len() < 2 {
            let who = join(&self.losers.iter().map(|a| title(a)).collect::<Vec<_>>());
            line.push_str(&format!("; {who} told sold out"));
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
            fate.losers = mine.into_iter().map(str::to_string).collect();
            fate
        })
        .collect()
}
