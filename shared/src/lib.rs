//! Last Seat's pure core: the schedule model, a deterministic model of PostgreSQL's locking and
//! isolation for the statements a seat race uses, the verdicts, the explorer and the built-in
//! scenarios. No I/O, no wall clock, no randomness: the same schedule gives the same outcome on
//! native and in wasm, and the backend runs the very same schedule on a real PostgreSQL.

pub mod client;
pub mod defences;
pub mod outcome;
pub mod protocol;
pub mod schedule;
pub mod sql;
pub mod sqlstate;

pub use defences::Defence;
pub use outcome::{Outcome, StepResult, Trace};
pub use schedule::{Schedule, ScheduleError};
pub use sqlstate::SqlState;
pub mod assess;
pub mod chapters;
pub mod claim;
pub mod counter_words;
pub mod engine;
pub mod explain;
pub mod explorer;
pub mod export;
pub mod link;
pub mod scenarios;
pub mod username_words;
pub mod view;
