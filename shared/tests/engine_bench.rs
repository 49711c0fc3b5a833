//! How fast the model explores: every interleaving of three buyers running the `transaction`
//! defence (begin, read, write, commit: 34,650 orders), depth first with a clone of the engine
//! at each branch, as the explorer walks. Run with `cargo test --release -p shared --test
//! engine_bench -- --nocapture` to see the figures.

use std::time::Instant;

use shared::assess::assess;
use shared::engine::{Blocked, Engine};
use shared::Schedule;

/// Walks every feasible order; calls `leaf` with each finished engine. Returns the count.
fn walk<'s>(engine: Engine<'s>, remaining: &mut [usize], leaf: &mut impl FnMut(Engine<'s>)) -> u64 {
    STEPS.with(|s| s.set(s.get() + 1));
    let runnable: Vec<usize> = (0..remaining.len())
        .filter(|&a| {
            remaining[a] > 0 && !matches!(engine.blocked(a), Some(Blocked::Waiting { .. }))
        })
        .collect();
    if runnable.is_empty() {
        leaf(engine);
        return 1;
    }
    let mut count = 0;
    let last = runnable.len() - 1;
    let mut engine = Some(engine);
    for (n, &a) in runnable.iter().enumerate() {
        let mut next = if n == last {
            engine.take().expect("kept")
        } else {
            engine.as_ref().expect("kept").clone()
        };
        next.step(a).expect("runnable");
        remaining[a] -= 1;
        count += walk(next, remaining, leaf);
        remaining[a] += 1;
    }
    count
}

thread_local! {
    /// Engines visited by `walk` (steps taken, plus the initial engine).
    static STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

fn three_buyers() -> Schedule {
    Schedule::parse_json(
        r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]},
            "actors": {"adam": {"defence": "transaction"}, "omar": {"defence": "transaction"}, "zoe": {"defence": "transaction"}}}"#,
    )
    .expect("valid")
}

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut last = None;
    for _ in 0..runs {
        let started = Instant::now();
        last = Some(f());
        best = best.min(started.elapsed().as_secs_f64() * 1000.0);
    }
    (best, last.expect("ran"))
}

#[test]
fn the_model_walks_every_order_of_three_buyers_and_reports_its_speed() {
    let schedule = three_buyers();
    let runs = if cfg!(debug_assertions) { 1 } else { 5 };
    let (steps_ms, orders) = best_of(runs, || {
        STEPS.with(|s| s.set(0));
        walk(Engine::new(&schedule), &mut [4, 4, 4], &mut |_| {})
    });
    let steps = STEPS.with(|s| s.get()) - 1;
    let (trace_ms, entries) = best_of(runs, || {
        let mut entries = 0;
        walk(Engine::new(&schedule), &mut [4, 4, 4], &mut |e| {
            entries += e.into_trace().entries.len()
        });
        entries
    });
    let (assess_ms, double) = best_of(runs, || {
        let mut double = 0u64;
        walk(Engine::new(&schedule), &mut [4, 4, 4], &mut |e| {
            double += u64::from(assess(&schedule, e.into_trace()).verdict.double_booked)
        });
        double
    });
    println!(
        "{orders} orders ({steps} steps): stepping {steps_ms:.1} ms ({:.0} ns a step), with traces {trace_ms:.1} ms, \
         with assessment {assess_ms:.1} ms (best of {runs})",
        steps_ms * 1e6 / steps as f64
    );
    assert_eq!(
        orders, 16_290,
        "feasible orders: a write waits for the other's commit"
    );
    assert_eq!(entries as u64, orders * 12);
    assert!(
        double > 0 && double < orders,
        "some orders double-book, not all: {double}"
    );
}
