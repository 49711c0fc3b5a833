//! Why a link cannot be opened, each message naming the problem and the way out.

use std::fmt;

use super::{CHAPTERS, VERSION};
use crate::defences::Defence;
use crate::schedule::ScheduleError;

/// Why a link cannot be opened. Each message names the problem and the way out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// Empty, or not starting with a format number.
    NotALink,
    /// Written by a later format than this code reads.
    NewerVersion(u32),
    /// A field is missing, extra or unreadable; the text names which.
    Malformed(String),
    NoSuchChapter(String),
    NoSuchScenario(String),
    WrongChapter {
        scenario: String,
        chapter: u8,
        belongs: u8,
    },
    NoSuchDefence(String),
    /// The link names a database there is no model of.
    NoSuchDatabase(String),
    /// The order names an actor index the schedule does not have.
    NoSuchActor {
        entry: usize,
        index: usize,
        actors: usize,
    },
    /// The stored schedule is not base64url, or not UTF-8 JSON of a schedule file.
    BadSchedule(String),
    /// The schedule or its order does not validate, or the order cannot run.
    Schedule(ScheduleError),
    StepBeyondOrder {
        step: usize,
        entries: usize,
    },
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const COPY_AGAIN: &str = "copy the whole link again";
        match self {
            LinkError::NotALink => write!(
                f,
                "this is not a Last Seat link: a link holds a token that starts with \"{VERSION}.\"; {COPY_AGAIN}"
            ),
            LinkError::NewerVersion(v) => write!(
                f,
                "this link was made by a newer version of Last Seat (link format {v}; this page reads format {VERSION}): reload the page to get the new version"
            ),
            LinkError::Malformed(what) => {
                write!(f, "this link is damaged ({what}): {COPY_AGAIN}")
            }
            LinkError::NoSuchChapter(c) => write!(
                f,
                "the link names chapter {c}, but the chapters are {} to {}: open the chapter list",
                CHAPTERS.start(),
                CHAPTERS.end()
            ),
            LinkError::NoSuchScenario(id) => write!(
                f,
                "the link names scenario `{id}`, which does not exist: open the chapter list"
            ),
            LinkError::WrongChapter {
                scenario,
                chapter,
                belongs,
            } => write!(
                f,
                "the link opens scenario `{scenario}` in chapter {chapter}, but it belongs to chapter {belongs}: open chapter {belongs} instead"
            ),
            LinkError::NoSuchDefence(d) => write!(
                f,
                "the link picks defence `{d}`, which does not exist: choose one of {}",
                Defence::ids().collect::<Vec<_>>().join(", ")
            ),
            LinkError::NoSuchDatabase(d) => write!(
                f,
                "the link races on `{d}`, which this page does not know: write `innodb`, or leave the field out for PostgreSQL"
            ),
            LinkError::NoSuchActor {
                entry,
                index,
                actors,
            } => write!(
                f,
                "entry {} of the link's order names actor number {index}, but the schedule has {actors} actors: {COPY_AGAIN}",
                entry + 1
            ),
            LinkError::BadSchedule(why) => {
                write!(f, "the schedule stored in this link cannot be read ({why}): {COPY_AGAIN}")
            }
            LinkError::Schedule(e) => write!(
                f,
                "the link's schedule cannot run as written ({e}): {COPY_AGAIN}, or start again from the chapter"
            ),
            LinkError::StepBeyondOrder { step, entries } => write!(
                f,
                "the link puts the playhead after entry {step}, but the order has only {entries} entries: {COPY_AGAIN}"
            ),
        }
    }
}

impl std::error::Error for LinkError {}
