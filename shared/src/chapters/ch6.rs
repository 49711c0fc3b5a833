//! Chapter 6, "The same shape everywhere": the race for a seat on five other things people
//! race for (a general-admission section, a balance, a rate limit, a single-use coupon, each
//! under every defence that fits a counter; and a username, under every defence that fits it).
//! After the sandbox, so that every address of the chapters before it (the live room's "open
//! in the sandbox" among them) stays what it was.

// Without the shapes (the first bundle) only the title, the goal and the matrix's absence are used.
#![cfg_attr(not(feature = "shapes"), allow(dead_code))]

use super::{Chapter, MatrixTable, Part, Variant};
use crate::defences::Defence;
use crate::schedule::SHAPES;

/// The defences that fit a counter, in the order the chooser offers them: every defence whose
/// program only reads, locks, writes and claims (`Defence::fits`; a test holds the two
/// together). Check, then act comes first, as each shape's file runs it.
pub const FITTING: [Defence; 11] = [
    Defence::CheckThenAct,
    Defence::Transaction,
    Defence::AtomicUpdate,
    Defence::LockRow,
    Defence::RepeatableRead,
    Defence::Serializable,
    Defence::LockNowait,
    Defence::SkipLocked,
    Defence::RepeatableReadRetry,
    Defence::SerializableRetry,
    Defence::LockNowaitRetry,
];

/// The defences that fit a username, in the order the chooser offers them: every defence whose
/// program only reads, locks (waiting), inserts an account, or claims the name
/// (`Defence::fits(Shape::Username)`; a test holds the two together). The unique key fits here,
/// and NOWAIT and SKIP LOCKED do not: a name that no account has has no row to lock.
pub const USERNAME_FITTING: [Defence; 9] = [
    Defence::CheckThenAct,
    Defence::Transaction,
    Defence::AtomicUpdate,
    Defence::LockRow,
    Defence::UniqueConstraint,
    Defence::RepeatableRead,
    Defence::Serializable,
    Defence::RepeatableReadRetry,
    Defence::SerializableRetry,
];

/// One variant per fitting defence for a shape's built-in: its own file first (check, then
/// act, no override), then each other defence switched in.
const fn variants<const N: usize>(scenario: &'static str, fitting: [Defence; N]) -> [Variant; N] {
    let mut out = [Variant {
        label: Defence::CheckThenAct.title(),
        scenario,
        defence: None,
    }; N];
    let mut i = 1;
    while i < N {
        out[i] = Variant {
            label: fitting[i].title(),
            scenario,
            defence: Some(fitting[i]),
        };
        i += 1;
    }
    out
}

/// A part of the chapter: one shape, its defence chooser.
const fn shape(title: &'static str, variants: &'static [Variant]) -> Part {
    Part {
        title,
        chooser: "Defence",
        variants,
    }
}

const GENERAL_ADMISSION: [Variant; FITTING.len()] = variants("shapes-general_admission", FITTING);
const BALANCE: [Variant; FITTING.len()] = variants("shapes-balance", FITTING);
const RATE_LIMIT: [Variant; FITTING.len()] = variants("shapes-rate_limit", FITTING);
const COUPON: [Variant; FITTING.len()] = variants("shapes-coupon", FITTING);
const USERNAME: [Variant; USERNAME_FITTING.len()] = variants("shapes-username", USERNAME_FITTING);

pub(super) const CHAPTER: Chapter = Chapter {
    number: 6,
    title: "The same shape everywhere",
    goal: "Oversell a section, overdraw an account, beat a rate limit, spend a coupon twice and create batman twice. Then find the defences that stop all five.",
    text: TEXT,
    parts: PARTS,
    editable: false,
    // Without the shapes' models (the page's first bundle), chapter 6 is a title and a goal in
    // the table of contents; its address loads the bundle that has them (`link::bundle`).
    matrix: if SHAPES {
        MatrixTable::Shapes
    } else {
        MatrixTable::None
    },
};

#[cfg(feature = "shapes")]
const TEXT: &[&str] = &[
    "A seat is only one of the things two requests can race for. A username that must \
         be unique, a coupon that may be used once, an account that must not go below zero, \
         an API key allowed ten calls a minute, the last ticket of a standing-room section: \
         the code that guards each one looks different, and each one hides the same two \
         steps. First it checks a condition on something shared (the name is free, the \
         coupon is unused, the balance covers the withdrawal, the key has a call left, a \
         ticket is left). Then it acts as if that condition still held.",
    "Between the two steps another request can do exactly the same. Two checkouts both \
         find SAVE50 unused and both take the discount. Two withdrawals of $100 both find \
         $150 and both go through, and the account ends at \u{2212}$50. A hundred calls on \
         a key with one call left all read 1, and all hundred are let in. Each request was \
         told the truth when it asked; the answer stopped being true before it acted.",
    "The cure is the one that saved the seat: make the write carry the condition. \
         \u{201c}Take $100 from the joint account if it has at least $100\u{201d} is one \
         UPDATE whose WHERE says balance >= 100, and that WHERE is the check. A second \
         withdrawal that arrives while the first is uncommitted waits for the row lock; \
         when the first commits, PostgreSQL evaluates the WHERE again on the row as it now \
         is, finds $50, and updates no rows. The application must read that zero as a no. \
         The same holds for tickets_left >= 1, calls_left >= 1 and \u{201c}and not \
         used\u{201d}. Locking the row first (SELECT \u{2026} FOR UPDATE) works too, at the \
         price of a queue. A transaction at READ COMMITTED changes nothing: its read is as \
         stale as before, and its unconditional UPDATE subtracts from whatever is there.",
    "Some defences do not fit a counter at all. A unique key can say that A7 has one \
         ticket, or that one account is called batman, but not that a section holds 400 or \
         that a balance stays above zero. A hold needs a row of its own to sit on.",
    "That is why general admission is harder than a numbered seat. A hold on a seat's \
         own row carries its owner and its deadline, so when a buyer abandons the checkout \
         the next claim sees the hold has run out and takes the seat, and nothing has to \
         clean up. A single counter of tickets left has nowhere to write whose ticket is \
         pending: lower it when a checkout begins, and a checkout that is abandoned lowers \
         it for good, until a cleanup job puts the ticket back. The last part plays one: \
         a buyer takes the last ticket, the payment is declined, and the buyer walks away.",
    "A username is the same race on a row that does not exist yet. Two sign-ups both \
     look for an account called batman, both find none, and both create one: the users \
     table has two batmans, since its index on the name is not unique. Locking first \
     does not help here. SELECT \u{2026} FOR UPDATE locks the rows it finds, and it finds \
     none, so both pass. What stops the second sign-up is a key: a table of claimed names \
     whose primary key is the name. The second INSERT waits for the first one's commit \
     and then fails with a duplicate key (23505 on PostgreSQL, 1062 on MariaDB), or with \
     ON CONFLICT DO NOTHING (INSERT IGNORE) it inserts nothing, and the application \
     must read that zero as \u{201c}taken\u{201d}. Pick a shape below, then a defence, and \
     look where the second request stops.",
];

#[cfg(feature = "shapes")]
const PARTS: &[Part] = &[
    shape("General admission", &GENERAL_ADMISSION),
    shape("A balance", &BALANCE),
    shape("A rate limit", &RATE_LIMIT),
    shape("A single-use coupon", &COUPON),
    one!("A checkout left half-way", "shapes-abandoned-checkout"),
    // Last, so that the parts before it keep their addresses.
    shape("A username", &USERNAME),
];

#[cfg(not(feature = "shapes"))]
const TEXT: &[&str] = &[];

#[cfg(not(feature = "shapes"))]
const PARTS: &[Part] = &[];

#[cfg(all(test, feature = "shapes"))]
mod tests {
    use super::*;
    use crate::schedule::Shape;

    #[test]
    fn the_chooser_offers_exactly_the_defences_that_fit_a_counter() {
        for kind in Shape::ALL.into_iter().filter(|k| k.is_counter()) {
            let fitting: Vec<Defence> = Defence::ALL.into_iter().filter(|d| d.fits(kind)).collect();
            let mut offered = FITTING.to_vec();
            offered.sort();
            let mut want = fitting.clone();
            want.sort();
            assert_eq!(offered, want, "{kind:?}");
        }
    }

    #[test]
    fn the_username_chooser_offers_exactly_the_defences_that_fit_a_username() {
        let mut offered = USERNAME_FITTING.to_vec();
        offered.sort();
        let want: Vec<Defence> = Defence::ALL
            .into_iter()
            .filter(|d| d.fits(Shape::Username))
            .collect();
        assert_eq!(offered, want);
    }

    #[test]
    fn each_part_runs_its_shape_under_every_fitting_defence() {
        // The checkout left half-way is a program of its own, not a defence.
        let checkout: Vec<&Part> = CHAPTER
            .parts
            .iter()
            .filter(|p| p.variants[0].scenario == "shapes-abandoned-checkout")
            .collect();
        assert_eq!(checkout.len(), 1);
        let shapes = CHAPTER
            .parts
            .iter()
            .filter(|p| p.variants[0].scenario != "shapes-abandoned-checkout");
        for part in shapes {
            let username = part.variants[0].scenario == "shapes-username";
            let fitting: &[Defence] = if username {
                &USERNAME_FITTING
            } else {
                &FITTING
            };
            assert_eq!(part.variants.len(), fitting.len());
            for (v, &d) in part.variants.iter().zip(fitting) {
                let b = crate::scenarios::get(v.scenario).expect("built-in");
                let s =
                    crate::schedule::Schedule::parse(b.file_with_defence(v.defence)).expect("fits");
                let kind = s.scenario().kind;
                assert!(kind.is_counter() || username, "{}", v.scenario);
                assert_eq!(kind.is_username(), username, "{}", v.scenario);
                assert!(
                    s.actors().iter().all(|a| a.defence == Some(d)),
                    "{} {d}",
                    v.scenario
                );
                assert_eq!(v.label, d.title());
            }
        }
    }
}
