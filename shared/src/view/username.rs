//! The picture of a username at a step, in place of the seat map on a username scenario: the
//! name, how many accounts in `users` have it (two or more is the name created twice) and who
//! has its claim in `usernames`, the people told the account is theirs, who has the accounts
//! locked and who waits, and the accounts and the claim an open transaction inserted and has not
//! committed. Like the counter's picture (whose classes it wears), every word comes from the
//! model's outcome at the playhead, and its state is said in words beside its colour.

use serde::Serialize;

use super::counter::CounterState;
use super::{display_name, tables_at, told_at};
use crate::engine::join;
use crate::outcome::SeatLock;
use crate::schedule::Schedule;
use crate::username_words::accounts;
use crate::Outcome;

/// The name as the picture draws it once the first `step` entries have run. Serialised for the
/// browser tests, which compare the page's picture with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NameRow {
    /// The name: "batman".
    pub id: String,
    /// The committed accounts in `users` that have it.
    pub accounts: i64,
    /// The accounts that had it at the start (0 or 1).
    pub start: i64,
    /// The owner of its committed claim in `usernames` (the name itself for the account it
    /// had at the start).
    pub claimed_by: Option<String>,
    /// Those told the account is theirs, first told first.
    pub told: Vec<String>,
    /// The person whose open transaction has the name's accounts locked.
    pub lock: Option<String>,
    /// Those whose statement waits for the name, first in line first.
    pub queue: Vec<String>,
    /// Those whose open transaction created an account of the name, not committed.
    pub creating: Vec<String>,
    /// The person whose open transaction claimed the name in `usernames`, not committed.
    pub claiming: Option<String>,
}

/// The name of a username scenario once the first `step` entries have run, with what the open
/// transactions hold on it; `None` on any other scenario.
pub fn name_at(schedule: &Schedule, outcome: &Outcome, step: usize) -> Option<NameRow> {
    let scenario = schedule.scenario();
    if !scenario.kind.is_username() {
        return None;
    }
    let id = scenario.seats.first()?.id.clone();
    let tables = tables_at(outcome, step);
    let locks: &[SeatLock] = match step {
        0 => &[],
        n => {
            &outcome.entries[n.min(outcome.entries.len()) - 1]
                .trace
                .locks
        }
    };
    let live = locks.iter().find(|l| l.seat == id);
    Some(NameRow {
        accounts: tables
            .seats
            .iter()
            .find(|r| r.id == id)
            .and_then(|r| r.value)
            .unwrap_or_default(),
        start: scenario.seats[0].value.unwrap_or_default(),
        claimed_by: tables
            .bookings
            .iter()
            .find(|b| b.seat == id)
            .map(|b| b.holder.clone()),
        told: told_at(outcome, step).remove(&id).unwrap_or_default(),
        lock: live.and_then(|l| l.holder.clone()),
        queue: live.map(|l| l.queue.clone()).unwrap_or_default(),
        creating: live.map(|l| l.accounts.clone()).unwrap_or_default(),
        claiming: live.and_then(|l| l.ticket.clone()),
        id,
    })
}

fn names(actors: &[String]) -> String {
    join(&actors.iter().map(|a| display_name(a)).collect::<Vec<_>>())
}

impl NameRow {
    /// Whom the claim is for, in words: "Adam", "the first account".
    fn owner(&self, who: &str) -> String {
        if who == self.id {
            "the first account".to_string()
        } else {
            display_name(who)
        }
    }

    /// More were told the account is theirs than the name allows, or more than one account
    /// has it: the name created twice.
    pub fn twice(&self) -> bool {
        let capacity = 1 - self.start.clamp(0, 1) as usize;
        self.told.len() > capacity || self.accounts > 1
    }

    pub fn state(&self) -> CounterState {
        if self.twice() {
            CounterState::Over
        } else if self.accounts > 0 || self.claimed_by.is_some() {
            CounterState::Spent
        } else {
            CounterState::Open
        }
    }

    /// "Username batman".
    pub fn title(&self) -> String {
        format!("Username {}", self.id)
    }

    /// The accounts in words, in large type: "no account", "2 accounts".
    pub fn amount(&self) -> String {
        match self.accounts {
            0 => "no account".to_string(),
            n => accounts(n),
        }
    }

    /// The state in words, so that colour is never the only sign: "free", "taken", "created
    /// twice".
    pub fn state_line(&self) -> String {
        match self.state() {
            CounterState::Open => "free".to_string(),
            CounterState::Spent => "taken".to_string(),
            CounterState::Over => match self.accounts.max(self.told.len() as i64) {
                2 => "created twice".to_string(),
                n => format!("created {} times", crate::explain::number(n as usize)),
            },
        }
    }

    /// What `usernames` holds: "usernames: claimed by Adam", "usernames: no claim".
    pub fn claim_line(&self) -> String {
        match &self.claimed_by {
            Some(who) => format!("usernames: claimed by {}", self.owner(who)),
            None => "usernames: no claim".to_string(),
        }
    }

    /// Who was told the account is theirs: "Told it is theirs: Adam, Omar".
    pub fn told_line(&self) -> Option<String> {
        (!self.told.is_empty()).then(|| format!("Told it is theirs: {}", names(&self.told)))
    }

    /// Who has the accounts locked: "Adam has batman's accounts locked".
    pub fn lock_line(&self) -> Option<String> {
        let who = display_name(self.lock.as_deref()?);
        Some(format!("{who} has {}'s accounts locked", self.id))
    }

    /// Who waits, in order: "Omar waits", "Omar, then Zoe wait, in that order".
    pub fn queue_line(&self) -> Option<String> {
        crate::view::queue_line(&self.queue)
    }

    /// What an open transaction inserted and has not committed: "Adam creating an account,
    /// not committed; Omar claiming it, not committed".
    pub fn pending_line(&self) -> Option<String> {
        let mut parts: Vec<String> = self
            .creating
            .iter()
            .map(|a| format!("{} creating an account", display_name(a)))
            .collect();
        if let Some(who) = &self.claiming {
            parts.push(format!("{} claiming it", display_name(who)));
        }
        (!parts.is_empty()).then(|| format!("{}, not committed", parts.join("; ")))
    }

    /// Everything the picture shows, as one sentence for a screen reader.
    pub fn sentence(&self) -> String {
        let mut parts = vec![format!(
            "{}: {}, {} in users; {}",
            self.title(),
            self.state_line(),
            self.amount(),
            self.claim_line()
        )];
        if !self.told.is_empty() {
            parts.push(format!("{} told it is theirs", names(&self.told)));
        }
        if let Some(line) = self.lock_line() {
            parts.push(format!("{line} in an open transaction"));
        }
        parts.extend(self.queue_line());
        if let Some(line) = self.pending_line() {
            parts.push(format!("{line}: nobody else sees it yet"));
        }
        format!("{}.", parts.join("; "))
    }
}
