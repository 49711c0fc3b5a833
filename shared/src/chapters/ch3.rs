//! Chapter 3, "The last concert seat": three arrivals in every order, retries that never
//! extend a hold, and which clock a deadline is checked with.

use super::{Chapter, MatrixTable, Part, Variant};

pub(super) const CHAPTER: Chapter = Chapter {
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
    matrix: MatrixTable::None,
};
