//! Each defence's program: the operations it sends for some seats, and the condition of each
//! (an application pays and confirms only while it holds its seats; a `_retry` variant sends its
//! transaction again only if the first attempt failed).

use super::Defence;
use crate::schedule::{Condition, Isolation, Op, SeatStatus, Wait};

impl Defence {
    /// The program for `seats`, with each operation's condition.
    pub fn program(self, seats: &[String]) -> (Vec<Op>, Vec<Condition>) {
        if let Some(first) = self.retried() {
            let (attempt, _) = first.program(seats);
            let mut conditions = vec![Condition::Always; attempt.len()];
            conditions.extend(vec![Condition::Failed; attempt.len()]);
            return ([attempt.clone(), attempt].concat(), conditions);
        }
        let ops = self.ops(seats);
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
        (ops, conditions)
    }

    /// The operations of one attempt (a `_retry` variant's are its first defence's).
    pub(super) fn ops(self, seats: &[String]) -> Vec<Op> {
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
        match self {
            Defence::CheckThenAct => vec![read(), book_write()],
            Defence::Transaction => in_tx(Isolation::ReadCommitted, vec![read(), book_write()]),
            Defence::RepeatableRead => in_tx(Isolation::RepeatableRead, vec![read(), book_write()]),
            Defence::Serializable => in_tx(Isolation::Serializable, vec![read(), book_write()]),
            Defence::AtomicUpdate => vec![Op::Claim {
                seats: seats.clone(),
                now: None,
            }],
            Defence::LockRow => in_tx(
                Isolation::ReadCommitted,
                vec![
                    Op::Lock {
                        seats: seats.clone(),
                        wait: Wait::Wait,
                    },
                    book_write(),
                ],
            ),
            Defence::LockNowait => in_tx(
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
            Defence::SkipLocked => in_tx(
                Isolation::ReadCommitted,
                vec![
                    Op::Lock {
                        seats: seats.clone(),
                        wait: Wait::SkipLocked,
                    },
                    book_write(),
                ],
            ),
            Defence::UniqueConstraint => vec![
                read(),
                Op::Book {
                    seats: seats.clone(),
                },
            ],
            Defence::HoldConfirm => vec![
                hold(),
                Op::Pay {
                    outcome: Default::default(),
                },
                Op::Confirm { now: None },
            ],
            Defence::ExpiryOnly => vec![hold(), hold()],
            Defence::ReleaseOnExit => vec![hold(), Op::Release, hold()],
            Defence::RedisHold => vec![
                redis_hold(),
                Op::Pay {
                    outcome: Default::default(),
                },
                Op::Book {
                    seats: seats.clone(),
                },
            ],
            Defence::RedisUpdate => vec![
                redis_hold(),
                Op::Pay {
                    outcome: Default::default(),
                },
                book_write(),
            ],
            Defence::RedisExpiryOnly => vec![redis_hold(), redis_hold()],
            Defence::RedisReleaseOnExit => vec![redis_hold(), Op::RedisRelease, redis_hold()],
            Defence::RepeatableReadRetry
            | Defence::SerializableRetry
            | Defence::LockNowaitRetry => self.retried().expect("a retry variant").ops(&seats),
        }
    }
}
