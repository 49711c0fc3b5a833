//! The one plain-English line of each entry: what the operation did and why, and whom the
//! entry released ("Adam commits; this releases Omar, who re-reads A7, sees HELD and updates
//! no rows"). Written from what the entry's trace node recorded, so it can be rendered late.
//! What one operation did, as a verb phrase, is `phrase`'s.

mod counter;
mod innodb;
mod phrase;
mod username;

use crate::counter_words::CounterWords;
use crate::schedule::{Condition, Op, Schedule};
use crate::username_words::UsernameWords;

use super::locks::WaitOn;
use super::names::{title, Names};
use super::trace::{Done, Node};
use phrase::phrase;

/// What the reason line needs: the run's strings and programs, the entry's node (the clock,
/// the committed rows and the open writes after it) and, on a counter, the shape's words.
struct Cx<'a> {
    names: &'a Names,
    schedule: &'a Schedule,
    clock: i64,
    node: &'a Node,
    counter: Option<CounterWords>,
    /// On a username, its words.
    username: Option<UsernameWords>,
}

impl Cx<'_> {
    /// A row by name: a seat's id, or a counter's row in its shape's words.
    fn row(&self, seat: usize) -> String {
        let id = &self.names.seats[seat];
        match self.counter {
            Some(c) => c.row(id),
            None => id.clone(),
        }
    }
}

/// The reason line of an entry.
pub(crate) fn line(names: &Names, schedule: &Schedule, node: &Node) -> String {
    let e = Cx {
        names,
        schedule,
        clock: node.committed.clock,
        node,
        counter: CounterWords::of(schedule.scenario()),
        username: UsernameWords::of(schedule.scenario()),
    };
    let op = &schedule.actors()[node.actor].program[node.op_index];
    let who = subject(&e, node.actor, op);
    let ev = &node.events;
    let own = match ev.done.iter().find(|d| d.entry == node.k) {
        Some(d) => format!("{who} {}", phrase(&e, op, d)),
        None => format!("{who} waits: {}", waiting(&e, node)),
    };
    let others = ev.done.iter().filter(|d| d.entry != node.k);
    let victims: Vec<String> = others
        .clone()
        .filter(|d| ev.victims.contains(&d.actor))
        .map(|d| subject(&e, d.actor, op_of(&e, d)))
        .collect();
    let released: Vec<String> = others
        .filter(|d| !ev.victims.contains(&d.actor))
        .map(|d| {
            let (who, op) = (subject(&e, d.actor, op_of(&e, d)), op_of(&e, d));
            format!("{who}, who {}", phrase(&e, op, d))
        })
        .collect();
    // A deadlock is broken before anything it held up goes on: say so first.
    let innodb = e.schedule.database() == crate::schedule::Database::Innodb;
    let mut line = match victims.len() {
        0 => own,
        _ if innodb => innodb::victims(&victims, &own),
        n => format!(
            "deadlock: {}, whose deadlock check runs first, {} (40P01, deadlock detected); {own}",
            join(&victims),
            if n == 1 { "fails" } else { "fail" }
        ),
    };
    if !released.is_empty() {
        line.push_str("; this releases ");
        line.push_str(&released.join("; and "));
    }
    title(&line)
}

fn op_of<'s>(e: &Cx<'s>, d: &Done) -> &'s Op {
    &e.schedule.actors()[d.actor].program[d.op_index]
}

/// Who does it: the actor's name, capitalised; the clock actor by its role.
fn subject(e: &Cx<'_>, actor: usize, op: &Op) -> String {
    match op {
        Op::Advance { .. } => "the clock".to_string(),
        Op::Sweep => "the sweeper".to_string(),
        _ => title(&e.names.names[actor]),
    }
}

/// Why the entry's operation waits, in words.
fn waiting(e: &Cx<'_>, node: &Node) -> String {
    let names: Vec<String> = node
        .blockers
        .iter()
        .map(|&b| title(&e.names.names[b]))
        .collect();
    let Some(w) = node.wait else {
        return "for a lock".to_string();
    };
    // Asked of the schedule, not only of the note: a build without InnoDB then leaves its words
    // out.
    let innodb = e.schedule.database() == crate::schedule::Database::Innodb;
    if let Some(kind) = w.innodb.filter(|_| innodb) {
        return innodb::waiting(e, node, w, kind);
    }
    if let Some(u) = &e.username {
        return username::waiting(u, w.on, w.for_holder, &names);
    }
    let seat = &e.row(w.seat as usize);
    match w.on {
        WaitOn::Xact(_) => format!(
            "{} inserted a ticket for {seat} and has not committed yet",
            join(&names)
        ),
        WaitOn::Update(..) => format!(
            "{} is updating {seat}, which must be re-checked",
            join(&names)
        ),
        WaitOn::Row(..) | WaitOn::Account(_) if w.for_holder => {
            format!("{} holds the row lock on {seat}", join(&names))
        }
        WaitOn::Row(..) | WaitOn::Account(_) => {
            format!(
                "{} {} ahead in the queue for {seat}",
                join(&names),
                if names.len() == 1 { "is" } else { "are" }
            )
        }
    }
}

/// Why an operation whose condition did not hold was not sent, as a verb phrase.
fn unmet(e: &Cx<'_>, op: &Op, d: &Done) -> String {
    let actor = &e.schedule.actors()[d.actor];
    let what = match op {
        Op::Pay { .. } => "does not pay".to_string(),
        Op::Confirm { .. } => "sends no confirmation".to_string(),
        op => format!("skips the {}", op.name()),
    };
    let attempt = actor.condition(d.op_index) == Condition::Failed;
    let in_skipped_tx = !matches!(op, Op::Begin { .. })
        && actor.program[..d.op_index]
            .iter()
            .rposition(|o| matches!(o, Op::Begin { .. }))
            .is_some_and(|b| {
                !actor.program[b..d.op_index]
                    .iter()
                    .any(|o| matches!(o, Op::Commit | Op::Rollback))
            });
    match (attempt, in_skipped_tx) {
        (true, true) => format!("{what}: the retry it belongs to is not needed"),
        (true, false) if e.schedule.database() == crate::schedule::Database::Innodb => format!(
            "{what}: the last attempt did not fail with a deadlock (1213) or a busy row (1205), so there is nothing to retry"
        ),
        (true, false) => format!(
            "{what}: the last attempt did not fail with a serialization failure (40001), a deadlock (40P01) or a busy row (55P03), so there is nothing to retry"
        ),
        (false, true) => format!("{what}: the transaction it belongs to did not start"),
        (false, false) if e.username.is_some() => format!(
            "{what}: the application was never told {} is free",
            e.username.as_ref().map_or("", |u| u.name())
        ),
        (false, false) => match crate::counter_words::CounterWords::of(e.schedule.scenario()) {
            Some(c) => format!("{what}: the application was never told it got {}", c.request()),
            None => format!("{what}: the application was never told the seats are held"),
        },
    }
}

/// "A7", "A7 and A8", "A12, A13 and A14".
pub(crate) fn join<S: AsRef<str>>(items: &[S]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_string(),
        [init @ .., last] => {
            format!(
                "{} and {}",
                init.iter()
                    .map(|s| s.as_ref())
                    .collect::<Vec<_>>()
                    .join(", "),
                last.as_ref()
            )
        }
    }
}
