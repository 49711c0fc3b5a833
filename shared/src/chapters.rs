//! The chapters: their titles, their text (written to read well with no interaction at all),
//! and the scenarios each one lets the reader play with. Pure data: each chapter's words are in
//! its own file, `ch1` to `ch6` (the sandbox is 5; the shapes came after it, so that no
//! address before them changed).

use crate::defences::Defence;
use crate::schedule::SHOWS_SEATS;

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
    /// Which defence × scenario matrix belongs here, if any.
    pub matrix: MatrixTable,
}

/// A chapter's matrix of every defence against every order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixTable {
    None,
    /// Buyers racing for seat A7: two, three, and a hold that runs out.
    Seats,
    /// Two buyers racing for a seat and for each counter shape.
    Shapes,
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

mod ch1;
mod ch2;
mod ch3;
mod ch4;
mod ch5;
mod ch6;

/// What Last Seat is, in a few sentences: the home page's pitch.
pub const INTRO: &str = "Two people tap the same seat in the same second. Both screens said it \
     was free, and only one of them can sit in it. Last Seat slows that second down: you choose \
     the order in which each buyer\u{2019}s reads and writes reach the database, pick the defence \
     the booking code relies on, and watch who is told they got the seat. Then the very same \
     schedule runs on a real PostgreSQL, one connection per buyer, and the two outcomes are laid \
     side by side.";

/// Every chapter, in reading order.
pub const CHAPTERS: &[Chapter] = &[
    of_seats(ch1::CHAPTER),
    of_seats(ch2::CHAPTER),
    of_seats(ch3::CHAPTER),
    of_seats(ch4::CHAPTER),
    of_seats(ch5::CHAPTER),
    ch6::CHAPTER,
];

/// A chapter of numbered seats as this build has it: whole, or its title and goal in a build
/// that shows no race for seats (chapter 6's bundle), whose links to it load the page anew.
const fn of_seats(chapter: Chapter) -> Chapter {
    if SHOWS_SEATS {
        chapter
    } else {
        Chapter {
            text: &[],
            parts: &[],
            editable: false,
            matrix: MatrixTable::None,
            ..chapter
        }
    }
}

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
            // Without the shapes (the first bundle), chapter 6 is its title and goal only; without
            // the seats (chapter 6's bundle), chapters 1 to 5 are.
            let shapes = chapter.number == crate::link::bundle::SHAPES_CHAPTER;
            let elsewhere = if shapes {
                !crate::schedule::SHAPES
            } else {
                !SHOWS_SEATS
            };
            assert_eq!(
                chapter.parts.is_empty(),
                elsewhere,
                "chapter {}",
                chapter.number
            );
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
    fn chapters_are_numbered_one_to_six_with_the_sandbox_fifth() {
        let numbers: Vec<u8> = CHAPTERS.iter().map(|c| c.number).collect();
        assert_eq!(numbers, [1, 2, 3, 4, 5, 6]);
        assert!(chapter(7).is_none());
        assert!(chapter(crate::link::SANDBOX).is_some_and(|c| c.editable == SHOWS_SEATS));
        assert_eq!(*crate::link::CHAPTERS.end(), 6);
    }

    #[test]
    fn every_builtin_belongs_to_a_chapter_that_offers_it() {
        for b in crate::scenarios::all() {
            let c = chapter(b.chapter).expect("its chapter exists");
            assert!(
                locate(c, b.id, None).is_some(),
                "{} in chapter {}",
                b.id,
                c.number
            );
        }
    }
}
