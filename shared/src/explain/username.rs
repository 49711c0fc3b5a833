//! How a username ended, in its words (`UsernameWords`): the headline ("Created twice:
//! Adam and Omar both have an account named batman", "Adam got batman; Omar was told batman is
//! taken") and the consequence, which says what `users` and `usernames` hold at the end. A free
//! name may go to one person and a taken name to nobody (`Scenario::capacity`): telling more
//! that the account is theirs is the race lost, as `double_booked` says.

use super::fate::{refused, Refused};
use super::{join, title};
use crate::outcome::Outcome;
use crate::schedule::{Op, Schedule};
use crate::sqlstate::SqlState;
use crate::username_words::UsernameWords;

/// The name's end: who was told it is theirs, who tried and was told no.
struct End {
    told: Vec<String>,
    capacity: usize,
    losers: Vec<(String, Refused)>,
    accounts: i64,
    claimed_by: Option<String>,
}

fn end(schedule: &Schedule, outcome: &Outcome, u: &UsernameWords) -> End {
    let told = outcome
        .seats
        .get(u.name())
        .map(|s| s.told.clone())
        .unwrap_or_default();
    let mut losers: Vec<(String, Refused)> = Vec::new();
    for e in &outcome.entries {
        let who = &e.trace.actor;
        let inserts = matches!(e.op, Op::Write { .. } | Op::Book { .. } | Op::Claim { .. });
        if inserts && !told.contains(who) && !losers.iter().any(|(w, _)| w == who) {
            losers.push((who.clone(), refused(outcome, who)));
        }
    }
    let tables = outcome.final_tables();
    End {
        told,
        capacity: schedule.scenario().capacity(0),
        losers,
        accounts: tables
            .seats
            .iter()
            .find(|r| r.id == u.name())
            .and_then(|r| r.value)
            .unwrap_or(0),
        claimed_by: tables
            .bookings
            .iter()
            .find(|b| b.seat == u.name())
            .map(|b| b.holder.clone()),
    }
}

impl End {
    fn names(&self) -> String {
        join(&self.told.iter().map(|a| title(a)).collect::<Vec<_>>())
    }

    fn over(&self) -> bool {
        self.told.len() > self.capacity
    }

    /// "Omar was told batman is taken", grouped by how.
    fn losers(&self, u: &UsernameWords) -> Option<String> {
        let parts: Vec<String> = super::fate::by_refusal(&self.losers)
            .iter()
            .map(|(why, names)| {
                let were = if names.len() > 1 { "were" } else { "was" };
                let how = match why {
                    Refused::SoldOut | Refused::HoldGone => u.told_no(),
                    Refused::Busy => format!(
                        "told {} was busy {}",
                        u.name(),
                        SqlState::LockNotAvailable.tag()
                    ),
                    Refused::Error(code) if code.is_duplicate() => {
                        format!("refused by the key of usernames {}", code.tag())
                    }
                    Refused::Error(code) => code.refused_words().unwrap_or_default(),
                };
                format!("{} {were} {how}", join(names))
            })
            .collect();
        (!parts.is_empty()).then(|| join(&parts))
    }

    /// "Adam got batman", "nobody got batman", or the name created too often.
    fn served(&self, u: &UsernameWords) -> String {
        match self.told.len() {
            _ if self.over() => format!(
                "{}: {} {}",
                u.too_many(self.told.len()),
                self.names(),
                u.all_have(self.told.len())
            ),
            0 => u.nobody(),
            _ => format!("{} {}", self.names(), u.created()),
        }
    }

    fn with_losers(&self, u: &UsernameWords, mut line: String) -> String {
        if let Some(losers) = self.losers(u) {
            line.push_str("; ");
            line.push_str(&losers);
        }
        line
    }
}

/// The headline of a username scenario's outcome.
pub(super) fn headline(schedule: &Schedule, outcome: &Outcome, u: &UsernameWords) -> String {
    let end = end(schedule, outcome, u);
    if end.told.is_empty() && end.losers.is_empty() {
        return format!("Nobody has created {} yet", u.name());
    }
    let served = crate::engine::capitalise(&end.served(u));
    end.with_losers(u, served)
}

/// The consequence lines of a username scenario's outcome, once someone tried: who got the
/// name (and who was refused), then what the two tables hold.
pub(super) fn consequences(
    schedule: &Schedule,
    outcome: &Outcome,
    u: &UsernameWords,
) -> Vec<String> {
    let end = end(schedule, outcome, u);
    if end.told.is_empty() && end.losers.is_empty() {
        return Vec::new();
    }
    let served = crate::engine::capitalise(&end.served(u));
    vec![
        end.with_losers(u, format!("⇒ {served}")),
        format!("⇒ {}", u.ends(end.accounts, end.claimed_by.as_deref())),
    ]
}
