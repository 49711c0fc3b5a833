//! Username schedules: one name (a scenario races for one), free or already taken by an account
//! at the start, and two to five buyers, each one attempt to create it, inside a transaction of
//! any isolation level or as statements of their own: mostly a check (a `read`, or a `lock`
//! that waits: the only lock that fits a name) and then a create (`write` an account after the
//! check, `book` the name in the keyed table, `claim` it with `on conflict do nothing` /
//! `insert ignore`), sometimes a second create or a check again after it, sometimes rolled
//! back. A create is sent only if the buyer's last check found the name free (the client's
//! rule: a buyer that remembers it taken does not send its write or book); the attempt is
//! sometimes retried under `"if": "failed"`, and a buyer that booked or claimed the name
//! outside a transaction sometimes creates its account after, `"if": "held"`. Half of them are
//! ordered queue-first (`cases.rs`).

use serde_json::{json, Value};

use super::{conditioned, Rng};

const NAMES: [&str; 5] = ["ana", "ben", "cas", "dee", "eve"];

/// The names a scenario may race for (one per schedule).
const USERNAMES: [&str; 3] = ["batman", "robin", "alfred"];

/// A check of the name: what the application asks before it creates it.
fn check(rng: &mut Rng, name: &str) -> Value {
    if rng.chance(50) {
        json!({ "op": "read", "seats": [name] })
    } else {
        json!({ "op": "lock", "seats": [name], "wait": "wait" })
    }
}

/// A create of the name: an account after the check, the name in the keyed table, or the
/// name only if it is not there yet.
fn create(rng: &mut Rng, name: &str) -> Value {
    match rng.below(10) {
        0..=3 => json!({ "op": "write", "seats": [name] }),
        4..=6 => json!({ "op": "book", "seats": [name] }),
        _ => json!({ "op": "claim", "seats": [name] }),
    }
}

/// The statements of one attempt: mostly a check then a create, else any of them in any order.
fn statements(rng: &mut Rng, name: &str, in_tx: bool) -> Vec<Value> {
    let mut body = Vec::new();
    if rng.chance(70) {
        body.push(check(rng, name));
        body.push(create(rng, name));
        if in_tx && rng.chance(25) {
            // A second create (the account and its name), or the check again after it.
            let extra = if rng.chance(60) {
                create(rng, name)
            } else {
                check(rng, name)
            };
            body.push(extra);
        }
        return body;
    }
    for _ in 0..1 + rng.below(if in_tx { 3 } else { 2 }) {
        let op = if rng.chance(40) {
            check(rng, name)
        } else {
            create(rng, name)
        };
        body.push(op);
    }
    body
}

fn program(rng: &mut Rng, name: &str) -> Vec<Value> {
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
    attempt.extend(statements(rng, name, in_tx));
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
    let reserved = !in_tx && ops.iter().any(|o| o["op"] == "book" || o["op"] == "claim");
    if reserved && rng.chance(40) {
        // The name is the buyer's: now its account.
        let account = json!({ "op": "write", "seats": [name] });
        ops.push(conditioned(account, Some("held")));
    }
    ops
}

/// A username schedule file, without its order.
pub fn file(rng: &mut Rng, n: u64) -> Value {
    let name = *rng.pick(&USERNAMES);
    let taken = rng.chance(35);
    let buyers = 2 + rng.below(4);
    let mut actors = serde_json::Map::new();
    for buyer in NAMES.iter().take(buyers) {
        actors.insert(buyer.to_string(), Value::from(program(rng, name)));
    }
    json!({
        "version": 1,
        "name": format!("username {n}"),
        "scenario": { "kind": "username", "seats": [{ "id": name, "value": i64::from(taken) }] },
        "actors": actors,
        "order": [],
    })
}
