//! The verdict of an order straight from the engine's compact record: the replay of `told`
//! and the verdict of `verdict`, on indices instead of strings, for the explorer.
//!
//! This file replays the entries; `compact/told.rs` applies one completion, `compact/redis.rs`
//! the simulated Redis, `compact/verdict.rs` makes the verdict at the end.

mod redis;
mod told;
mod verdict;

use crate::engine::{Committed, Compact, Done, Names, Node};
use crate::schedule::{PayOutcome, Schedule};
use told::{apply_compact, end_claims_compact};

pub(crate) use verdict::CompactVerdict;

/// The verdict of an order straight from the engine's compact record, without rendering its
/// trace: the same replay as `judge` (the same events in the same order, the same claims ended,
/// the same verdict), on indices instead of strings, with who ended with a seat. A test holds
/// the explorer, which judges with it, to `judge` on every order of every built-in scenario.
pub(crate) fn judge_compact(schedule: &Schedule, c: &Compact<'_>) -> CompactVerdict {
    let mut judge = CompactJudge::new(schedule, c.names);
    let mut before = c.initial;
    for node in &c.nodes {
        judge.entry(schedule, c.names, before, node);
        before = &node.committed;
    }
    judge.verdict(schedule, before)
}

/// `replay` on indices, one entry at a time: who was told they got which seat so far, and each
/// actor's bookkeeping. The explorer keeps one per depth of its walk, so that an entry shared by
/// many orders is replayed once.
#[derive(Debug, Default)]
pub(crate) struct CompactJudge {
    books: Vec<CompactBook>,
    /// Per seat: the names told they got it, as a mask of name indices.
    told: Vec<u128>,
    /// Per seat: whose hold its Redis key stores, the hold id, and until when (`RedisKeys`).
    keys: Vec<Option<(usize, u16, i64)>>,
}

impl Clone for CompactJudge {
    fn clone(&self) -> Self {
        CompactJudge {
            books: self.books.clone(),
            told: self.told.clone(),
            keys: self.keys.clone(),
        }
    }

    /// Reuses the buffers: the explorer copies a judge at every step of its walk.
    fn clone_from(&mut self, source: &Self) {
        self.books.clone_from(&source.books);
        self.told.clone_from(&source.told);
        self.keys.clone_from(&source.keys);
    }
}

impl CompactJudge {
    /// Before the first entry: the scenario's holders are told they have their seats.
    pub fn new(schedule: &Schedule, names: &Names) -> CompactJudge {
        let actors = schedule.actors();
        debug_assert!(names.names.len() <= 128, "every name fits a mask");
        let mut books: Vec<CompactBook> = actors.iter().map(|_| CompactBook::default()).collect();
        let mut told: Vec<u128> = vec![0; names.seats.len()];
        for (s, val) in names.initial.iter().enumerate() {
            if let Some(holder) = val.holder {
                told[s] |= 1 << holder;
                if (holder as usize) < actors.len() {
                    books[holder as usize].current_hold = val.hold;
                }
            }
        }
        let keys = vec![None; names.seats.len()];
        CompactJudge { books, told, keys }
    }

    /// Replays one entry: the completions during it, its own first, then the waiters it
    /// released in the order they had waited (by entry), as `replay` sorts them; then the
    /// claims that ended between the committed rows `before` it and after it.
    pub fn entry(&mut self, schedule: &Schedule, names: &Names, before: &Committed, node: &Node) {
        let done = &node.events.done;
        if let Some(d) = done.single() {
            self.apply(schedule, names, d, (before, &node.committed));
        } else {
            for d in done.iter().filter(|d| d.entry == node.k) {
                self.apply(schedule, names, d, (before, &node.committed));
            }
            // At most one completion per actor: a selection by entry needs no buffer.
            let mut last: Option<usize> = None;
            while let Some(d) = done
                .iter()
                .filter(|d| d.entry != node.k && last.is_none_or(|l| d.entry > l))
                .min_by_key(|d| d.entry)
            {
                last = Some(d.entry);
                self.apply(schedule, names, d, (before, &node.committed));
            }
        }
        if !std::ptr::eq(before, &*node.committed) {
            end_claims_compact(&mut self.told, before, &node.committed);
        }
    }

    /// One completion, with the committed rows after the entry during which it happened.
    fn apply(
        &mut self,
        schedule: &Schedule,
        names: &Names,
        d: &Done,
        (before, after): (&Committed, &Committed),
    ) {
        let op = &schedule.actors()[d.actor].program[d.op_index];
        let e = CompactEvent {
            actor: d.actor,
            hold: names.op_hold[d.actor][d.op_index],
            seats: names.op_seats[d.actor][d.op_index],
            no_hold: names.no_hold[d.actor],
        };
        if op.is_redis() {
            let until = after.clock + schedule.scenario().hold_minutes;
            self.apply_redis(e, until, op, &d.result);
        }
        apply_compact(
            &mut self.books[d.actor],
            &mut self.told,
            e,
            op,
            &d.result,
            (before, after),
        );
    }
}

/// `ActorBook` on indices: seats as a mask, hold ids as their index among the run's strings.
#[derive(Debug, Default)]
struct CompactBook {
    in_tx: bool,
    pending: u64,
    current_hold: Option<u16>,
    payments: Vec<(u16, PayOutcome)>,
    confirmed: bool,
    /// `ActorBook::redis_only`, as a mask of seats.
    redis_only: u64,
    booked_late: bool,
}

impl Clone for CompactBook {
    fn clone(&self) -> Self {
        let mut book = CompactBook::default();
        book.clone_from(self);
        book
    }

    fn clone_from(&mut self, source: &Self) {
        let CompactBook {
            in_tx,
            pending,
            current_hold,
            payments,
            confirmed,
            redis_only,
            booked_late,
        } = self;
        *booked_late = source.booked_late;
        *redis_only = source.redis_only;
        *in_tx = source.in_tx;
        *pending = source.pending;
        *current_hold = source.current_hold;
        payments.clone_from(&source.payments);
        *confirmed = source.confirmed;
    }
}

/// What `apply_compact` needs of the event's operation besides the op: its actor, the hold id
/// it creates, its seats, and the actor's placeholder hold id.
#[derive(Clone, Copy)]
struct CompactEvent {
    actor: usize,
    hold: u16,
    seats: u64,
    no_hold: u16,
}
