//! The reason line's words for a counter's rows, in its shape's words (`CounterWords`): what a
//! read or lock saw ("reads the joint account: 150, enough for 100"), what a write or claim took
//! with the value before and after ("withdraws 100 from the joint account: 150 → 50"), what a
//! bounded decrement found too little of ("finds no ticket left in GA and updates no rows"), and
//! why an application did not send its write.

use crate::counter_words::CounterWords;
use crate::outcome::SeenRow;
use crate::schedule::Op;

use super::super::stmt::Fact;
use super::super::trace::Done;
use super::{join, Cx};

/// The rows a read or lock returned, each with its value: "GA: 1 ticket left".
pub(super) fn rows(c: CounterWords, seen: &[SeenRow]) -> String {
    let each: Vec<String> = seen
        .iter()
        .map(|r| match r.value {
            Some(v) => format!("{}: {}", c.row(&r.seat), c.judged(v)),
            None => c.row(&r.seat),
        })
        .collect();
    if each.is_empty() {
        "no rows".to_string()
    } else {
        join(&each)
    }
}

/// A write the application did not send: it did not see enough in the rows (its read found
/// too little, or its locking read skipped them as locked).
pub(super) fn skipped(c: CounterWords, op: &Op) -> String {
    let rows: Vec<String> = op.seats().iter().map(|id| c.enough_in(id)).collect();
    format!(
        "skips the {}: the application did not see {}",
        op.name(),
        join(&rows)
    )
}

/// A write or claim that ran: what it took from each row, from what to what, and the rows
/// whose check was false.
pub(super) fn updates(e: &Cx<'_>, c: CounterWords, d: &Done) -> String {
    let mut took = Vec::new();
    let mut short = Vec::new();
    for (s, f) in d.facts.iter() {
        let id = &e.names.seats[s as usize];
        match f {
            Fact::Took => {
                let after = value_after(e, d, s);
                took.push(c.takes(id, Some((after + c.take(), after))));
            }
            Fact::Recheck(_) => short.push(format!(
                "re-reads {} once the wait is over, finds {}",
                c.row(id),
                c.short_again()
            )),
            Fact::NoMatch(_) => short.push(format!("finds {}", c.short(id))),
            Fact::Skipped => {}
        }
    }
    let flag = c.kind() == crate::schedule::Shape::Coupon;
    if flag {
        took = d
            .facts
            .iter()
            .filter(|(_, f)| *f == Fact::Took)
            .map(|(s, _)| c.takes(&e.names.seats[s as usize], None))
            .collect();
    }
    let did = if took.is_empty() {
        "updates no rows".to_string()
    } else {
        join(&took)
    };
    if short.is_empty() {
        return did;
    }
    short.push(did);
    let last = short.pop().unwrap_or_default();
    format!("{} and {last}", short.join(", "))
}

/// The value `d`'s write left in row `seat`: the row as the entry left it (the newest open
/// write, or the committed row), less what the writes that finished after it in the same entry
/// took from it.
fn value_after(e: &Cx<'_>, d: &Done, seat: u8) -> i64 {
    let node = e.node;
    let newest = node
        .live
        .iter()
        .flat_map(|l| l.iter())
        .find(|l| l.seat == seat)
        .and_then(|l| l.write)
        .map_or(node.committed.seats[seat as usize].value, |(_, v)| v.value);
    let schedule = e.schedule;
    let later = node
        .events
        .done
        .iter()
        .skip_while(|o| !std::ptr::eq(*o, d))
        .skip(1)
        .filter(|o| {
            let op = &schedule.actors()[o.actor].program[o.op_index];
            matches!(op, Op::Write { .. } | Op::Claim { .. })
                && o.facts.iter().any(|(s, f)| s == seat && f == Fact::Took)
        })
        .count() as i64;
    newest + later * e.counter.map_or(0, |c| c.take())
}
