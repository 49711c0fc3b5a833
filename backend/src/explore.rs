//! `backend explore FILE`: every feasible interleaving of a schedule file's programs, run in
//! the simulator and grouped by verdict, with one example order per group and the time taken.

use std::fmt::Write;
use std::path::Path;
use std::time::Instant;

use shared::explorer::{explore, Exploration};
use shared::Schedule;

/// The most orders explored before the report says the search was cut short.
pub const LIMIT: u64 = 2_000_000;

/// Explores the schedule in `path`; the report, or the reason the file is unusable.
pub fn explore_file(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read it: {e}", path.display()))?;
    let schedule = Schedule::parse_json(&text)
        .map_err(|e| format!("{}: invalid schedule: {e}", path.display()))?;
    let started = Instant::now();
    let exploration = explore(&schedule, LIMIT);
    Ok(report(
        &path.display().to_string(),
        &exploration,
        started.elapsed().as_secs_f64() * 1000.0,
    ))
}

fn report(file: &str, e: &Exploration, millis: f64) -> String {
    let mut out = String::new();
    let coverage = if e.complete {
        "every feasible order".to_string()
    } else {
        format!("the first {LIMIT} orders (cut short)")
    };
    let _ = writeln!(
        out,
        "{file}: {} orders ({coverage}; {} permutations of the entries) in {millis:.1} ms",
        e.orders, e.permutations
    );
    let _ = writeln!(
        out,
        "  {} of {} orders double-book",
        e.double_booked(),
        e.orders
    );
    for g in &e.groups {
        let mut verdict = g.verdict.problems();
        if verdict.is_empty() {
            verdict.push("sold once".to_string());
        }
        let _ = writeln!(
            out,
            "  {:>7}  {} — how the others were stopped: {}\n           e.g. {}",
            g.count,
            verdict.join(", "),
            g.stop,
            g.example.join(" ")
        );
    }
    out
}
