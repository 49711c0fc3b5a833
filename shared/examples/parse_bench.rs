//! Times `Schedule::parse_json` over every file in `schedules/` and `shared/scenarios/` (the
//! scenarios give no order, so their parse includes finding the default one in the model),
//! and the parse of every built-in's file (`scenarios::all`, which the page and the server call
//! often) and of one (`scenarios::get`). Prints the median and best of several runs, per file.
//!
//! Run from the workspace root: `cargo run --release -p shared --example parse_bench`.

use std::time::Instant;

use shared::{scenarios, Schedule};

const RUNS: usize = 9;
const ROUNDS: usize = 200;

/// Runs `f` `RUNS` times of `ROUNDS` rounds: (median µs, best µs) per call of `f`.
fn time(mut f: impl FnMut()) -> (f64, f64) {
    let mut times: Vec<f64> = (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            for _ in 0..ROUNDS {
                f();
            }
            started.elapsed().as_secs_f64() * 1e6 / ROUNDS as f64
        })
        .collect();
    times.sort_by(|a, b| a.total_cmp(b));
    (times[RUNS / 2], times[0])
}

fn main() {
    let mut files = Vec::new();
    for dir in ["schedules", "shared/scenarios"] {
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .expect("run from the workspace root")
            .map(|e| e.expect("readable").path())
            .collect();
        paths.sort();
        for p in paths {
            files.push(std::fs::read_to_string(p).expect("readable"));
        }
    }
    let (ordered, unordered): (Vec<String>, Vec<String>) =
        files.into_iter().partition(|t| t.contains("\"order\""));
    for (what, files) in [("with an order", ordered), ("without", unordered)] {
        let n = files.len() as f64;
        let (median, best) = time(|| {
            for text in &files {
                Schedule::parse_json(text).expect("valid");
            }
        });
        println!(
            "parse_json, {} files {what}: {:.1} µs a file (best {:.1})",
            files.len(),
            median / n,
            best / n
        );
    }
    let (median, best) = time(|| {
        std::hint::black_box(scenarios::all());
    });
    println!("scenarios::all(): {median:.0} µs (best {best:.0})");
    let (median, best) = time(|| {
        std::hint::black_box(scenarios::get("ch5-three-buyers"));
    });
    println!("scenarios::get(\"ch5-three-buyers\"): {median:.0} µs (best {best:.0})");
    // The worst a file can ask of the default order's search: eight buyers who each lock A7
    // and never commit, so no order finishes and the search runs to its bound.
    let actors: Vec<String> = (0..8)
        .map(|i| {
            format!(
                r#""b{i}": [{{"op": "begin"}}, {{"op": "lock", "seats": ["A7"]}}, {{"op": "read", "seats": ["A7"]}}]"#
            )
        })
        .collect();
    let stuck = format!(
        r#"{{"version": 1, "scenario": {{"seats": [{{"id": "A7"}}]}}, "actors": {{{}}}}}"#,
        actors.join(", ")
    );
    let started = Instant::now();
    let refused = Schedule::parse_json(&stuck).expect_err("no order finishes");
    println!(
        "a file no order finishes (8 buyers, the search to its bound): {:.1} ms\n  {refused}",
        started.elapsed().as_secs_f64() * 1000.0
    );
}
