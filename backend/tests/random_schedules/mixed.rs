//! Mixed schedules: two to eight buyers (and sometimes the clock) over two to five seats, each
//! one attempt (a transaction, or statements of their own), some retrying it under `"if":
//! "failed"`, then a few one-call operations, some paying only `"if": "held"`. On a database
//! whose model does not run `confirm` (`confirms` false: the InnoDB model may refuse it) no
//! confirm is drawn: a hold takes its place, and every other draw stays.

use serde_json::{json, Value};

/// A small, fixed pseudo-random sequence (xorshift64*), so that a failure names its seed.
pub struct Rng(pub u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn some_seats(rng: &mut Rng, seats: &[&str]) -> Vec<String> {
    if rng.chance(60) {
        return vec![rng.pick(seats).to_string()];
    }
    let mut chosen: Vec<String> = seats
        .iter()
        .filter(|_| rng.chance(45))
        .map(|s| s.to_string())
        .collect();
    if chosen.is_empty() {
        chosen.push(rng.pick(seats).to_string());
    }
    chosen
}

fn statement(rng: &mut Rng, seats: &[&str]) -> Value {
    let s = some_seats(rng, seats);
    match rng.below(6) {
        0 => json!({ "op": "read", "seats": s }),
        1 => {
            json!({ "op": "lock", "seats": s, "wait": rng.pick(&["wait", "nowait", "skip_locked"]) })
        }
        2 => json!({ "op": "write", "seats": s, "status": rng.pick(&["HELD", "BOOKED"]) }),
        3 => match rng.below(3) {
            0 => json!({ "op": "claim", "seats": s }),
            _ => json!({ "op": "claim", "seats": s,
                         "now": rng.pick(&["transaction", "statement", "evaluation"]) }),
        },
        4 => json!({ "op": "book", "seats": s }),
        _ => json!({ "op": "read", "seats": s }),
    }
}

fn one_call(rng: &mut Rng, seats: &[&str], confirms: bool) -> Value {
    match rng.below(6) {
        2 if confirms => json!({ "op": "confirm" }),
        0..=2 => json!({ "op": "hold", "seats": some_seats(rng, seats) }),
        3 => json!({ "op": "release" }),
        4 => json!({ "op": "pay", "outcome": rng.pick(&["succeeds", "declined", "unknown"]) }),
        _ => json!({ "op": "redis_hold", "seats": some_seats(rng, seats) }),
    }
}

/// A program: one attempt (a transaction, or statements of their own), sometimes written again
/// as a retry under `"if": "failed"`, then a few one-call operations, some of them only
/// `"if": "held"` (a buyer that pays only for what it holds) or `"failed"` (a hold retried).
fn program(rng: &mut Rng, seats: &[&str], confirms: bool) -> Vec<Value> {
    let mut attempt = Vec::new();
    let in_tx = rng.chance(70);
    if in_tx {
        attempt.push(json!({ "op": "begin",
            "isolation": rng.pick(&["read committed", "repeatable read", "serializable"]) }));
    }
    for _ in 0..1 + rng.below(if in_tx { 4 } else { 2 }) {
        attempt.push(statement(rng, seats));
    }
    if in_tx {
        attempt.push(json!({ "op": if rng.chance(80) { "commit" } else { "rollback" } }));
    }
    let mut ops = attempt.clone();
    if rng.chance(30) {
        // The retry: the attempt again, its condition on the begin alone (the rest of the
        // transaction shares it) or on every operation.
        let every = !in_tx || rng.chance(50);
        for (i, op) in attempt.into_iter().enumerate() {
            ops.push(conditioned(op, (i == 0 || every).then_some("failed")));
        }
    }
    for _ in 0..rng.below(3) {
        let op = one_call(rng, seats, confirms);
        let takes = |o: &Value| {
            matches!(
                o["op"].as_str(),
                Some("hold" | "redis_hold" | "claim" | "write" | "book")
            )
        };
        let condition = match op["op"].as_str() {
            Some("pay" | "confirm" | "release") if ops.iter().any(takes) && rng.chance(60) => {
                Some("held")
            }
            Some("hold") if ops.iter().any(|o| o["op"] == "hold") && rng.chance(50) => {
                Some("failed")
            }
            _ => None,
        };
        ops.push(conditioned(op, condition));
    }
    ops
}

/// `op` with `"if": condition`, if there is one.
pub fn conditioned(mut op: Value, condition: Option<&str>) -> Value {
    if let Some(c) = condition {
        op["if"] = json!(c);
    }
    op
}

/// A random schedule file, without its order (and without `"engine"`: PostgreSQL).
pub fn file(rng: &mut Rng, n: u64, confirms: bool) -> Value {
    let seats: &[&str] = match rng.below(4) {
        0 => &["A1", "A2"],
        1 => &["A1", "A2", "A3"],
        2 => &["A1", "A2", "A3", "A4"],
        _ => &["A1", "A2", "A3", "A4", "A5"],
    };
    let buyers = if rng.chance(70) {
        2 + rng.below(3)
    } else {
        5 + rng.below(4)
    };
    let names = ["ana", "ben", "carl", "dave", "eve", "fay", "gus", "hal"];
    let mut actors = serde_json::Map::new();
    for name in names.iter().take(buyers) {
        actors.insert(name.to_string(), Value::from(program(rng, seats, confirms)));
    }
    if buyers < shared::schedule::MAX_ACTORS && rng.chance(25) {
        let mut clock = vec![json!({ "op": "advance", "minutes": 5 + rng.below(10) })];
        if rng.chance(50) {
            clock.push(json!({ "op": "sweep" }));
        }
        actors.insert("clock".to_string(), Value::from(clock));
    }
    let seats: Vec<Value> = seats.iter().map(|s| json!({ "id": s })).collect();
    json!({
        "version": 1,
        "name": format!("random schedule {n}"),
        "scenario": { "show": 900, "hold_minutes": 10, "seats": seats },
        "actors": actors,
        "order": [],
    })
}
