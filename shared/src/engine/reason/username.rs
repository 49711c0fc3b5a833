//! The reason line's words for a username (`UsernameWords`): what a check found in `users` ("Adam
//! checks batman in users: no account has batman, so it looks free"), an account created where
//! nothing refuses a second, the name claimed in `usernames` or refused by its key, and whom a
//! statement waits for and why, on either database.

use crate::outcome::StepResult;
use crate::schedule::{Isolation, Op};
use crate::username_words::UsernameWords;

use super::super::locks::WaitOn;
use super::super::trace::{Done, InnoWait};
use super::{join, Cx};

/// What the operation is, as the object of "skips the …" and "is refused the …".
fn noun(op: &Op) -> &'static str {
    match op {
        Op::Write { .. } | Op::Book { .. } | Op::Claim { .. } => "insert",
        other => other.name(),
    }
}

/// Whether the actor's locking read runs where InnoDB takes gap locks: inside a transaction
/// above READ COMMITTED.
fn gap_locking(e: &Cx<'_>, d: &Done) -> bool {
    let program = &e.schedule.actors()[d.actor].program;
    program[..d.op_index]
        .iter()
        .rev()
        .take_while(|o| !matches!(o, Op::Commit | Op::Rollback))
        .find_map(|o| match o {
            Op::Begin { isolation } => Some(*isolation != Isolation::ReadCommitted),
            _ => None,
        })
        .unwrap_or(false)
}

/// What an operation on the name did, as a verb phrase, or `None` for the words every shape
/// shares (begin, commit, rollback, a skip by a condition).
pub(super) fn phrase(e: &Cx<'_>, u: &UsernameWords, op: &Op, d: &Done) -> Option<String> {
    let db = e.schedule.database();
    Some(match (&d.result, op) {
        (StepResult::Skipped, _) if d.facts.unmet.is_none() => u.not_sent(noun(op)),
        (StepResult::Error { code, message }, _) => format!(
            "is refused the {}: {} ({code})",
            noun(op),
            u.error_reason(code, message)
        ),
        (StepResult::Ok { .. }, Op::Read { .. }) => u.checks(d.seen.len()),
        (StepResult::Ok { .. }, Op::Lock { .. }) => u.locks(d.seen.len(), db, gap_locking(e, d)),
        (StepResult::Ok { rows: Some(1..) }, Op::Write { .. }) => u.creates(),
        (StepResult::Ok { rows: Some(1..) }, Op::Book { .. }) => u.claims(false, db),
        (StepResult::Ok { rows: Some(1..) }, Op::Claim { .. }) => u.claims(true, db),
        (StepResult::Ok { .. }, Op::Claim { .. }) => u.claimed_already(d.entry != e.node.k, db),
        _ => return None,
    })
}

/// Why a statement waits on PostgreSQL, after nothing: "Adam inserted batman into usernames
/// and has not committed yet".
pub(super) fn waiting(u: &UsernameWords, on: WaitOn, for_holder: bool, names: &[String]) -> String {
    let who = join(names);
    match on {
        WaitOn::Xact(_) => format!("{who} {}", u.waits_for_claim()),
        WaitOn::Account(_) if for_holder => format!("{who} {}", u.waits_for_account_lock()),
        WaitOn::Account(_) => format!("{who} {}", u.waits_in_account_queue(names.len() > 1)),
        WaitOn::Row(..) | WaitOn::Update(..) if for_holder => {
            format!("{who} {}", u.waits_for_lock())
        }
        WaitOn::Row(..) | WaitOn::Update(..) => {
            format!("{who} {}", u.waits_in_queue(names.len() > 1))
        }
    }
}

/// Why a statement waits on InnoDB: the lock's holders and those ahead in its queue.
pub(super) fn waiting_innodb(
    u: &UsernameWords,
    kind: InnoWait,
    op: &Op,
    holders: &[String],
    ahead: &[String],
) -> String {
    let many = holders.len() > 1;
    let held = match kind {
        // A check of the name that meets an uncommitted account waits for its creator.
        InnoWait::Duplicate if matches!(op, Op::Read { .. } | Op::Lock { .. }) => {
            Some(format!("{} {}", join(holders), u.waits_for_account(many)))
        }
        InnoWait::Duplicate => Some(format!(
            "{} {}: the duplicate check waits to share a lock on it",
            join(holders),
            u.waits_for_claim()
        )),
        InnoWait::Gap => Some(format!(
            "{} {}",
            join(holders),
            u.waits_for_gap(many, matches!(op, Op::Write { .. }))
        )),
        _ if holders.is_empty() => None,
        _ if many => Some(format!(
            "{} share locks on the accounts named {}",
            join(holders),
            u.name()
        )),
        _ => Some(format!("{} {}", join(holders), u.waits_for_lock())),
    };
    let queue = (!ahead.is_empty())
        .then(|| format!("{} {}", join(ahead), u.waits_in_queue(ahead.len() > 1)));
    match (held, queue) {
        (Some(h), Some(q)) => format!("{h}, and {q}"),
        (Some(h), None) => h,
        (None, Some(q)) => q,
        (None, None) => format!("for a lock on the name {}", u.name()),
    }
}
