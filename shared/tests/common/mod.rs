//! Random buyers' programs for the property tests: the same strategies for every test file.

pub mod counters;
pub mod explore;
pub mod scripts;
pub mod speak;

use proptest::prelude::*;
use shared::schedule::{Isolation, Op, SeatStatus, Wait};

/// One or both of the two seats the random schedules use.
pub fn seats() -> impl Strategy<Value = Vec<String>> {
    prop::sample::subsequence(vec!["A1".to_string(), "A2".to_string()], 1..=2)
}

/// One buyer's program: an optional transaction around some statements, then fewer than
/// `one_calls` one-call ops.
pub fn program(one_calls: usize) -> impl Strategy<Value = Vec<Op>> {
    let statement = prop_oneof![
        seats().prop_map(|seats| Op::Read { seats }),
        (
            seats(),
            prop_oneof![Just(Wait::Wait), Just(Wait::Nowait), Just(Wait::SkipLocked)]
        )
            .prop_map(|(seats, wait)| Op::Lock { seats, wait }),
        (
            seats(),
            prop_oneof![Just(SeatStatus::Held), Just(SeatStatus::Booked)]
        )
            .prop_map(|(seats, status)| Op::Write { seats, status }),
        seats().prop_map(|seats| Op::Claim { seats, now: None }),
        seats().prop_map(|seats| Op::Book { seats }),
    ];
    let isolation = prop_oneof![
        Just(Isolation::ReadCommitted),
        Just(Isolation::RepeatableRead),
        Just(Isolation::Serializable)
    ];
    let one_call = prop_oneof![
        seats().prop_map(|seats| Op::Hold {
            seats,
            attempt: None,
            now: None
        }),
        Just(Op::Confirm { now: None }),
        Just(Op::Release),
        Just(Op::Pay {
            outcome: Default::default()
        }),
        seats().prop_map(|seats| Op::RedisHold { seats }),
    ];
    (
        prop::option::of(isolation),
        prop::collection::vec(statement, 1..3),
        any::<bool>(),
        prop::collection::vec(one_call, 0..one_calls),
    )
        .prop_map(|(tx, body, commit, tail)| {
            let mut ops = Vec::new();
            if let Some(isolation) = tx {
                ops.push(Op::Begin { isolation });
                ops.extend(body);
                ops.push(if commit { Op::Commit } else { Op::Rollback });
            } else {
                ops.extend(body);
            }
            ops.extend(tail);
            ops
        })
}
