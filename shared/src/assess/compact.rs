//! The verdict of an order straight from the engine's compact record: the replay of `told`
//! and the verdict of `verdict`, on indices instead of strings, for the explorer.

use crate::engine::{Committed, Compact, Done, Names, Node};
use crate::outcome::{Answer, StepResult, Verdict};
use crate::schedule::{Op, PayOutcome, Schedule, SeatStatus};

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

    /// `apply_redis` on indices.
    fn apply_redis(&mut self, e: CompactEvent, until: i64, op: &Op, result: &StepResult) {
        let StepResult::Answer { answer } = result else {
            return;
        };
        let me = 1u128 << e.actor;
        let seat_bits = |mask: u64| (0..64).filter(move |s| mask & (1u64 << s) != 0);
        match (op, answer) {
            (Op::RedisHold { .. }, Answer::Held) => {
                for s in seat_bits(e.seats) {
                    if let Some((before, _, _)) = self.keys[s].replace((e.actor, e.hold, until)) {
                        let book = &mut self.books[before];
                        if before != e.actor && book.redis_only & (1 << s) != 0 {
                            book.redis_only &= !(1 << s);
                            self.told[s] &= !(1u128 << before);
                        }
                    }
                    if self.told[s] & me == 0 {
                        self.told[s] |= me;
                        self.books[e.actor].redis_only |= 1 << s;
                    }
                }
            }
            (Op::RedisRelease, Answer::Released) => {
                let current = self.books[e.actor].current_hold;
                for (s, key) in self.keys.iter_mut().enumerate() {
                    if key.is_some_and(|(holder, id, _)| holder == e.actor && Some(id) == current) {
                        *key = None;
                        let book = &mut self.books[e.actor];
                        if book.redis_only & (1 << s) != 0 {
                            book.redis_only &= !(1 << s);
                            self.told[s] &= !me;
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// The verdict with the committed rows at the end (`tables`).
    pub fn verdict(&self, schedule: &Schedule, tables: &Committed) -> CompactVerdict {
        let told = &self.told;
        let seated = told.iter().fold(0, |m, t| m | t);
        let double_booked = told.iter().enumerate().any(|(s, t)| {
            t.count_ones() >= 2 || tables.bookings.iter().filter(|b| b.0 as usize == s).count() >= 2
        });
        let lost_seat = tables.seats.iter().zip(told).any(|(row, t)| {
            (row.status == SeatStatus::Booked && *t == 0)
                || (row.status == SeatStatus::Held && row.until.is_none())
        });
        let refund_due = schedule
            .actors()
            .iter()
            .zip(&self.books)
            .enumerate()
            .filter(|(i, (actor, book))| {
                let pays = actor.program.iter().any(|op| matches!(op, Op::Pay { .. }));
                let paid = if pays {
                    book.payments
                        .iter()
                        .any(|(_, o)| *o != PayOutcome::Declined)
                } else {
                    book.confirmed
                };
                paid && seated & (1 << i) == 0
            })
            .fold(0, |m, (i, _)| m | 1 << i);
        let unpaid_hold = tables
            .seats
            .iter()
            .filter(|r| r.status == SeatStatus::Held && r.until.is_some_and(|u| u >= tables.clock))
            .filter_map(|r| r.holder)
            .fold(0, |m, h| m | 1 << h)
            | self
                .keys
                .iter()
                .enumerate()
                .filter_map(|(s, key)| {
                    let (a, _, until) = (*key)?;
                    let live = until >= tables.clock && self.books[a].redis_only & (1 << s) != 0;
                    live.then_some(1u128 << a)
                })
                .fold(0, |m, a| m | a);
        let booked_late = self
            .books
            .iter()
            .enumerate()
            .filter(|(_, b)| b.booked_late)
            .fold(0, |m, (i, _)| m | 1 << i);
        CompactVerdict {
            double_booked,
            lost_seat,
            refund_due,
            unpaid_hold,
            seated,
            booked_late,
        }
    }
}

/// `Verdict` on indices (actors and holders as masks of name indices), with who ended with a
/// seat: cheap to compute and compare for every order, turned into a `Verdict` once per group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CompactVerdict {
    pub double_booked: bool,
    pub lost_seat: bool,
    pub refund_due: u128,
    pub unpaid_hold: u128,
    /// The names told they got a seat, at the end.
    pub seated: u128,
    pub booked_late: u128,
}

impl CompactVerdict {
    pub fn verdict(&self, names: &Names) -> Verdict {
        // Actors come first among the names, in the schedule's order, as `refund_due` lists
        // them; `unpaid_hold` is sorted by name.
        let named = |mask: u128| -> Vec<String> {
            (0..names.names.len())
                .filter(|&n| mask & (1 << n) != 0)
                .map(|n| names.names[n].clone())
                .collect()
        };
        let mut unpaid_hold = named(self.unpaid_hold);
        unpaid_hold.sort();
        unpaid_hold.dedup();
        Verdict {
            double_booked: self.double_booked,
            lost_seat: self.lost_seat,
            refund_due: named(self.refund_due),
            unpaid_hold,
            booked_late: named(self.booked_late),
        }
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

/// `apply_event` on indices.
fn apply_compact(
    book: &mut CompactBook,
    told: &mut [u128],
    e: CompactEvent,
    op: &Op,
    result: &StepResult,
    (before, after): (&Committed, &Committed),
) {
    let me = 1u128 << e.actor;
    let tell = |book: &mut CompactBook, told: &mut [u128], seats: u64| {
        if book.in_tx {
            book.pending |= seats;
        } else {
            book.redis_only &= !seats;
            for (s, t) in told.iter_mut().enumerate() {
                if seats & (1 << s) != 0 {
                    *t |= me;
                }
            }
        }
    };
    match (op, result) {
        (Op::Begin { .. }, StepResult::Ok { .. }) => {
            book.in_tx = true;
            book.pending = 0;
        }
        (Op::Commit, StepResult::Ok { .. }) => {
            book.in_tx = false;
            let seats = std::mem::take(&mut book.pending);
            tell(book, told, seats);
        }
        (Op::Commit | Op::Rollback, _) => {
            book.in_tx = false;
            let seats = std::mem::take(&mut book.pending);
            refused_compact(book, told, me, seats);
        }
        (Op::Claim { seats, .. } | Op::Write { seats, .. }, StepResult::Ok { rows: Some(n) })
            if *n as usize == seats.len() =>
        {
            book.current_hold = Some(e.hold);
            tell(book, told, e.seats);
        }
        (Op::Book { seats }, StepResult::Ok { rows: Some(n) }) if *n as usize == seats.len() => {
            tell(book, told, e.seats);
        }
        (Op::Claim { .. } | Op::Write { .. } | Op::Book { .. }, _) => {
            refused_compact(book, told, me, e.seats);
        }
        (
            Op::RedisHold { .. },
            StepResult::Answer {
                answer: Answer::Held,
            },
        ) => book.current_hold = Some(e.hold),
        (
            Op::Hold { .. },
            StepResult::Answer {
                answer: Answer::Held,
            },
        ) => {
            book.current_hold = Some(e.hold);
            tell(book, told, e.seats);
        }
        (Op::Confirm { .. }, StepResult::Answer { answer }) => {
            book.confirmed = true;
            if *answer == Answer::Issued
                && before.seats.iter().any(|r| {
                    r.status == SeatStatus::Held
                        && r.hold.is_some()
                        && r.hold == book.current_hold
                        && r.until.is_some_and(|u| u < after.clock)
                })
            {
                book.booked_late = true;
            }
            if matches!(answer, Answer::Issued | Answer::Duplicate) {
                let seats = after
                    .bookings
                    .iter()
                    .filter(|b| Some(b.2) == book.current_hold)
                    .fold(0, |m, b| m | 1 << b.0);
                tell(book, told, seats);
            } else if *answer == Answer::RefundDue {
                for (row, t) in after.seats.iter().zip(told.iter_mut()) {
                    if row.hold.is_some() && row.hold == book.current_hold {
                        *t &= !me;
                    }
                }
            }
        }
        (Op::Pay { outcome }, StepResult::Ok { .. }) => {
            let key = book.current_hold.unwrap_or(e.no_hold);
            if !book.payments.iter().any(|(k, _)| *k == key) {
                book.payments.push((key, *outcome));
            }
        }
        _ => {}
    }
}

/// `refused` on indices.
fn refused_compact(book: &mut CompactBook, told: &mut [u128], me: u128, seats: u64) {
    let ended = book.redis_only & seats;
    if ended != 0 {
        book.redis_only &= !ended;
        for (s, t) in told.iter_mut().enumerate() {
            if ended & (1 << s) != 0 {
                *t &= !me;
            }
        }
    }
}

/// `end_claims` on indices.
fn end_claims_compact(told: &mut [u128], before: &Committed, after: &Committed) {
    for ((old, new), t) in before.seats.iter().zip(&after.seats).zip(told.iter_mut()) {
        let Some(holder) = old.holder else { continue };
        if new.holder == Some(holder) {
            continue;
        }
        let expired = old.status == SeatStatus::Held && old.until.is_some_and(|u| u < after.clock);
        if new.status == SeatStatus::Available || expired {
            *t &= !(1u128 << holder);
        }
    }
}
