//! The reason line's words for what InnoDB does differently: whom a statement waits for (the
//! lock's holders and the waiters ahead of it, all of whom INNODB_LOCK_WAITS names), and the
//! deadlock victim, whose whole transaction InnoDB rolls back the moment the cycle closes.

use super::super::names::title;
use super::super::trace::{InnoWait, Node, WaitNote};
use super::{join, Cx};

/// Why the entry's operation waits on InnoDB, in words.
pub(super) fn waiting(e: &Cx<'_>, node: &Node, w: WaitNote, kind: InnoWait) -> String {
    let seat = &e.row(w.seat as usize);
    let names = |queued: bool| -> Vec<String> {
        node.blockers
            .iter()
            .filter(|&&b| (w.queued & (1 << b) != 0) == queued)
            .map(|&b| title(&e.names.names[b]))
            .collect()
    };
    let (holders, ahead) = (names(false), names(true));
    if let Some(u) = &e.username {
        let op = &e.schedule.actors()[node.actor].program[node.op_index];
        return super::username::waiting_innodb(u, kind, op, &holders, &ahead);
    }
    let verb = |n: &[String], one: &str, many: &str| {
        if n.len() == 1 {
            one.to_string()
        } else {
            many.to_string()
        }
    };
    match kind {
        InnoWait::Duplicate => format!(
            "{} inserted a ticket for {seat} and has not committed yet: the duplicate check waits to share a lock on it",
            join(&holders)
        ),
        InnoWait::Gap => format!(
            "{} {} a lock on the gap where the ticket for {seat} goes, left by a duplicate check",
            join(&holders),
            verb(&holders, "holds", "hold")
        ),
        InnoWait::Payment => format!(
            "{} read the payments with a shared lock on the gap where this payment goes, and {} not finished: its payment waits",
            join(&holders),
            verb(&holders, "has", "have")
        ),
        InnoWait::Row => {
            let held = match holders.len() {
                0 => None,
                1 => Some(format!("{} holds the row lock on {seat}", holders[0])),
                _ => Some(format!("{} hold shared locks on {seat}", join(&holders))),
            };
            let queue = (!ahead.is_empty()).then(|| {
                format!(
                    "{} {} ahead in the queue for {seat}",
                    join(&ahead),
                    verb(&ahead, "is", "are")
                )
            });
            match (held, queue) {
                (Some(h), Some(q)) => format!("{h}, and {q}"),
                (Some(h), None) => h,
                (None, Some(q)) => q,
                (None, None) => format!("for the lock on {seat}"),
            }
        }
    }
}

/// The start of a line that broke a deadlock on InnoDB, before what the entry did. Several
/// victims are several cycles, each broken as it was found, the next one often closed by the
/// previous victim's cancelled wait.
pub(super) fn victims(victims: &[String], own: &str) -> String {
    if let [one] = victims {
        return format!(
            "deadlock: InnoDB rolled {one}'s whole transaction back the moment the cycle closed, one with the fewest changes and locks on the cycle (1213); {own}"
        );
    }
    format!(
        "deadlocks: InnoDB rolled back the whole transactions of {}, one cycle after another, each time one with the fewest changes and locks on the cycle (1213); {own}",
        join(victims)
    )
}
