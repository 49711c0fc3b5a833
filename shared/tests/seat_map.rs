//! The seat map against the model, at every step of every built-in scenario (its own order, or
//! a feasible round robin when it has none that runs), under every defence it can be switched
//! to, and over the first orders of each: status and tickets are the stored rows, the lock
//! holder is the engine's, the queue is exactly the buyers that the engine says wait (each for
//! someone holding or writing that seat, or ahead of it in line), an uncommitted write is what
//! the row becomes when its writer commits, and a seat sold twice names every buyer.

use shared::assess::assess;
use shared::engine::{Blocked, Engine};
use shared::explorer::for_each_order;
use shared::schedule::SeatStatus;
use shared::view::map::SeatState;
use shared::view::{display_name, map_at, tables_at, told_at, MapSeat};
use shared::{scenarios, Defence, Outcome, Schedule};

/// Every schedule a chapter can show: each built-in, and each with every defence switched in.
fn schedules() -> Vec<(String, Schedule)> {
    let mut out = Vec::new();
    for b in scenarios::all() {
        out.push((b.id.to_string(), b.schedule()));
        // (A counter's scenario is offered only the defences that fit it.)
        let kind = b.file.scenario.kind;
        for d in Defence::ALL.into_iter().filter(|d| d.fits(kind)) {
            let file = b.file_with_defence(Some(d));
            if file != b.file {
                let schedule = Schedule::parse(file).expect("a defence switched in parses");
                out.push((format!("{} with {d}", b.id), schedule));
            }
        }
    }
    out
}

/// The schedule's own order if it runs, otherwise a round robin that passes over a buyer while
/// it waits.
fn feasible(schedule: &Schedule) -> Schedule {
    if shared::engine::simulate(schedule).is_ok() {
        return schedule.clone();
    }
    let n = schedule.actors().len();
    let mut engine = Engine::new(schedule);
    let mut order = Vec::new();
    let mut turn = 0;
    while let Some(a) = (0..n)
        .map(|i| (turn + i) % n)
        .find(|&a| engine.blocked(a).is_none())
    {
        engine.step(a).expect("a buyer that can send");
        order.push(a);
        turn = a + 1;
    }
    schedule.with_order(order)
}

/// Runs `schedule`'s order one entry at a time and checks the map at every step.
fn check_order(label: &str, schedule: &Schedule) -> usize {
    let trace = shared::engine::simulate(schedule).expect("a feasible order");
    let outcome = assess(schedule, trace);
    let mut engine = Engine::new(schedule);
    let mut checked = 0;
    for step in 0..=schedule.order().len() {
        if step > 0 {
            engine.step(schedule.order()[step - 1]).expect("runs");
        }
        let at = format!("{label}, step {step}");
        let map = map_at(schedule, &outcome, step);
        check_step(&at, schedule, &outcome, &engine, &map, step);
        if step > 0 {
            let before = map_at(schedule, &outcome, step - 1);
            check_commit(&at, &outcome, &before, &map, step);
        }
        checked += map.len();
    }
    let end = map_at(schedule, &outcome, schedule.order().len());
    for (id, seat) in &outcome.seats {
        let drawn = end.iter().find(|m| &m.id == id).expect("every seat drawn");
        if seat.told.len() > 1 || seat.tickets.len() > 1 {
            assert_eq!(drawn.state(), SeatState::SoldTwice, "{label}: {id}");
            let sentence = drawn.sentence();
            for who in seat.told.iter().chain(&seat.tickets) {
                assert!(drawn.buyers().contains(who), "{label}: {id} names {who}");
                assert!(
                    sentence.contains(&display_name(who)),
                    "{label}: {id}: {sentence}"
                );
            }
        }
    }
    checked
}

fn check_step(
    at: &str,
    schedule: &Schedule,
    outcome: &Outcome,
    engine: &Engine,
    map: &[MapSeat],
    step: usize,
) {
    let tables = tables_at(outcome, step);
    let told = told_at(outcome, step);
    let ids: Vec<&str> = map.iter().map(|m| m.id.as_str()).collect();
    let stored: Vec<&str> = tables.seats.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, stored, "{at}: the map draws the stored seats");
    for (seat, row) in map.iter().zip(&tables.seats) {
        let tickets: Vec<&str> = tables
            .bookings
            .iter()
            .filter(|b| b.seat == row.id)
            .map(|b| b.holder.as_str())
            .collect();
        assert_eq!(seat.tickets, tickets, "{at}: {} tickets", seat.id);
        assert_eq!(seat.stored, row.status, "{at}: {}", seat.id);
        let status = if tickets.is_empty() {
            row.status
        } else {
            SeatStatus::Booked
        };
        assert_eq!(
            seat.status, status,
            "{at}: {} reads sold once ticketed",
            seat.id
        );
        if row.status == SeatStatus::Booked || tickets.is_empty() {
            assert_eq!(seat.holder, row.holder, "{at}: {}", seat.id);
        }
        let told_here = told.get(&row.id).cloned().unwrap_or_default();
        assert_eq!(seat.told, told_here, "{at}: {} told", seat.id);
        assert_eq!(
            seat.lock.as_deref(),
            engine.lock_holder(&seat.id),
            "{at}: {} lock holder",
            seat.id
        );
        if let Some(w) = &seat.pending {
            assert_eq!(
                seat.lock.as_ref(),
                Some(&w.by),
                "{at}: a writer holds the lock"
            );
        }
        for who in seat.lock.iter().chain(&seat.pending_ticket) {
            assert!(
                in_open_transaction(outcome, who, step),
                "{at}: {who} is open"
            );
        }
        let sentence = seat.sentence();
        assert!(
            sentence.starts_with(&format!("Seat {}: ", seat.id)),
            "{sentence}"
        );
        for who in seat.lock.iter().chain(&seat.queue) {
            assert!(sentence.contains(&display_name(who)), "{at}: {sentence}");
        }
    }
    // The queues hold exactly the buyers whose statement waits, each once, on a seat of that
    // statement, behind someone who holds, writes or ticketed the seat or waits ahead.
    for (a, actor) in schedule.actors().iter().enumerate() {
        let places: Vec<(&MapSeat, usize)> = map
            .iter()
            .filter_map(|m| {
                m.queue
                    .iter()
                    .position(|q| q == &actor.name)
                    .map(|i| (m, i))
            })
            .collect();
        match engine.blocked(a) {
            Some(Blocked::Waiting { entry, on }) => {
                let [(seat, place)] = places[..] else {
                    panic!("{at}: {} waits, queued at {places:?}", actor.name);
                };
                // (A confirm or a release names no seat: it goes for the buyer's hold.)
                let seats = outcome.entries[entry].op.seats();
                assert!(
                    seats.is_empty() || seats.contains(&seat.id),
                    "{at}: {} on {}",
                    actor.name,
                    seat.id
                );
                let mut allowed: Vec<&String> = seat.queue[..place].iter().collect();
                allowed.extend(seat.lock.iter());
                allowed.extend(seat.pending.iter().map(|w| &w.by));
                allowed.extend(seat.pending_ticket.iter());
                assert!(!on.is_empty(), "{at}: {} waits for someone", actor.name);
                for b in &on {
                    assert!(
                        allowed.contains(&b),
                        "{at}: {} waits for {b}, not on {} ({seat:?})",
                        actor.name,
                        seat.id
                    );
                }
            }
            _ => assert!(
                places.is_empty(),
                "{at}: {} queued, not waiting",
                actor.name
            ),
        }
    }
}

/// Whether `actor` has an open, unfailed transaction once the first `step` entries have run.
fn in_open_transaction(outcome: &Outcome, actor: &str, step: usize) -> bool {
    let mine: Vec<_> = outcome.entries[..step]
        .iter()
        .filter(|e| e.trace.actor == actor)
        .collect();
    let Some(begin) = mine.iter().rposition(|e| e.op.name() == "begin") else {
        return false;
    };
    mine[begin..].iter().all(|e| {
        let done = e.trace.completed_after.is_some_and(|k| k < step);
        !(done
            && (matches!(e.op.name(), "commit" | "rollback")
                || e.trace.result.as_ref().is_some_and(|r| r.is_error())))
    })
}

/// When the entry just run is a commit that completed nothing else, every write and ticket its
/// transaction had pending is what the committed tables now hold.
fn check_commit(at: &str, outcome: &Outcome, before: &[MapSeat], after: &[MapSeat], step: usize) {
    let k = step - 1;
    let entry = &outcome.entries[k];
    let alone = outcome
        .entries
        .iter()
        .enumerate()
        .all(|(i, e)| i == k || e.trace.completed_after != Some(k));
    let committed = entry.op.name() == "commit"
        && matches!(entry.trace.result, Some(shared::StepResult::Ok { .. }));
    if !(committed && alone) {
        return;
    }
    let actor = &entry.trace.actor;
    let rows = &tables_at(outcome, step).seats;
    for (b, (a, row)) in before.iter().zip(after.iter().zip(rows)) {
        assert_ne!(
            a.lock.as_ref(),
            Some(actor),
            "{at}: a commit lets go of {}",
            a.id
        );
        if let Some(w) = b.pending.as_ref().filter(|w| &w.by == actor) {
            assert_eq!(
                (row.status, &row.holder, row.until),
                (w.status, &w.holder, w.until),
                "{at}: {}'s write of {} is committed as it was pending",
                actor,
                b.id
            );
            assert_eq!(a.pending, None, "{at}: nothing pending on {}", a.id);
        }
        if b.pending_ticket.as_ref() == Some(actor) {
            assert!(
                a.tickets.contains(actor),
                "{at}: {actor}'s ticket for {}",
                a.id
            );
        }
    }
}

#[test]
fn the_map_follows_the_model_at_every_step() {
    let mut seats = 0;
    let mut shown = [0usize; 4];
    for (label, schedule) in schedules() {
        let schedule = feasible(&schedule);
        seats += check_order(&label, &schedule);
        let outcome = assess(
            &schedule,
            shared::engine::simulate(&schedule).expect("runs"),
        );
        for step in 0..=schedule.order().len() {
            for m in map_at(&schedule, &outcome, step) {
                shown[0] += m.lock.is_some() as usize;
                shown[1] += !m.queue.is_empty() as usize;
                shown[2] += m.pending.is_some() as usize;
                shown[3] += m.pending_ticket.is_some() as usize;
            }
        }
    }
    assert!(seats > 500, "{seats} seats checked");
    // The default orders show each thing the map draws beyond the committed rows.
    assert!(
        shown.iter().all(|&n| n > 0),
        "lock, queue, write, ticket: {shown:?}"
    );
}

#[test]
fn the_map_follows_the_model_over_many_orders() {
    for (label, schedule) in schedules() {
        let mut orders = Vec::new();
        for_each_order(&schedule, 40, |order, _| orders.push(order.to_vec()));
        for order in orders {
            check_order(&format!("{label} {order:?}"), &schedule.with_order(order));
        }
    }
}

#[test]
fn what_issue_7_saw() {
    let at = |id: &str, order: &[usize], step: usize| {
        let schedule = scenarios::get(id).expect("built-in").schedule();
        let schedule = schedule.with_order(order.to_vec());
        let outcome = assess(
            &schedule,
            shared::engine::simulate(&schedule).expect("runs"),
        );
        map_at(&schedule, &outcome, step)
    };
    // /chapter/1?s=1.1.ch1-second-request-waits.0010.3
    let a12 = &at("ch1-second-request-waits", &[0, 0, 1, 0], 3)[0];
    assert_eq!(a12.state(), SeatState::Free, "nothing committed yet");
    assert_eq!(a12.lock.as_deref(), Some("first"));
    assert_eq!(a12.queue, ["second"]);
    let w = a12.pending.as_ref().expect("First's uncommitted write");
    assert_eq!((w.by.as_str(), w.status), ("first", SeatStatus::Held));
    assert_eq!(
        a12.sentence(),
        "Seat A12: free; First holds its row lock in an open transaction; Second waits for it; \
         First has written HELD and not committed: nobody else sees it yet."
    );
    // /chapter/4?s=1.4.ch4-unique_constraint.0101.4
    let sold = &at("ch4-unique_constraint", &[0, 1, 0, 1], 4)[0];
    assert_eq!(sold.stored, SeatStatus::Available);
    assert_eq!(sold.state(), SeatState::Sold, "{sold:?}");
    assert!(sold
        .sentence()
        .contains("the seat row still says AVAILABLE"));
}

#[test]
fn comparing_with_a_real_run_never_reads_the_locks() {
    let schedule = scenarios::get("ch1-second-request-waits")
        .expect("built-in")
        .schedule();
    let simulated = assess(
        &schedule,
        shared::engine::simulate(&schedule).expect("runs"),
    );
    assert!(simulated.entries.iter().any(|e| !e.trace.locks.is_empty()));
    // A real run's trace has no locks (the executor leaves them empty).
    let mut real = simulated.clone();
    for e in &mut real.entries {
        e.trace.locks.clear();
    }
    assert_eq!(
        shared::assess::compare(&simulated, &real),
        Vec::<String>::new()
    );
}
