//! Chapter 2, "Two phones, eight seats": the hold, pay, confirm flow broken on purpose: a
//! seat twice, a dead hold that pays, a hold that outlives its buyer, a hold kept in Redis.

use super::{Chapter, MatrixTable, Part, Variant};

pub(super) const CHAPTER: Chapter = Chapter {
    number: 2,
    title: "Two phones, eight seats",
    goal: "Try to break the booking flow: a seat twice, a dead hold that pays, a hold that outlives its buyer, a Redis hold.",
    text: &[
        "Eight seats, C1 to C8, and two phones. The flow is the one every ticket site uses: \
         hold a seat for a few minutes, pay, confirm. Your job here is to be the difficult \
         customer. Tap the same seat on both phones. Wait until the hold runs out and pay \
         anyway. Close the app halfway through.",
        "A hold is a promise with a deadline. The database keeps the deadline next to the \
         seat, so every statement that looks at the seat can tell whether the promise still \
         stands. A payment that arrives for a dead hold must not turn into a booking: \
         confirm checks that the hold is still the one it paid for.",
        "Leaving is where the quiet bug lives. If the app releases the hold whenever the \
         buyer backs out, the seat is free again at once. If it relies on expiry alone, the \
         buyer who comes back a minute later finds their own hold blocking them: locked out \
         of the seat they were just looking at.",
        "Many sites keep the hold in Redis instead: SET with NX and a time to live gives the \
         key to one phone at a time, and the key vanishes by itself when the time is up. \
         Fast, and the expiry comes free. But now two systems each believe they know who \
         has the seat. When a key runs out in the middle of a payment, Redis hands the seat \
         to the next phone while the first one is still paying, and the database has the \
         final say only if something in it checks: a plain UPDATE lets both phones through, \
         a unique key on the ticket lets one in and owes the other a refund. (Redis is \
         simulated here, in the browser and beside the real PostgreSQL run alike.)",
    ],
    parts: &[
        one!("The same seat twice", "ch2-same-seat-twice"),
        one!("Pay with a dead hold", "ch2-dead-hold-payment"),
        Part {
            title: "Leave and come back",
            chooser: "On leaving",
            variants: &[
                Variant {
                    label: "Expiry only",
                    scenario: "ch2-expiry_only",
                    defence: None,
                },
                Variant {
                    label: "Release on exit",
                    scenario: "ch2-release_on_exit",
                    defence: None,
                },
                Variant {
                    label: "Redis: TTL only",
                    scenario: "ch2-redis-expiry_only",
                    defence: None,
                },
                Variant {
                    label: "Redis: delete on exit",
                    scenario: "ch2-redis-release_on_exit",
                    defence: None,
                },
            ],
        },
        Part {
            title: "A Redis hold",
            chooser: "After paying",
            variants: &[
                Variant {
                    label: "Plain UPDATE",
                    scenario: "ch2-redis-update",
                    defence: None,
                },
                Variant {
                    label: "Ticket under a unique key",
                    scenario: "ch2-redis-unique",
                    defence: None,
                },
            ],
        },
    ],
    editable: false,
    matrix: MatrixTable::None,
};
