//! The counter's picture against the model, at every step of every counter built-in under every
//! defence that fits it, over its default order and the first orders of each: the value is the
//! stored one, the lock holder is the engine's, the queue is exactly the buyers the engine says
//! wait, an uncommitted value is what the row holds once its writer commits alone, the buyers
//! told yes are the assessment's, and the picture says "over" exactly where the verdict says the
//! row served more than it had.

use shared::assess::assess;
use shared::engine::{Blocked, Engine};
use shared::explorer::for_each_order;
use shared::view::{
    counters_at, display_name, map_at, tables_at, told_at, CounterRow, CounterState,
};
use shared::{scenarios, Defence, Outcome, Schedule};

/// Every counter schedule the chapter can show: each counter built-in under each defence that
/// fits its shape.
fn schedules() -> Vec<(String, Schedule)> {
    let mut out = Vec::new();
    for b in scenarios::all() {
        let kind = b.file.scenario.kind;
        if !kind.is_counter() {
            continue;
        }
        let by_defence = b
            .file
            .actors
            .values()
            .any(|p| matches!(p, shared::schedule::ProgramSpec::Defence { .. }));
        if !by_defence {
            // A race of its own programs (the checkout left half-way): as it is.
            out.push((b.id.to_string(), b.schedule()));
            continue;
        }
        for d in Defence::ALL.into_iter().filter(|d| d.fits(kind)) {
            let schedule =
                Schedule::parse(b.file_with_defence(Some(d))).expect("a fitting defence");
            out.push((format!("{} with {d}", b.id), schedule));
        }
    }
    out
}

/// The schedule's own order if it runs, else a round robin that passes over a waiting buyer.
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

/// Checks the picture at every step of `schedule`'s order; the number of rows checked, and
/// which of lock, queue and pending value it showed at some step.
fn check_order(label: &str, schedule: &Schedule) -> (usize, [bool; 3]) {
    let trace = shared::engine::simulate(schedule).expect("a feasible order");
    let outcome = assess(schedule, trace);
    let mut engine = Engine::new(schedule);
    let mut checked = 0;
    let mut shown = [false; 3];
    for step in 0..=schedule.order().len() {
        if step > 0 {
            engine.step(schedule.order()[step - 1]).expect("runs");
        }
        let at = format!("{label}, step {step}");
        let rows = counters_at(schedule, &outcome, step);
        assert!(map_at(schedule, &outcome, step).len() == rows.len());
        check_step(&at, schedule, &outcome, &engine, &rows, step);
        if step > 0 {
            let before = counters_at(schedule, &outcome, step - 1);
            check_commit(&at, &outcome, &before, &rows, step);
        }
        for r in &rows {
            shown[0] |= r.lock.is_some();
            shown[1] |= !r.queue.is_empty();
            shown[2] |= r.pending.is_some();
        }
        checked += rows.len();
    }
    let end = counters_at(schedule, &outcome, schedule.order().len());
    let over = end.iter().any(|r| r.state() == CounterState::Over);
    assert_eq!(
        over, outcome.verdict.double_booked,
        "{label}: over is the double booking"
    );
    (checked, shown)
}

fn check_step(
    at: &str,
    schedule: &Schedule,
    outcome: &Outcome,
    engine: &Engine,
    rows: &[CounterRow],
    step: usize,
) {
    let tables = tables_at(outcome, step);
    let told = told_at(outcome, step);
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    let stored: Vec<&str> = tables.seats.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, stored, "{at}: the picture draws the stored rows");
    for (row, stored) in rows.iter().zip(&tables.seats) {
        assert_eq!(Some(row.value), stored.value, "{at}: {} value", row.id);
        assert_eq!(row.kind, schedule.scenario().kind);
        assert_eq!(row.take, schedule.scenario().take);
        let told_here = told.get(&row.id).cloned().unwrap_or_default();
        assert_eq!(row.told, told_here, "{at}: {} told", row.id);
        assert_eq!(
            row.lock.as_deref(),
            engine.lock_holder(&row.id),
            "{at}: lock"
        );
        if let Some((by, value)) = &row.pending {
            assert_eq!(row.lock.as_ref(), Some(by), "{at}: a writer holds the lock");
            let expected = schedule.scenario().kind.after_take(row.value, row.take);
            // A write decrements the newest committed value (EvalPlanQual's recheck).
            assert_eq!(*value, expected, "{at}: {by}'s pending value of {}", row.id);
        }
        let state = row.state();
        let over = row.told.len() as i64 > row.capacity() || row.value < 0;
        assert_eq!(state == CounterState::Over, over, "{at}: {row:?}");
        let sentence = row.sentence();
        assert!(
            sentence.starts_with(&format!("{}: ", row.title())),
            "{sentence}"
        );
        assert!(sentence.contains(&row.amount(row.value)), "{sentence}");
        for who in row.lock.iter().chain(&row.queue).chain(&row.told) {
            assert!(sentence.contains(&display_name(who)), "{at}: {sentence}");
        }
        assert!(!row.state_line().is_empty());
    }
    for (a, actor) in schedule.actors().iter().enumerate() {
        let places: Vec<&CounterRow> = rows
            .iter()
            .filter(|r| r.queue.contains(&actor.name))
            .collect();
        match engine.blocked(a) {
            Some(Blocked::Waiting { on, .. }) => {
                let [row] = places[..] else {
                    panic!("{at}: {} waits, queued at {places:?}", actor.name);
                };
                let place = row.queue.iter().position(|q| q == &actor.name).unwrap_or(0);
                let mut allowed: Vec<&String> = row.queue[..place].iter().collect();
                allowed.extend(row.lock.iter());
                allowed.extend(row.pending.iter().map(|(by, _)| by));
                assert!(!on.is_empty(), "{at}: {} waits for someone", actor.name);
                for b in &on {
                    assert!(
                        allowed.contains(&b),
                        "{at}: {} waits for {b} ({row:?})",
                        actor.name
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

/// When the entry just run is a commit that completed nothing else, the value its transaction
/// had pending is the committed value now.
fn check_commit(
    at: &str,
    outcome: &Outcome,
    before: &[CounterRow],
    after: &[CounterRow],
    step: usize,
) {
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
    for (b, a) in before.iter().zip(after) {
        assert_ne!(
            a.lock.as_ref(),
            Some(actor),
            "{at}: a commit lets go of {}",
            a.id
        );
        if let Some((_, value)) = b.pending.as_ref().filter(|(by, _)| by == actor) {
            assert_eq!(
                a.value, *value,
                "{at}: {actor}'s value of {} committed as pending",
                a.id
            );
            assert_eq!(a.pending, None, "{at}: nothing pending on {}", a.id);
        }
    }
}

#[test]
fn the_picture_follows_the_model_at_every_step() {
    let mut rows = 0;
    let mut shown = [false; 3];
    let all = schedules();
    assert_eq!(
        all.len(),
        4 * 11 + 1,
        "four shapes, eleven fitting defences each, and the checkout left half-way"
    );
    for (label, schedule) in all {
        let (n, s) = check_order(&label, &feasible(&schedule));
        rows += n;
        for i in 0..3 {
            shown[i] |= s[i];
        }
    }
    assert!(rows > 200, "{rows} rows checked");
    assert_eq!(
        shown, [true; 3],
        "lock, queue and an uncommitted value are each shown"
    );
}

#[test]
fn the_picture_follows_the_model_over_many_orders() {
    for (label, schedule) in schedules() {
        let mut orders = Vec::new();
        for_each_order(&schedule, 40, |order, _| orders.push(order.to_vec()));
        for order in orders {
            check_order(&format!("{label} {order:?}"), &schedule.with_order(order));
        }
    }
}

/// The picture of `id` under `defence` in `order`, at `step`.
fn at(id: &str, defence: Defence, order: &[usize], step: usize) -> CounterRow {
    let b = scenarios::get(id).expect("built-in");
    let schedule = Schedule::parse(b.file_with_defence(Some(defence)))
        .expect("fits")
        .with_order(order.to_vec());
    let outcome = assess(
        &schedule,
        shared::engine::simulate(&schedule).expect("runs"),
    );
    counters_at(&schedule, &outcome, step).remove(0)
}

#[test]
fn two_withdrawals_after_both_checked_take_the_balance_below_zero() {
    // Both read 150 first, then each debits 100 in its transaction: 150 -> 50 -> -50.
    let order = [0, 1, 0, 1, 0, 1, 0, 1];
    let mid = at("shapes-balance", Defence::Transaction, &order, 5);
    assert_eq!(mid.value, 150, "{mid:?}");
    assert_eq!(mid.pending, Some(("adam".to_string(), 50)));
    assert_eq!(
        mid.pending_line().as_deref(),
        Some("Adam writing $50, not committed")
    );
    let end = at("shapes-balance", Defence::Transaction, &order, 8);
    assert_eq!(end.value, -50);
    assert_eq!(end.amount(end.value), "\u{2212}$50");
    assert_eq!(end.state(), CounterState::Over);
    assert_eq!(end.state_line(), "overdrawn by $50");
    assert!(
        end.sentence()
            .starts_with("Account joint: \u{2212}$50, overdrawn by $50; Adam and Omar told yes"),
        "{}",
        end.sentence()
    );
}

#[test]
fn a_conditional_update_leaves_the_last_ticket_to_one_buyer() {
    let schedule = Schedule::parse(
        scenarios::get("shapes-general_admission")
            .unwrap()
            .file_with_defence(Some(Defence::AtomicUpdate)),
    )
    .unwrap();
    let order = schedule.order().to_vec();
    let start = at("shapes-general_admission", Defence::AtomicUpdate, &order, 0);
    assert_eq!(start.amount(start.value), "1 ticket left");
    assert_eq!(start.state_line(), "enough for 1 more buyer");
    let end = at(
        "shapes-general_admission",
        Defence::AtomicUpdate,
        &order,
        order.len(),
    );
    assert_eq!(end.value, 0);
    assert_eq!(end.told.len(), 1);
    assert_eq!(end.state_line(), "sold out");
    assert_eq!(end.state(), CounterState::Spent);
}

#[test]
fn a_coupon_used_twice_says_so_in_words() {
    let b = scenarios::get("shapes-coupon").unwrap();
    let schedule = b.schedule();
    let n = schedule.order().len();
    let outcome = assess(&schedule, shared::engine::simulate(&schedule).unwrap());
    let end = counters_at(&schedule, &outcome, n).remove(0);
    if outcome.verdict.double_booked {
        assert_eq!(end.amount(end.value), "used");
        assert_eq!(end.state_line(), "used 2 times, though it is single-use");
    }
    assert_eq!(end.title(), "Coupon SAVE50");
}
