//! Times the executor: an 8-entry, 2-buyer schedule (both buyers in a READ COMMITTED
//! transaction, read then write, interleaved so that the second write waits) run N times on
//! PostgreSQL. Prints the median and the 90th percentile of one run, schema set-up and clean-up
//! included.
//!
//! `cargo run --release -p backend --example replay_bench -- [N]` (N = 200 by default;
//! DATABASE_URL as for the server). `RUST_LOG=backend::executor=debug` prints each run's
//! phases: schema set-up, the entries, clean-up.

use std::time::Instant;

use backend::{db, executor};
use shared::Schedule;

const SCHEDULE: &str = r#"{
  "version": 1,
  "name": "bench: two transactions, read then write, interleaved",
  "scenario": { "seats": [ { "id": "A7" } ] },
  "actors": { "adam": { "defence": "transaction" }, "omar": { "defence": "transaction" } },
  "order": ["adam", "omar", "adam", "omar", "adam", "omar", "adam", "omar"]
}"#;

#[tokio::main]
async fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let url = db::database_url();
    let pool = db::connect(&url, 8)
        .await
        .unwrap_or_else(|e| panic!("PostgreSQL at {}: {e}", db::redact(&url)));
    let schedule = Schedule::parse_json(SCHEDULE).expect("the bench schedule is valid");
    for _ in 0..10 {
        executor::execute(&pool, &schedule)
            .await
            .expect("a warm-up run");
    }
    let mut ms: Vec<f64> = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        let trace = executor::execute(&pool, &schedule).await.expect("a run");
        ms.push(start.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(trace.entries.len(), 8);
    }
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    println!(
        "{n} runs of an 8-entry, 2-buyer schedule: median {:.2} ms, p90 {:.2} ms, min {:.2} ms",
        at(0.5),
        at(0.9),
        ms[0]
    );
}
