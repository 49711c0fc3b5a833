//! Times the explorer on a 3-buyer, 4-operation schedule (every buyer: begin, read, write,
//! commit under READ COMMITTED; 34,650 orders). Run: `cargo run --release -p shared --example explore_bench`.

use std::time::Instant;

use shared::explorer::explore;
use shared::Schedule;

fn main() {
    let schedule = Schedule::parse_json(
        r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]},
            "actors": {"adam": {"defence": "transaction"}, "omar": {"defence": "transaction"}, "zoe": {"defence": "transaction"}}}"#,
    )
    .expect("valid");
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..7 {
        let started = Instant::now();
        last = Some(explore(&schedule, u64::MAX));
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(|a, b| a.total_cmp(b));
    let exploration = last.expect("ran");
    println!(
        "explored {} orders ({} double-book) in {:.1} ms median, {:.1} ms best",
        exploration.orders,
        exploration.double_booked(),
        times[times.len() / 2],
        times[0]
    );
}
