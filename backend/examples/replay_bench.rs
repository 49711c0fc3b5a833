//! Times the executor: an 8-entry, 2-buyer schedule (both buyers in a READ COMMITTED
//! transaction, read then write) run N times on PostgreSQL in two orders: interleaved so that
//! the second write waits for the first buyer's commit, and one buyer after the other, so that
//! nothing waits. Prints the median and the 90th percentile of one run (taking a schema and
//! giving it back included), and where a run's time goes, phase by phase.
//!
//! `cargo run --release -p backend --example replay_bench -- [N] [--driver PYTHON]`
//! (N = 200 by default; DATABASE_URL as for the server). With `--driver`, the independent
//! psycopg driver (`bench/psycopg_driver.py`, run by that Python, which has psycopg) runs the
//! same orders N times right after, and its figures are printed beside ours.
//! `RUST_LOG=backend::executor=debug` prints each run's phases.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use backend::db;
use backend::executor::{self, phases};
use shared::Schedule;

fn schedule(order: &str) -> String {
    format!(
        r#"{{
  "version": 1,
  "name": "bench: two transactions, read then write",
  "scenario": {{ "seats": [ {{ "id": "A7" }} ] }},
  "actors": {{ "adam": {{ "defence": "transaction" }}, "omar": {{ "defence": "transaction" }} }},
  "order": {order}
}}"#
    )
}

const ORDERS: [(&str, &str); 2] = [
    (
        "wait",
        r#"["adam", "omar", "adam", "omar", "adam", "omar", "adam", "omar"]"#,
    ),
    (
        "no-wait",
        r#"["adam", "adam", "adam", "adam", "omar", "omar", "omar", "omar"]"#,
    ),
];

/// Median, 90th percentile and minimum, in ms.
fn figures(mut ms: Vec<f64>) -> (f64, f64, f64) {
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.9), ms[0])
}

#[tokio::main]
async fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let driver = args
        .iter()
        .position(|a| a == "--driver")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let n: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(200);
    let url = db::database_url();
    let pool = db::connect(&url, 8)
        .await
        .unwrap_or_else(|e| panic!("PostgreSQL at {}: {e}", db::redact(&url)));
    let mut rows = Vec::new();
    for (name, order) in ORDERS {
        let schedule = Schedule::parse_json(&schedule(order)).expect("the bench schedule is valid");
        for _ in 0..10 {
            executor::execute(&pool, &schedule)
                .await
                .expect("a warm-up run");
        }
        phases::reset_totals();
        let mut ms: Vec<f64> = Vec::with_capacity(n);
        for _ in 0..n {
            let start = Instant::now();
            let trace = executor::execute(&pool, &schedule).await.expect("a run");
            ms.push(start.elapsed().as_secs_f64() * 1000.0);
            assert_eq!(trace.entries.len(), 8);
        }
        let (median, p90, min) = figures(ms);
        println!(
            "ours, {name}: {n} runs of an 8-entry, 2-buyer schedule: median {median:.2} ms, p90 {p90:.2} ms, min {min:.2} ms"
        );
        println!("{}", phases::totals().table());
        rows.push((name, median, p90));
    }
    executor::shutdown(&pool).await;
    pool.close().await;
    let Some(python) = driver else {
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/psycopg_driver.py");
    for (name, median, p90) in rows {
        let out = Command::new(&python)
            .arg(&script)
            .arg(n.to_string())
            .args(["--order", name])
            .output()
            .unwrap_or_else(|e| panic!("{python} {}: {e}", script.display()));
        let text = String::from_utf8_lossy(&out.stdout);
        let theirs: serde_json::Value = serde_json::from_str(text.trim()).unwrap_or_else(|_| {
            panic!(
                "the driver said: {text}{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        let their_median = theirs["median_ms"].as_f64().unwrap_or(f64::NAN);
        println!(
            "{name}: ours median {median:.2} ms, p90 {p90:.2} ms; psycopg driver median {their_median:.2} ms, p90 {:.2} ms; ours / theirs = {:.2}",
            theirs["p90_ms"].as_f64().unwrap_or(f64::NAN),
            median / their_median
        );
    }
}
