//! The defences: named presets that generate a buyer's program for some seats. They behave
//! like applications: they pay and confirm only while they hold their seats (`if: held`), and
//! the `_retry` variants write their transaction again under `if: failed`, a bounded retry
//! after 40001, 40P01 or 55P03 (a variant of its own, as one retry doubles a program's length
//! and multiplies its interleavings).

use crate::schedule::{Condition, Isolation, Op, SeatStatus, Wait};

/// Every defence name, in the order the page offers them.
pub const NAMES: &[&str] = &[
    "check_then_act",
    "transaction",
    "repeatable_read",
    "serializable",
    "atomic_update",
    "lock_row",
    "lock_nowait",
    "skip_locked",
    "repeatable_read_retry",
    "serializable_retry",
    "lock_nowait_retry",
    "unique_constraint",
    "hold_confirm",
    "expiry_only",
    "release_on_exit",
    "redis_hold",
    "redis_update",
    "redis_expiry_only",
    "redis_release_on_exit",
];

/// One line saying what the defence does.
pub fn summary(name: &str) -> Option<&'static str> {
    Some(match name {
        "check_then_act" => "read the seat, then book it if it looked free",
        "transaction" => "the same read and write inside a READ COMMITTED transaction",
        "repeatable_read" => "the same read and write inside a REPEATABLE READ transaction",
        "serializable" => "the same read and write inside a SERIALIZABLE transaction",
        "atomic_update" => "one conditional UPDATE that takes the seat only if it is still free",
        "lock_row" => "lock the row with SELECT … FOR UPDATE, then write",
        "lock_nowait" => "lock every seat with FOR UPDATE NOWAIT: all of them or none",
        "repeatable_read_retry" => {
            "the REPEATABLE READ transaction, tried once more if it fails with 40001 or 40P01"
        }
        "serializable_retry" => {
            "the SERIALIZABLE transaction, tried once more if it fails with 40001 or 40P01"
        }
        "lock_nowait_retry" => {
            "lock every seat with FOR UPDATE NOWAIT, and try once more if they were busy (55P03)"
        }
        "skip_locked" => "lock with FOR UPDATE SKIP LOCKED, then write what was not skipped",
        "unique_constraint" => "read, then insert the ticket: the unique key refuses a second one",
        "hold_confirm" => {
            "hold the seat, pay with the hold id, confirm only if the hold is still ours"
        }
        "expiry_only" => "hold, leave without releasing, come back: locked out by one's own hold",
        "release_on_exit" => "hold, release on leaving, come back: the seat is there again",
        "redis_hold" => {
            "hold in Redis with SET NX and a TTL, pay, insert the ticket: the unique key decides"
        }
        "redis_update" => {
            "hold in Redis with SET NX and a TTL, pay, UPDATE the seat to BOOKED: nothing checks"
        }
        "redis_expiry_only" => {
            "hold in Redis, leave without deleting the key, come back: locked out until the TTL"
        }
        "redis_release_on_exit" => {
            "hold in Redis, delete the key on leaving, come back: the seat is there again"
        }
        _ => return None,
    })
}

/// The program of defence `name` for `seats` with each operation's condition, or `None` for
/// an unknown name.
pub fn program(name: &str, seats: &[String]) -> Option<(Vec<Op>, Vec<Condition>)> {
    if let Some(first) = name.strip_suffix("_retry") {
        if !RETRYING.contains(&first) {
            return None;
        }
        let (attempt, _) = program(first, seats)?;
        let mut conditions = vec![Condition::Always; attempt.len()];
        conditions.extend(vec![Condition::Failed; attempt.len()]);
        return Some(([attempt.clone(), attempt].concat(), conditions));
    }
    let ops = ops(name, seats)?;
    // A buyer pays and confirms only while it holds its seats, and books only what it paid
    // for: a refused one does neither.
    let mut paid = false;
    let conditions = ops
        .iter()
        .map(|op| match op {
            Op::Pay { .. } => {
                paid = true;
                Condition::Held
            }
            Op::Confirm { .. } => Condition::Held,
            Op::Book { .. } | Op::Write { .. } if paid => Condition::Held,
            _ => Condition::Always,
        })
        .collect();
    Some((ops, conditions))
}

/// The defences that have a `_retry` variant: one transaction that can fail in a way worth
/// retrying.
const RETRYING: &[&str] = &["repeatable_read", "serializable", "lock_nowait"];

/// The operations of defence `name` (without `_retry`).
fn ops(name: &str, seats: &[String]) -> Option<Vec<Op>> {
    let seats = seats.to_vec();
    let read = || Op::Read {
        seats: seats.clone(),
    };
    let book_write = || Op::Write {
        seats: seats.clone(),
        status: SeatStatus::Booked,
    };
    let in_tx = |isolation: Isolation, body: Vec<Op>| {
        let mut ops = vec![Op::Begin { isolation }];
        ops.extend(body);
        ops.push(Op::Commit);
        ops
    };
    let hold = || Op::Hold {
        seats: seats.clone(),
        attempt: None,
        now: None,
    };
    let redis_hold = || Op::RedisHold {
        seats: seats.clone(),
    };
    Some(match name {
        "check_then_act" => vec![read(), book_write()],
        "transaction" => in_tx(Isolation::ReadCommitted, vec![read(), book_write()]),
        "repeatable_read" => in_tx(Isolation::RepeatableRead, vec![read(), book_write()]),
        "serializable" => in_tx(Isolation::Serializable, vec![read(), book_write()]),
        "atomic_update" => vec![Op::Claim {
            seats: seats.clone(),
            now: None,
        }],
        "lock_row" => in_tx(
            Isolation::ReadCommitted,
            vec![
                Op::Lock {
                    seats: seats.clone(),
                    wait: Wait::Wait,
                },
                book_write(),
            ],
        ),
        "lock_nowait" => in_tx(
            Isolation::ReadCommitted,
            vec![
                Op::Lock {
                    seats: seats.clone(),
                    wait: Wait::Nowait,
                },
                Op::Write {
                    seats: seats.clone(),
                    status: SeatStatus::Held,
                },
            ],
        ),
        "skip_locked" => in_tx(
            Isolation::ReadCommitted,
            vec![
                Op::Lock {
                    seats: seats.clone(),
                    wait: Wait::SkipLocked,
                },
                book_write(),
            ],
        ),
        "unique_constraint" => vec![
            read(),
            Op::Book {
                seats: seats.clone(),
            },
        ],
        "hold_confirm" => vec![
            hold(),
            Op::Pay {
                outcome: Default::default(),
            },
            Op::Confirm { now: None },
        ],
        "expiry_only" => vec![hold(), hold()],
        "release_on_exit" => vec![hold(), Op::Release, hold()],
        "redis_hold" => vec![
            redis_hold(),
            Op::Pay {
                outcome: Default::default(),
            },
            Op::Book {
                seats: seats.clone(),
            },
        ],
        "redis_update" => vec![
            redis_hold(),
            Op::Pay {
                outcome: Default::default(),
            },
            book_write(),
        ],
        "redis_expiry_only" => vec![redis_hold(), redis_hold()],
        "redis_release_on_exit" => vec![redis_hold(), Op::RedisRelease, redis_hold()],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_defence_has_a_program_and_a_summary() {
        for name in NAMES {
            assert!(
                program(name, &["A7".to_string()])
                    .is_some_and(|(p, c)| !p.is_empty() && p.len() == c.len()),
                "{name}"
            );
            assert!(summary(name).is_some(), "{name}");
        }
        assert!(program("optimism", &["A7".to_string()]).is_none());
        assert!(program("check_then_act_retry", &["A7".to_string()]).is_none());
    }
}
