//! One operation of a program, as the file writes it: `{"op": "lock", "seats": ["A7"],
//! "wait": "nowait", "if": "failed"}`. Each op has its own keys; any other is refused.

use serde_json::Value;

use super::super::op::OP_NAMES;
use super::super::{Condition, Op, ScheduleError};
use super::reader::{choice, error, text, texts, whole, word, Obj};
use super::status;
use super::words::{LEVELS, NOWS, OUTCOMES, WAITS};

/// The keys each op takes besides `op` and `if`, index for index with `OP_NAMES`.
const ARGUMENTS: [&[&str]; 16] = [
    &["isolation"],
    &[],
    &[],
    &["seats"],
    &["seats", "wait"],
    &["seats", "status"],
    &["seats", "now"],
    &["seats"],
    &["seats", "attempt", "now"],
    &["now"],
    &["outcome"],
    &[],
    &["seats"],
    &[],
    &["minutes"],
    &[],
];

/// The operation at `path` of `actor`'s program, and the condition it gives (`None`: none).
pub(in crate::schedule) fn op(
    path: &str,
    actor: &str,
    v: &Value,
) -> Result<(Op, Option<Condition>), ScheduleError> {
    let o = Obj::of(
        path,
        v,
        "an operation, an object, e.g. {\"op\": \"claim\", \"seats\": [\"A7\"]}",
    )?;
    if o.get("op").is_none() {
        // A misspelt "op" is named as such, rather than as an operation without one.
        let mut any = vec!["op", "if"];
        for key in ARGUMENTS.iter().flat_map(|keys| keys.iter()) {
            if !any.contains(key) {
                any.push(key);
            }
        }
        o.only(&any, "an operation")?;
    }
    let name = o.need(
        "op",
        "every operation names one, e.g. {\"op\": \"read\", \"seats\": [\"A7\"]}",
    )?;
    let index = word(&o.path("op"), name, "an operation", &OP_NAMES)?;
    let name = OP_NAMES[index];
    let mut keys = vec!["op", "if"];
    keys.extend_from_slice(ARGUMENTS[index]);
    o.only(&keys, &format!("a {name} operation"))?;
    let condition = o.opt("if", |p, v| condition(p, actor, v))?;
    let seats = || {
        texts(
            &o.path("seats"),
            o.need(
                "seats",
                &format!("a {name} names its seats, e.g. \"seats\": [\"A7\"]"),
            )?,
            "a list of seat ids, e.g. [\"A7\"]",
            "a seat id",
        )
    };
    let now = || o.opt("now", |p, v| choice(p, v, "a clock reading", &NOWS));
    let op = match name {
        "begin" => Op::Begin {
            isolation: o
                .opt("isolation", |p, v| {
                    choice(p, v, "an isolation level", &LEVELS)
                })?
                .unwrap_or_default(),
        },
        "commit" => Op::Commit,
        "rollback" => Op::Rollback,
        "read" => Op::Read { seats: seats()? },
        "lock" => Op::Lock {
            seats: seats()?,
            wait: o
                .opt("wait", |p, v| choice(p, v, "a way to wait", &WAITS))?
                .unwrap_or_default(),
        },
        "write" => Op::Write {
            seats: seats()?,
            status: o.opt("status", status)?.unwrap_or(super::SeatStatus::Held),
        },
        "claim" => Op::Claim {
            seats: seats()?,
            now: now()?,
        },
        "book" => Op::Book { seats: seats()? },
        "hold" => Op::Hold {
            seats: seats()?,
            attempt: o.opt("attempt", |p, v| {
                text(p, v, "an attempt id, e.g. \"first\"")
            })?,
            now: now()?,
        },
        "confirm" => Op::Confirm { now: now()? },
        "pay" => Op::Pay {
            outcome: o
                .opt("outcome", |p, v| {
                    choice(p, v, "a payment's outcome", &OUTCOMES)
                })?
                .unwrap_or_default(),
        },
        "release" => Op::Release,
        "redis_hold" => Op::RedisHold { seats: seats()? },
        "redis_release" => Op::RedisRelease,
        "advance" => Op::Advance {
            minutes: whole(
                &o.path("minutes"),
                o.need(
                    "minutes",
                    "say how far to move the clock, e.g. \"minutes\": 5",
                )?,
                "a number of minutes, e.g. 5",
            )?,
        },
        // "sweep", the last of `OP_NAMES`.
        _ => Op::Sweep,
    };
    Ok((op, condition))
}

/// An operation's `"if"`.
fn condition(path: &str, actor: &str, v: &Value) -> Result<Condition, ScheduleError> {
    let words = ["held", "failed"];
    match word(path, v, "a condition", &words) {
        Ok(0) => Ok(Condition::Held),
        Ok(_) => Ok(Condition::Failed),
        Err(refused) => Err(error(
            path,
            format!(
                "{}. \"held\" runs it only while {actor} holds its seats, \"failed\" only after {actor}'s last attempt failed with 40001, 40P01 or 55P03 or its hold answered busy; leave \"if\" out to always run it",
                refused.message
            ),
        )),
    }
}
