//! The chapters: their titles, their text (written to read well with no interaction at all),
//! and the scenarios each one lets the reader play with. Pure data.

use crate::defences::Defence;

/// A way to run one part of a chapter: a built-in scenario, optionally with every buyer's
/// defence swapped for another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// What the chooser calls it.
    pub label: &'static str,
    pub scenario: &'static str,
    /// A defence that replaces every buyer's defence in the scenario file.
    pub defence: Option<Defence>,
}

/// A part of a chapter: one scenario, or one scenario under several defences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    pub title: &'static str,
    /// The chooser's label when there are several variants ("Defence").
    pub chooser: &'static str,
    pub variants: &'static [Variant],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chapter {
    pub number: u8,
    pub title: &'static str,
    /// The one line under the title: what the reader sets out to do.
    pub goal: &'static str,
    /// The chapter's text, paragraph by paragraph.
    pub text: &'static [&'static str],
    pub parts: &'static [Part],
    /// Whether the reader can edit the schedule itself (the sandbox).
    pub editable: bool,
    /// Whether the defence × scenario matrix belongs here.
    pub matrix: bool,
}

/// A part with a single scenario and no chooser.
macro_rules! one {
    ($title:literal, $id:literal) => {
        Part {
            title: $title,
            chooser: "",
            variants: &[Variant {
                label: "",
                scenario: $id,
                defence: None,
            }],
        }
    };
}

/// What Last Seat is, in a few sentences: the home page's pitch.
pub const INTRO: &str = "Two people tap the same seat in the same second. Both screens said it \
     was free, and only one of them can sit in it. Last Seat slows that second down: you choose \
     the order in which each buyer\u{2019}s reads and writes reach the database, pick the defence \
     the booking code relies on, and watch who is told they got the seat. Then the very same \
     schedule runs on a real PostgreSQL, one connection per buyer, and the two outcomes are laid \
     side by side.";

/// Every chapter, in reading order.
pub const CHAPTERS: &[Chapter] = &[
    Chapter {
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
        matrix: false,
    },
    Chapter {
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
        matrix: false,
    },
    Chapter {
        number: 3,
        title: "The last concert seat",
        goal: "Reorder three arrivals until a late payment takes somebody else's seat, and see why it cannot.",
        text: &[
            "One seat is left, A14, and A holds it for five minutes. Three things are about to \
             happen in some order: A's hold runs out, B asks for the seat, and A's payment \
             arrives to confirm. There are six orders. Every one of them must end with at most \
             one person holding a ticket, and with A's money returned whenever A ends up \
             without the seat.",
            "The dangerous order is the one where the payment lands after the hold expired and \
             after B took the seat. A confirm that only checks who paid would hand B's seat to \
             A. A confirm that checks the hold id finds a hold that is no longer A's, leaves \
             B's seat alone and records the refund owed, in the same transaction.",
            "Retrying does not buy time either: a retried hold keeps its original deadline, so \
             a client that loops on \u{201c}hold\u{201d} cannot keep a seat forever. And the \
             clock reading matters: now() is the time the transaction began, which can be \
             minutes before the moment the decision is actually taken.",
        ],
        parts: &[
            one!("Three arrivals", "ch3-three-arrivals"),
            one!("Retries never extend", "ch3-retry-never-extends"),
            Part {
                title: "Which clock?",
                chooser: "Deadline checked with",
                variants: &[
                    Variant {
                        label: "now() (transaction start)",
                        scenario: "ch3-now-transaction",
                        defence: None,
                    },
                    Variant {
                        label: "the time of the decision",
                        scenario: "ch3-now-evaluation",
                        defence: None,
                    },
                ],
            },
        ],
        editable: false,
        matrix: false,
    },
    Chapter {
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
        matrix: true,
    },
    Chapter {
        number: 5,
        title: "Sandbox",
        goal: "Any seats, any programs, any order: find every order that goes wrong.",
        text: &[
            "Here the schedule is yours. Edit the scenario and the programs as JSON (the same \
             format the exported fixtures use), reorder the steps, and let the explorer run \
             every order the programs allow. It groups them by verdict and by how the losing \
             buyer was stopped; load any group's example to step through it.",
        ],
        parts: &[one!("Three buyers, one seat", "ch5-three-buyers")],
        editable: true,
        matrix: true,
    },
];

/// The chapter with this number.
pub fn chapter(number: u8) -> Option<&'static Chapter> {
    CHAPTERS.iter().find(|c| c.number == number)
}

/// The part and variant that run this scenario (with this defence override) in a chapter.
pub fn locate(
    chapter: &Chapter,
    scenario: &str,
    defence: Option<Defence>,
) -> Option<(usize, usize)> {
    chapter.parts.iter().enumerate().find_map(|(p, part)| {
        part.variants
            .iter()
            .position(|v| v.scenario == scenario && v.defence == defence)
            .map(|v| (p, v))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_names_a_builtin_scenario_it_can_locate() {
        for chapter in CHAPTERS {
            assert!(!chapter.parts.is_empty(), "chapter {}", chapter.number);
            for part in chapter.parts {
                assert!(!part.variants.is_empty(), "{}", part.title);
                for v in part.variants {
                    assert!(
                        crate::scenarios::get(v.scenario).is_some(),
                        "{}",
                        v.scenario
                    );
                    assert!(locate(chapter, v.scenario, v.defence).is_some());
                }
            }
        }
    }

    #[test]
    fn chapters_are_numbered_one_to_five() {
        let numbers: Vec<u8> = CHAPTERS.iter().map(|c| c.number).collect();
        assert_eq!(numbers, [1, 2, 3, 4, 5]);
        assert!(chapter(6).is_none());
    }
}
