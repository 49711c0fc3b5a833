//! From a trace to an outcome: who was told they got which seat (and whether that claim was
//! later ended legitimately), the per-seat state at the end and the verdicts; then the
//! comparison of a simulated and a real outcome, and the check of a schedule's `expect`.
//!
//! The simulator and the executor both produce a `Trace`; everything here is computed from the
//! trace alone, so the two outcomes differ only where the traces do. By concept: `told` (who
//! was told what, entry by entry), `redis` (the claims a Redis key alone stands behind),
//! `verdict`, `compact` (the same replay on indices, for the explorer), `compare` and `expect`.

mod compact;
mod compare;
mod expect;
mod redis;
mod told;
mod verdict;

use std::collections::{BTreeMap, BTreeSet};

use crate::outcome::{Entry, Outcome, SeatOutcome, Trace, Verdict};
use crate::schedule::{Schedule, SeatStatus};
use crate::sql;

pub(crate) use compact::{judge_compact, CompactJudge, CompactVerdict};
pub use compare::{compare, compare_in, race_note};
pub use expect::check_expect;
use redis::{apply_redis, RedisKeys};
use told::{apply_event, end_claims, seat_outcomes, ActorBook, Told};
use verdict::verdict;

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
                (before, after),
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
