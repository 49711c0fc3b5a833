//! Counter schedules: a scenario of every counter kind (general admission, balance, rate limit,
//! coupon) over one to three rows, each row's value chosen so that it serves 0, 1 or 2 requests
//! of the scenario's `take` (sometimes with a remainder, a balance of 250 for withdrawals of
//! 100); two to eight buyers, each one attempt of reads, locks (wait, nowait, skip_locked),
//! unconditional writes (`n = n - take` after the application's check) and claims (the bounded
//! decrement) on often the first row, inside a transaction of any isolation level or as
//! statements of their own, sometimes retried under `"if": "failed"`; a general-admission
//! checkout sometimes pays after it (`"if": "held"` or not; succeeding, declined or unknown).
//! Half of them are ordered queue-first (`cases.rs`), where a row lock's queue grows deepest.

use serde_json::{json, Value};

use super::{conditioned, Rng};

const NAMES: [&str; 8] = ["ana", "ben", "cas", "dee", "eve", "fay", "gus", "hal"];

/// The kinds of counter and the ids their rows take.
const KINDS: [(&str, [&str; 3]); 4] = [
    ("general_admission", ["GA", "floor", "pit"]),
    ("balance", ["alice", "bob", "joint"]),
    ("rate_limit", ["key1", "key2", "key3"]),
    ("coupon", ["SAVE10", "SAVE20", "SAVE50"]),
];

/// The rows a statement names: often the first (the contended one), else another or several
/// (a SERIALIZABLE read of several rows is where a counter's table differs from a show's).
fn rows_of(rng: &mut Rng, rows: &[&str]) -> Vec<String> {
    if rows.len() == 1 || rng.chance(50) {
        return vec![rows[0].to_string()];
    }
    if rng.chance(50) {
        return vec![rng.pick(rows).to_string()];
    }
    let mut chosen: Vec<String> = rows
        .iter()
        .filter(|_| rng.chance(60))
        .map(|r| r.to_string())
        .collect();
    if chosen.len() < 2 {
        chosen = rows.iter().take(2).map(|r| r.to_string()).collect();
    }
    chosen
}

fn statement(rng: &mut Rng, rows: &[&str]) -> Value {
    let r = rows_of(rng, rows);
    match rng.below(10) {
        0 | 1 => json!({ "op": "read", "seats": r }),
        2..=4 => {
            let wait = match rng.below(10) {
                0 | 1 => "nowait",
                2 | 3 => "skip_locked",
                _ => "wait",
            };
            json!({ "op": "lock", "seats": r, "wait": wait })
        }
        5..=7 => json!({ "op": "write", "seats": r }),
        _ => json!({ "op": "claim", "seats": r }),
    }
}

fn program(rng: &mut Rng, kind: &str, rows: &[&str]) -> Vec<Value> {
    let in_tx = rng.chance(75);
    let mut attempt = Vec::new();
    if in_tx {
        let isolation = match rng.below(4) {
            0 | 1 => "read committed",
            2 => "repeatable read",
            _ => "serializable",
        };
        attempt.push(json!({ "op": "begin", "isolation": isolation }));
    }
    for _ in 0..1 + rng.below(if in_tx { 3 } else { 2 }) {
        attempt.push(statement(rng, rows));
    }
    if in_tx {
        attempt.push(json!({ "op": if rng.chance(85) { "commit" } else { "rollback" } }));
    }
    let mut ops = attempt.clone();
    if rng.chance(20) {
        let every = !in_tx || rng.chance(50);
        for (i, op) in attempt.into_iter().enumerate() {
            ops.push(conditioned(op, (i == 0 || every).then_some("failed")));
        }
    }
    if kind == "general_admission" && rng.chance(30) {
        // The checkout's payment, for the ticket taken (or whatever it was told).
        let outcome = rng.pick(&["succeeds", "declined", "unknown"]);
        let pay = json!({ "op": "pay", "outcome": outcome });
        let takes = ops.iter().any(|o| o["op"] == "claim" || o["op"] == "write");
        ops.push(conditioned(
            pay,
            (takes && rng.chance(70)).then_some("held"),
        ));
    }
    ops
}

/// A counter schedule file, without its order.
pub fn file(rng: &mut Rng, n: u64) -> Value {
    let (kind, ids) = KINDS[rng.below(KINDS.len())];
    let rows = &ids[..1 + rng.below(3)];
    let take: i64 = if kind == "coupon" {
        1
    } else {
        *rng.pick(&[1, 1, 2, 3, 10, 100])
    };
    let seats: Vec<Value> = rows
        .iter()
        .map(|id| {
            // Serves 0, 1 or 2 requests; a coupon is used (0) or not (1).
            let serves = if kind == "coupon" {
                rng.below(10).min(1) as i64
            } else {
                [0, 1, 1, 2, 2][rng.below(5)]
            };
            let rest = if take > 1 && rng.chance(40) {
                rng.below(take as usize) as i64
            } else {
                0
            };
            json!({ "id": id, "value": serves * take + rest })
        })
        .collect();
    let buyers = if rng.chance(70) {
        2 + rng.below(3)
    } else {
        5 + rng.below(4)
    };
    let mut actors = serde_json::Map::new();
    for name in NAMES.iter().take(buyers) {
        actors.insert(name.to_string(), Value::from(program(rng, kind, rows)));
    }
    let mut scenario = json!({ "kind": kind, "seats": seats });
    if take != 1 {
        scenario["take"] = json!(take);
    }
    json!({
        "version": 1,
        "name": format!("counter {n} {kind}"),
        "scenario": scenario,
        "actors": actors,
        "order": [],
    })
}
