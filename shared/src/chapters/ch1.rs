//! Chapter 1, "Same seat, same second": one conditional UPDATE settles the race that two
//! separate statements lose; an expired hold, confirm's three answers, all or nothing, and the
//! unique key underneath.

use super::{Chapter, MatrixTable, Part, Variant};
use crate::defences::Defence;

pub(super) const CHAPTER: Chapter = Chapter {
    number: 1,
    title: "Same seat, same second",
    goal: "See how one conditional UPDATE settles a race that two separate statements lose.",
    text: &[
        "Two requests arrive for seat A7 within the same second. The booking code does not \
         ask first and write later: it sends a single UPDATE that changes the seat only if \
         it is still free, or if the hold on it has already run out. Whoever reaches the \
         row first takes its lock. The other request does not fail and does not read stale \
         data: it waits.",
        "When the first transaction commits, PostgreSQL wakes the waiting UPDATE, reads the \
         newest version of the row and evaluates the WHERE clause again. The seat is held \
         now, so the condition is false and the second request changes nothing. Zero rows \
         updated is the whole answer: the application tells its buyer the seat is gone.",
        "Because the deadline sits inside the WHERE clause, an expired hold is simply a \
         free seat to the next request; no background job has to clean it up first. \
         Confirming a payment works the same way: it carries the hold id, and it gives one \
         of three answers: a ticket, the same ticket again for a repeated webhook, or a \
         refund owed when the hold is no longer ours.",
        "A family that needs three seats together wants all of them or none. Locking them \
         with FOR UPDATE NOWAIT means a collision answers at once with an error instead of \
         a queue, and nobody waits in a circle. Underneath everything, a unique key on \
         (show, seat) refuses a second ticket for the same seat, whatever the code above \
         it got wrong.",
    ],
    parts: &[
        one!("The second request waits", "ch1-second-request-waits"),
        one!("An expired hold is free", "ch1-expired-hold-is-free"),
        one!("Confirm's three answers", "ch1-confirm-three-answers"),
        Part {
            title: "All or nothing",
            chooser: "Lock",
            variants: &[
                Variant {
                    label: "FOR UPDATE NOWAIT",
                    scenario: "ch1-family-nowait",
                    defence: None,
                },
                Variant {
                    label: "FOR UPDATE (wait)",
                    scenario: "ch1-family-nowait",
                    defence: Some(Defence::LockRow),
                },
                Variant {
                    label: "SKIP LOCKED",
                    scenario: "ch1-family-nowait",
                    defence: Some(Defence::SkipLocked),
                },
            ],
        },
        one!("The unique key underneath", "ch1-unique-safety-net"),
    ],
    editable: false,
    matrix: MatrixTable::None,
};
