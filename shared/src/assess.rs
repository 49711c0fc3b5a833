//! From a trace to an outcome: who was told they got which seat (and whether that claim was
//! later ended legitimately), the per-seat state at the end and the verdicts; then the
//! comparison of a simulated and a real outcome, and the check of a schedule's `expect`.
//!
//! The simulator and the executor both produce a `Trace`; everything here is computed from the
//! trace alone, so the two outcomes differ only where the traces do.

use std::collections::{BTreeMap, BTreeSet};

use crate::engine::{Committed, Compact, Done, Names, Node};
use crate::outcome::{
    Answer, BookingRow, Entry, Outcome, SeatOutcome, SeatRow, SeenRow, StepResult, Tables, Trace,
    Verdict,
};
use crate::schedule::{Op, PayOutcome, Schedule, SeatStatus};
use crate::sql;

/// Per-actor bookkeeping while replaying the events of a trace.
#[derive(Default)]
struct ActorBook {
    in_tx: bool,
    /// Seats its open transaction would tell it it got, at commit.
    pending: Vec<String>,
    current_hold: Option<String>,
    /// Payment decisions by idempotency key: a retry gets the first one.
    payments: BTreeMap<String, PayOutcome>,
    confirmed: bool,
    /// Seats it was told it got by a Redis hold alone, with nothing in the database behind
    /// the claim (yet): the claim ends when another buyer's SET NX takes the key (it had run
    /// out), when it deletes its key, or when the database refuses it the seat.
    redis_only: BTreeSet<String>,
}

/// Whose hold each seat's Redis key stores (the actor and the hold id), and until when, as the
/// trace tells it: Redis is simulated on the client side, so its answers are in the trace and
/// its keys follow from them, as `Clients` keeps them.
type RedisKeys = BTreeMap<String, (usize, String, i64)>;

/// Builds the outcome (told, verdicts) of a trace.
pub fn assess(schedule: &Schedule, trace: Trace) -> Outcome {
    let actors = schedule.actors();
    let mut entries = Vec::with_capacity(trace.entries.len());
    let (seats, verdict) = replay(schedule, &trace, |k, told| {
        let e = &trace.entries[k];
        let op = actors[schedule.actor_index(&e.actor).expect("known actor")].program[e.op_index]
            .clone();
        entries.push(Entry {
            step: e.step(),
            trace: e.clone(),
            op,
            told: told
                .iter()
                .map(|(s, a)| (s.clone(), a.iter().cloned().collect()))
                .collect(),
        });
    });
    Outcome {
        entries,
        initial: trace.initial,
        seats,
        verdict,
        races: trace.races,
    }
}

/// Only the seats at the end and the verdict: what the explorer needs from each order.
pub fn judge(schedule: &Schedule, trace: &Trace) -> (BTreeMap<String, SeatOutcome>, Verdict) {
    replay(schedule, trace, |_, _| {})
}

type Told = BTreeMap<String, BTreeSet<String>>;

/// Replays the completions of a trace in the order they happened, keeping who was told they
/// got which seat; calls `after_entry` with that after every entry.
fn replay(
    schedule: &Schedule,
    trace: &Trace,
    mut after_entry: impl FnMut(usize, &Told),
) -> (BTreeMap<String, SeatOutcome>, Verdict) {
    let actors = schedule.actors();
    let mut books: Vec<ActorBook> = actors.iter().map(|_| ActorBook::default()).collect();
    let mut told: Told = schedule
        .scenario()
        .seats
        .iter()
        .map(|s| (s.id.clone(), BTreeSet::new()))
        .collect();
    for seat in &schedule.scenario().seats {
        if let (Some(holder), SeatStatus::Held | SeatStatus::Booked) = (&seat.holder, seat.status) {
            told.entry(seat.id.clone())
                .or_default()
                .insert(holder.clone());
            if let Some(i) = schedule.actor_index(holder) {
                books[i].current_hold = Some(sql::initial_hold(holder));
            }
        }
    }

    // Completions in the order they happened: by the entry during which they completed, the
    // entry's own operation first, then the waiters it released in the order they had waited.
    let mut events: Vec<(usize, usize, usize)> = trace
        .entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.completed_after.map(|at| (at, usize::from(at != i), i)))
        .collect();
    events.sort_unstable();

    let mut keys = RedisKeys::new();
    let mut next_event = 0;
    for k in 0..trace.entries.len() {
        let before = if k == 0 {
            &trace.initial
        } else {
            &trace.entries[k - 1].tables
        };
        let after = &trace.entries[k].tables;
        while next_event < events.len() && events[next_event].0 == k {
            let e = &trace.entries[events[next_event].2];
            let actor = schedule
                .actor_index(&e.actor)
                .expect("trace actors come from the schedule");
            let op = &actors[actor].program[e.op_index];
            let result = e.result.as_ref().expect("a completed entry has a result");
            let hold = sql::hold_id(&e.actor, e.op_index, op);
            if op.is_redis() {
                let until = after.clock + schedule.scenario().hold_minutes;
                apply_redis(
                    &mut books,
                    &mut told,
                    &mut keys,
                    (actor, &hold, until),
                    op,
                    result,
                    schedule,
                );
            }
            apply_event(
                &mut books[actor],
                &mut told,
                &e.actor,
                op,
                result,
                hold,
                after,
            );
            next_event += 1;
        }
        end_claims(&mut told, before, after);
        after_entry(k, &told);
    }

    let final_tables = trace
        .entries
        .last()
        .map(|e| &e.tables)
        .unwrap_or(&trace.initial);
    let seats = seat_outcomes(final_tables, &told);
    let verdict = verdict(schedule, &books, &seats, final_tables, &keys);
    (seats, verdict)
}

/// A Redis op's effect on the claims: a SET NX that answered `held` took every key it names
/// (any earlier key had run out or been deleted, so an earlier Redis-only claim on it ends),
/// and a delete removes the keys of its actor's current hold, ending its Redis-only claims on
/// them. `me` is the actor, the hold id the op would create and the minute its new keys would
/// run out after.
fn apply_redis(
    books: &mut [ActorBook],
    told: &mut Told,
    keys: &mut RedisKeys,
    me: (usize, &str, i64),
    op: &Op,
    result: &StepResult,
    schedule: &Schedule,
) {
    let (actor, hold, until) = me;
    let name = &schedule.actors()[actor].name;
    let StepResult::Answer { answer } = result else {
        return;
    };
    match (op, answer) {
        (Op::RedisHold { seats }, Answer::Held) => {
            for seat in seats {
                let key = (actor, hold.to_string(), until);
                if let Some((before, _, _)) = keys.insert(seat.clone(), key) {
                    if before != actor && books[before].redis_only.remove(seat) {
                        if let Some(t) = told.get_mut(seat) {
                            t.remove(&schedule.actors()[before].name);
                        }
                    }
                }
                let t = told.entry(seat.clone()).or_default();
                if !t.contains(name) {
                    t.insert(name.clone());
                    books[actor].redis_only.insert(seat.clone());
                }
            }
        }
        (Op::RedisRelease, Answer::Released) => {
            let current = books[actor].current_hold.clone();
            keys.retain(|seat, (holder, id, _)| {
                if *holder != actor || current.as_ref() != Some(id) {
                    return true;
                }
                if books[actor].redis_only.remove(seat) {
                    if let Some(t) = told.get_mut(seat) {
                        t.remove(name);
                    }
                }
                false
            });
        }
        _ => {}
    }
}

/// The database refused `actor` the `seats` it tried to take: its application tells it so,
/// and its Redis-only claims on them end.
fn refused(book: &mut ActorBook, told: &mut Told, actor: &str, seats: &[String]) {
    for seat in seats {
        if book.redis_only.remove(seat) {
            if let Some(t) = told.get_mut(seat) {
                t.remove(actor);
            }
        }
    }
}

fn apply_event(
    book: &mut ActorBook,
    told: &mut Told,
    actor: &str,
    op: &Op,
    result: &StepResult,
    hold: String,
    after: &Tables,
) {
    let tell = |book: &mut ActorBook, told: &mut Told, seats: Vec<String>| {
        if book.in_tx {
            book.pending.extend(seats);
        } else {
            for seat in seats {
                book.redis_only.remove(&seat);
                told.entry(seat).or_default().insert(actor.to_string());
            }
        }
    };
    match (op, result) {
        (Op::Begin { .. }, StepResult::Ok { .. }) => {
            book.in_tx = true;
            book.pending.clear();
        }
        (Op::Commit, StepResult::Ok { .. }) => {
            book.in_tx = false;
            let seats = std::mem::take(&mut book.pending);
            tell(book, told, seats);
        }
        (Op::Commit | Op::Rollback, _) => {
            book.in_tx = false;
            let seats = std::mem::take(&mut book.pending);
            refused(book, told, actor, &seats);
        }
        (Op::Claim { seats, .. } | Op::Write { seats, .. }, StepResult::Ok { rows: Some(n) })
            if *n as usize == seats.len() =>
        {
            book.current_hold = Some(hold);
            tell(book, told, seats.clone());
        }
        (Op::Book { seats }, StepResult::Ok { rows: Some(n) }) if *n as usize == seats.len() => {
            tell(book, told, seats.clone());
        }
        (Op::Claim { seats, .. } | Op::Write { seats, .. } | Op::Book { seats }, _) => {
            refused(book, told, actor, seats);
        }
        (
            Op::Hold { seats, .. },
            StepResult::Answer {
                answer: Answer::Held,
            },
        ) => {
            book.current_hold = Some(hold);
            tell(book, told, seats.clone());
        }
        (
            Op::RedisHold { .. },
            StepResult::Answer {
                answer: Answer::Held,
            },
        ) => book.current_hold = Some(hold),
        (Op::Confirm { .. }, StepResult::Answer { answer }) => {
            book.confirmed = true;
            if matches!(answer, Answer::Issued | Answer::Duplicate) {
                let current = book.current_hold.clone();
                let seats: Vec<String> = after
                    .bookings
                    .iter()
                    .filter(|b| Some(&b.booking_id) == current.as_ref())
                    .map(|b| b.seat.clone())
                    .collect();
                tell(book, told, seats);
            } else if *answer == Answer::RefundDue {
                // The buyer is told the hold is gone: its claim on the hold's seats ends here.
                for row in after
                    .seats
                    .iter()
                    .filter(|r| r.hold_id.is_some() && r.hold_id == book.current_hold)
                {
                    if let Some(actors) = told.get_mut(&row.id) {
                        actors.remove(actor);
                    }
                }
            }
        }
        (Op::Pay { outcome }, StepResult::Ok { .. }) => {
            let key = book
                .current_hold
                .clone()
                .unwrap_or_else(|| sql::no_hold(actor));
            book.payments.entry(key).or_insert(*outcome);
        }
        _ => {}
    }
}

/// Ends the claims that ended legitimately during one entry: a seat made AVAILABLE (released
/// or swept), or taken by someone else after its holder's hold had run out. A claim that was
/// overwritten while still valid stays counted: that is the double booking.
fn end_claims(told: &mut Told, before: &Tables, after: &Tables) {
    for (old, new) in before.seats.iter().zip(&after.seats) {
        let Some(holder) = &old.holder else { continue };
        if new.holder.as_ref() == Some(holder) {
            continue;
        }
        let expired = old.status == SeatStatus::Held && old.until.is_some_and(|u| u < after.clock);
        if new.status == SeatStatus::Available || expired {
            if let Some(actors) = told.get_mut(&old.id) {
                actors.remove(holder);
            }
        }
    }
}

fn seat_outcomes(tables: &Tables, told: &Told) -> BTreeMap<String, SeatOutcome> {
    tables
        .seats
        .iter()
        .map(|row| {
            let outcome = SeatOutcome {
                status: row.status,
                holder: row.holder.clone(),
                told: told
                    .get(&row.id)
                    .map(|a| a.iter().cloned().collect())
                    .unwrap_or_default(),
                tickets: tables
                    .bookings
                    .iter()
                    .filter(|b| b.seat == row.id)
                    .map(|b| b.holder.clone())
                    .collect(),
            };
            (row.id.clone(), outcome)
        })
        .collect()
}

fn verdict(
    schedule: &Schedule,
    books: &[ActorBook],
    seats: &BTreeMap<String, SeatOutcome>,
    tables: &Tables,
    keys: &RedisKeys,
) -> Verdict {
    let double_booked = seats
        .values()
        .any(|s| s.told.len() >= 2 || s.tickets.len() >= 2);
    let lost_seat = seats
        .values()
        .any(|s| s.status == SeatStatus::Booked && s.told.is_empty())
        || tables
            .seats
            .iter()
            .any(|r| r.status == SeatStatus::Held && r.until.is_none());
    let has_seat: BTreeSet<&String> = seats.values().flat_map(|s| s.told.iter()).collect();
    let refund_due = schedule
        .actors()
        .iter()
        .zip(books)
        .filter(|(actor, book)| {
            let pays = actor.program.iter().any(|op| matches!(op, Op::Pay { .. }));
            let paid = if pays {
                book.payments.values().any(|o| *o != PayOutcome::Declined)
            } else {
                book.confirmed
            };
            paid && !has_seat.contains(&actor.name)
        })
        .map(|(actor, _)| actor.name.clone())
        .collect();
    let mut unpaid_hold: BTreeSet<String> = tables
        .seats
        .iter()
        .filter(|r| r.status == SeatStatus::Held && r.until.is_some_and(|u| u >= tables.clock))
        .filter_map(|r| r.holder.clone())
        .collect();
    // A live Redis hold that nothing in the database stands behind is a hold too.
    unpaid_hold.extend(
        keys.iter()
            .filter(|(seat, (a, _, until))| {
                *until >= tables.clock && books[*a].redis_only.contains(*seat)
            })
            .map(|(_, (a, _, _))| schedule.actors()[*a].name.clone()),
    );
    Verdict {
        double_booked,
        lost_seat,
        refund_due,
        unpaid_hold: unpaid_hold.into_iter().collect(),
    }
}

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
            self.apply(schedule, names, d, &node.committed);
        } else {
            for d in done.iter().filter(|d| d.entry == node.k) {
                self.apply(schedule, names, d, &node.committed);
            }
            // At most one completion per actor: a selection by entry needs no buffer.
            let mut last: Option<usize> = None;
            while let Some(d) = done
                .iter()
                .filter(|d| d.entry != node.k && last.is_none_or(|l| d.entry > l))
                .min_by_key(|d| d.entry)
            {
                last = Some(d.entry);
                self.apply(schedule, names, d, &node.committed);
            }
        }
        if !std::ptr::eq(before, &*node.committed) {
            end_claims_compact(&mut self.told, before, &node.committed);
        }
    }

    /// One completion, with the committed rows after the entry during which it happened.
    fn apply(&mut self, schedule: &Schedule, names: &Names, d: &Done, after: &Committed) {
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
            after,
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
        CompactVerdict {
            double_booked,
            lost_seat,
            refund_due,
            unpaid_hold,
            seated,
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
        } = self;
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
    after: &Committed,
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

/// What the model's first race means for a real run, when the order has one (`Trace::races`).
pub fn race_note(simulated: &Outcome) -> Option<String> {
    let k = *simulated.races.first()?;
    Some(format!(
        "entry {} is a race on a real server: the sessions that one commit or rollback woke run \
         in whichever order the machine picks. The model lets the one that waited first go first; \
         PostgreSQL may take another order from there",
        k + 1
    ))
}

/// The differences between a simulated and a real outcome, in plain words; empty if identical.
pub fn compare(simulated: &Outcome, real: &Outcome) -> Vec<String> {
    let mut out = Vec::new();
    if simulated.initial != real.initial {
        out.push("the initial tables differ".to_string());
    }
    if simulated.entries.len() != real.entries.len() {
        out.push(format!(
            "the simulator ran {} entries, PostgreSQL {}",
            simulated.entries.len(),
            real.entries.len()
        ));
    }
    for (k, (s, r)) in simulated.entries.iter().zip(&real.entries).enumerate() {
        let (s, r) = (&s.trace, &r.trace);
        let what = format!(
            "entry {} ({} {})",
            k + 1,
            s.actor,
            simulated.entries[k].op.name()
        );
        if s.actor != r.actor || s.op_index != r.op_index {
            out.push(format!(
                "{what}: PostgreSQL ran {}'s operation {} instead",
                r.actor,
                r.op_index + 1
            ));
            continue;
        }
        if s.result != r.result && !same_error(&s.result, &r.result) {
            out.push(format!(
                "{what}: simulated {}, PostgreSQL {}",
                describe(&s.result),
                describe(&r.result)
            ));
        }
        if s.waited_for != r.waited_for {
            out.push(format!(
                "{what}: simulated waiting for [{}], PostgreSQL waiting for [{}]",
                s.waited_for.join(", "),
                r.waited_for.join(", ")
            ));
        }
        if s.completed_after != r.completed_after {
            out.push(format!(
                "{what}: simulated completing {}, PostgreSQL {}",
                when(s.completed_after),
                when(r.completed_after)
            ));
        }
        if s.seen != r.seen {
            out.push(format!(
                "{what}: the rows returned differ: simulated {}, PostgreSQL {}",
                seen_rows(&s.seen),
                seen_rows(&r.seen)
            ));
        }
        if s.tables != r.tables {
            out.push(format!(
                "{what}: the stored tables differ afterwards: {}",
                diff_tables(&s.tables, &r.tables)
            ));
        }
    }
    if simulated.seats != real.seats {
        out.push("the seats at the end differ (status, holder, told or tickets)".to_string());
    }
    if simulated.verdict != real.verdict {
        out.push(format!(
            "the verdict differs: simulated {}, PostgreSQL {}",
            verdict_words(&simulated.verdict),
            verdict_words(&real.verdict)
        ));
    }
    out
}

/// Errors are equal when their SQLSTATEs are: the message is PostgreSQL's wording, shown, not
/// compared.
fn same_error(a: &Option<StepResult>, b: &Option<StepResult>) -> bool {
    matches!((a, b), (Some(StepResult::Error { code: x, .. }), Some(StepResult::Error { code: y, .. })) if x == y)
}

fn describe(r: &Option<StepResult>) -> String {
    r.as_ref()
        .map(StepResult::short)
        .unwrap_or_else(|| "still waiting".to_string())
}

fn when(at: Option<usize>) -> String {
    at.map(|k| format!("during entry {}", k + 1))
        .unwrap_or_else(|| "never".to_string())
}

fn diff_tables(s: &Tables, r: &Tables) -> String {
    let mut parts = Vec::new();
    if s.clock != r.clock {
        parts.push(format!("clock {} vs {}", s.clock, r.clock));
    }
    for (a, b) in s.seats.iter().zip(&r.seats) {
        if a != b {
            parts.push(format!("{} vs {}", seat_row(a), seat_row(b)));
        }
    }
    if s.bookings != r.bookings {
        parts.push(format!(
            "{} vs {}",
            tickets(&s.bookings),
            tickets(&r.bookings)
        ));
    }
    if s.refunds != r.refunds {
        parts.push(format!(
            "refunds owed to [{}] vs [{}]",
            s.refunds.join(", "),
            r.refunds.join(", ")
        ));
    }
    parts.join("; ")
}

/// A seat row in a difference: `A3 HELD by ana (hold ana:3) until minute 10`.
fn seat_row(row: &SeatRow) -> String {
    let mut text = format!("{} {}", row.id, row.status.as_sql());
    if let Some(holder) = &row.holder {
        text.push_str(&format!(" by {holder}"));
    }
    if let Some(hold) = &row.hold_id {
        text.push_str(&format!(" (hold {hold})"));
    }
    if let Some(until) = row.until {
        text.push_str(&format!(" until minute {until}"));
    }
    text
}

/// The ticket rows in a difference: `tickets A2 to ana (ana:3), A3 to ben (ben:4)`.
fn tickets(rows: &[BookingRow]) -> String {
    if rows.is_empty() {
        return "no tickets".to_string();
    }
    let rows: Vec<String> = rows
        .iter()
        .map(|b| format!("{} to {} ({})", b.seat, b.holder, b.booking_id))
        .collect();
    format!("tickets {}", rows.join(", "))
}

/// The rows a statement returned, in a difference: `[A1 AVAILABLE, A2 HELD by ana]`.
fn seen_rows(rows: &[SeenRow]) -> String {
    let rows: Vec<String> = rows
        .iter()
        .map(|r| match &r.holder {
            Some(holder) => format!("{} {} by {holder}", r.seat, r.status.as_sql()),
            None => format!("{} {}", r.seat, r.status.as_sql()),
        })
        .collect();
    format!("[{}]", rows.join(", "))
}

/// A verdict in a difference: what went wrong, or "nothing wrong".
fn verdict_words(v: &Verdict) -> String {
    let problems = v.problems();
    if problems.is_empty() {
        "nothing wrong".to_string()
    } else {
        problems.join(", ")
    }
}

/// Where the outcome fails the schedule's `expect`; empty if it holds (or there is none).
pub fn check_expect(schedule: &Schedule, outcome: &Outcome) -> Vec<String> {
    let Some(expect) = schedule.expect() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let v = &outcome.verdict;
    let mut check = |key: &str, want: String, got: String| {
        if want != got {
            out.push(format!("expect.{key}: expected {want}, got {got}"));
        }
    };
    if let Some(want) = expect.double_booked {
        check(
            "double_booked",
            want.to_string(),
            v.double_booked.to_string(),
        );
    }
    if let Some(want) = expect.lost_seat {
        check("lost_seat", want.to_string(), v.lost_seat.to_string());
    }
    if let Some(want) = &expect.refund_due {
        check(
            "refund_due",
            format!("{:?}", sorted(want)),
            format!("{:?}", v.refund_due),
        );
    }
    if let Some(want) = &expect.unpaid_hold {
        check(
            "unpaid_hold",
            format!("{:?}", sorted(want)),
            format!("{:?}", v.unpaid_hold),
        );
    }
    if let Some(want) = &expect.told {
        for (seat, actors) in want {
            let got = outcome
                .seats
                .get(seat)
                .map(|s| s.told.clone())
                .unwrap_or_default();
            check(
                &format!("told.{seat}"),
                format!("{:?}", sorted(actors)),
                format!("{got:?}"),
            );
        }
    }
    if let Some(want) = &expect.final_seats {
        for (seat, f) in want {
            let got = outcome.seats.get(seat);
            check(
                &format!("final.{seat}"),
                format!("{} {:?}", f.status.as_sql(), f.holder),
                got.map(|s| format!("{} {:?}", s.status.as_sql(), s.holder))
                    .unwrap_or_default(),
            );
        }
    }
    if let Some(want) = &expect.steps {
        for (k, (w, e)) in want.iter().zip(&outcome.entries).enumerate() {
            check(&format!("steps[{k}]"), w.clone(), e.step.clone());
        }
    }
    out
}

fn sorted(v: &[String]) -> Vec<String> {
    let mut v = v.to_vec();
    v.sort();
    v.dedup();
    v
}
