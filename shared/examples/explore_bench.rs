//! Times the explorer: every interleaving of a 3-buyer, 4-operation schedule (every buyer:
//! begin, read, write, commit under READ COMMITTED; 34,650 permutations, 16,290 feasible), then
//! every cell of the defence × scenario matrix. Prints the median and best of several runs.
//!
//! Run: `cargo run --release -p shared --example explore_bench` (add `-- cells` for the matrix
//! too, `-- cells-only` for the matrix alone).

use std::time::Instant;

use shared::explorer::{explore, matrix_cell, matrix_defences, matrix_scenarios, Exploration};
use shared::Schedule;

const RUNS: usize = 9;

/// Runs `f` `RUNS` times: (median ms, best ms, last result).
fn time<T>(mut f: impl FnMut() -> T) -> (f64, f64, T) {
    let mut times = Vec::with_capacity(RUNS);
    let mut last = None;
    for _ in 0..RUNS {
        let started = Instant::now();
        last = Some(f());
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(|a, b| a.total_cmp(b));
    (times[RUNS / 2], times[0], last.expect("ran"))
}

fn main() {
    let what = std::env::args().nth(1).unwrap_or_default();
    if what != "cells-only" {
        let schedule = Schedule::parse_json(
            r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]},
                "actors": {"adam": {"defence": "transaction"}, "omar": {"defence": "transaction"}, "zoe": {"defence": "transaction"}}}"#,
        )
        .expect("valid");
        let (median, best, e): (f64, f64, Exploration) = time(|| explore(&schedule, u64::MAX));
        println!(
            "3 buyers x 4 operations: {} orders ({} double-book) in {median:.1} ms median, {best:.1} ms best of {RUNS}",
            e.orders,
            e.double_booked()
        );
    }
    if what.starts_with("cells") {
        for defence in matrix_defences() {
            for scenario in matrix_scenarios() {
                let (median, best, cell) =
                    time(|| matrix_cell(*defence, scenario.id).expect("a matrix cell"));
                println!(
                    "{:>17} x {:<16} {:>6} orders in {median:5.1} ms median, {best:5.1} ms best",
                    defence.id(),
                    scenario.title,
                    cell.exploration.orders
                );
            }
        }
    }
}
