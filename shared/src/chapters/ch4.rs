//! Chapter 4, "Who sold my seat twice?": two requests for one seat under every defence, and
//! the hold with a late payment.

use super::{Chapter, MatrixTable, Part, Variant};
use crate::defences::Defence;

pub(super) const CHAPTER: Chapter = Chapter {
    number: 4,
    title: "Who sold my seat twice?",
    goal: "Sell A7 twice. Then pick a defence and watch where the second request stops.",
    text: &[
        "Adam and Omar both want A7. Each request does the obvious thing: read the seat, \
         and if it says AVAILABLE, write it as taken and tell the buyer it is theirs. Each \
         request is correct on its own. Together they can both read AVAILABLE before \
         either writes, and then both buyers are told the same seat is theirs.",
        "Slide Omar's read past Adam's write and the problem disappears: Omar sees the seat \
         taken and is told it sold out. The bug lives entirely in the order, which is why it \
         passes every test that runs one request at a time.",
        "Wrapping the two statements in a transaction does not help at READ COMMITTED: \
         each statement still sees whatever was committed when it began. What helps is \
         making the check and the write one step (a conditional UPDATE), locking the row \
         before reading it (FOR UPDATE), letting a unique key refuse the second ticket, or \
         asking for SERIALIZABLE and retrying when PostgreSQL refuses to commit. Each stops \
         the second buyer somewhere different: choose one and look where.",
    ],
    parts: &[
        Part {
            title: "Two requests, one seat",
            chooser: "Defence",
            variants: &[
                Variant {
                    label: Defence::CheckThenAct.title(),
                    scenario: "ch4-check_then_act",
                    defence: None,
                },
                Variant {
                    label: Defence::Transaction.title(),
                    scenario: "ch4-transaction",
                    defence: None,
                },
                Variant {
                    label: Defence::AtomicUpdate.title(),
                    scenario: "ch4-atomic_update",
                    defence: None,
                },
                Variant {
                    label: Defence::LockRow.title(),
                    scenario: "ch4-lock_row",
                    defence: None,
                },
                Variant {
                    label: Defence::UniqueConstraint.title(),
                    scenario: "ch4-unique_constraint",
                    defence: None,
                },
                Variant {
                    label: Defence::RepeatableRead.title(),
                    scenario: "ch4-repeatable_read",
                    defence: None,
                },
                Variant {
                    label: Defence::Serializable.title(),
                    scenario: "ch4-serializable",
                    defence: None,
                },
                Variant {
                    label: Defence::SerializableRetry.title(),
                    scenario: "ch4-serializable-retry",
                    defence: None,
                },
            ],
        },
        one!("The hold and the late payment", "ch4-late-payment"),
    ],
    editable: false,
    matrix: MatrixTable::Seats,
};
