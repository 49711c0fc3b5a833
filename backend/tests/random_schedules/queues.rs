//! Deep queues: three to eight buyers who all go for the same seat, each in a transaction of
//! its own isolation level (READ COMMITTED, REPEATABLE READ or SERIALIZABLE), locking it,
//! claiming it with a conditional UPDATE, booking it or writing it, then committing or rolling
//! back, sometimes retrying after a failure. Their orders lean towards everyone queueing first
//! and then each finishing in turn, which is where a tuple lock's queue grows deepest.

use serde_json::{json, Value};

use super::{conditioned, Rng};

const NAMES: [&str; 8] = ["ana", "ben", "cas", "dee", "eve", "fay", "gus", "hal"];

/// One statement on `seat` (mostly the contended one).
fn on_seat(rng: &mut Rng, seat: &str) -> Value {
    match rng.below(10) {
        0..=3 => {
            let wait = match rng.below(10) {
                0 => "nowait",
                1 => "skip_locked",
                _ => "wait",
            };
            json!({ "op": "lock", "seats": [seat], "wait": wait })
        }
        4 | 5 => json!({ "op": "claim", "seats": [seat] }),
        6 | 7 => json!({ "op": "write", "seats": [seat], "status": "BOOKED" }),
        8 => json!({ "op": "book", "seats": [seat] }),
        _ => json!({ "op": "read", "seats": [seat] }),
    }
}

fn program(rng: &mut Rng, seats: &[&str]) -> Vec<Value> {
    let hot = seats[0];
    let seat = |rng: &mut Rng| {
        if rng.chance(80) {
            hot
        } else {
            *rng.pick(seats)
        }
    };
    let isolation = match rng.below(4) {
        0 | 1 => "read committed",
        2 => "repeatable read",
        _ => "serializable",
    };
    let mut attempt = vec![json!({ "op": "begin", "isolation": isolation })];
    let first = seat(rng);
    attempt.push(on_seat(rng, first));
    if rng.chance(60) {
        let second = seat(rng);
        attempt.push(on_seat(rng, second));
    }
    attempt.push(json!({ "op": if rng.chance(85) { "commit" } else { "rollback" } }));
    let mut ops = attempt.clone();
    if rng.chance(20) {
        for (i, op) in attempt.into_iter().enumerate() {
            ops.push(conditioned(op, (i == 0).then_some("failed")));
        }
    }
    ops
}

/// A deep-queue schedule file, without its order.
pub fn file(rng: &mut Rng, n: u64) -> Value {
    let seats: &[&str] = match rng.below(3) {
        0 => &["A1"],
        1 => &["A1", "A2"],
        _ => &["A1", "A2", "A3"],
    };
    let buyers = 3 + rng.below(6);
    let mut actors = serde_json::Map::new();
    for name in NAMES.iter().take(buyers) {
        actors.insert(name.to_string(), Value::from(program(rng, seats)));
    }
    let seats: Vec<Value> = seats.iter().map(|s| json!({ "id": s })).collect();
    json!({
        "version": 1,
        "name": format!("deep queue {n}"),
        "scenario": { "show": 901, "hold_minutes": 10, "seats": seats },
        "actors": actors,
        "order": [],
    })
}
