//! The schedule format (version 1): what a file says, and the validated `Schedule` it parses to.
//!
//! `Schedule::parse_json` reads a file's text, `Schedule::parse` a `ScheduleFile` already in
//! memory; either returns a `Schedule` whose invariants hold (known actors and seats, program
//! order, limits, an order that can run) or one error that names the exact field (its path in
//! the file, such as `actors.adam[0].isolation`), says what was found there and how to fix it,
//! offering the nearest valid word when there is one. Files: `format` (the file's shapes),
//! `clock_unit` (what a tick of the clock stands for, and the clock in words),
//! `op` (the operations and their arguments), `decode` (JSON to a file, knowing every key),
//! `suggest` (the nearest valid word), `check` (the scenario, names, expectations),
//! `program` (each actor's program), `condition` (its `"if"`s), `order` (the order given, or
//! the default one).

mod check;
mod clock_unit;
mod condition;
mod database;
mod decode;
mod format;
mod op;
mod order;
mod program;
mod shape;
mod suggest;

pub use clock_unit::ClockUnit;
pub use database::Database;
pub(crate) use decode::EXPECT_KEYS;
pub use format::{Expect, FinalSeat, ProgramSpec, Scenario, ScheduleFile, SeatSpec, SeatStatus};
pub use op::{op_value, Condition, Isolation, Now, Op, PayOutcome, Wait};
pub use order::Stuck;
pub(crate) use shape::seats_shown_from_here;
pub use shape::{Shape, MAX_VALUE, SHAPES, SHOWS_SEATS};

use serde::{Deserialize, Serialize};

use crate::defences::Defence;

/// Limits that keep a run bounded, in the browser and on the real database alike.
pub const MAX_ACTORS: usize = 8;
pub const MAX_OPS_PER_ACTOR: usize = 32;
pub const MAX_ORDER: usize = 128;
pub const MAX_SEATS: usize = 64;
pub const MAX_MINUTES: i64 = 100_000;

/// The actor that runs clock operations (`advance`, `sweep`).
pub const CLOCK: &str = "clock";

/// An error in a schedule: the field it is in, and what is wrong with it.
///
/// `field` is the path of the offending value in the file (`scenario.seats[0].id`,
/// `actors.adam[2].wait`; a key that is not a plain word is written `actors["a b"]`), of the
/// object that lacks a key it needs, or `schedule` for the file as a whole.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("{field}: {message}")]
pub struct ScheduleError {
    pub field: String,
    pub message: String,
}

impl ScheduleError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        ScheduleError {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// One actor and its program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Actor {
    pub name: String,
    pub program: Vec<Op>,
    /// The condition of each operation of `program`, index for index.
    pub conditions: Vec<Condition>,
    /// The defence that generated the program, when the file named one.
    pub defence: Option<Defence>,
}

impl Actor {
    /// The condition under which operation `op_index` of the program runs.
    pub fn condition(&self, op_index: usize) -> Condition {
        self.conditions.get(op_index).copied().unwrap_or_default()
    }
}

/// A validated schedule: every actor and seat is known, programs fit the limits, the order
/// never runs an actor past the end of its program.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    name: String,
    database: Database,
    scenario: Scenario,
    actors: Vec<Actor>,
    order: Vec<usize>,
    expect: Option<Expect>,
}

impl Schedule {
    /// Parses JSON text into a validated schedule. A byte-order mark before the text is
    /// allowed (some editors write one).
    pub fn parse_json(text: &str) -> Result<Schedule, ScheduleError> {
        Schedule::parse(decode::file_from_text(text)?)
    }

    /// Validates a schedule file. A file without an order gets the default one
    /// (`Schedule::round_robin`), refused only if no order can run every program to its end.
    pub fn parse(file: ScheduleFile) -> Result<Schedule, ScheduleError> {
        check::version(file.version.into())?;
        check::engine(file.engine)?;
        let scenario = check::scenario(file.scenario)?;
        check::actor_count(file.actors.len())?;
        let actors = {
            let seat_ids: Vec<&str> = scenario.seats.iter().map(|s| s.id.as_str()).collect();
            file.actors
                .into_iter()
                .map(|(name, spec)| {
                    check::actor_name(&name)?;
                    program::actor(&name, spec, &scenario, &seat_ids)
                })
                .collect::<Result<Vec<_>, _>>()?
        };
        let order = order::given(&file.order, &actors)?;
        let mut schedule = Schedule {
            name: file.name,
            database: file.engine,
            scenario,
            actors,
            order,
            expect: None,
        };
        if file.order.is_empty() {
            let order = schedule.round_robin().map_err(|s| s.error(&schedule))?;
            schedule.order = order;
        }
        schedule.expect = file
            .expect
            .map(|e| check::expect(e, &schedule))
            .transpose()?;
        Ok(schedule)
    }

    /// Builds a schedule from parts already validated elsewhere (the explorer's reorderings).
    pub fn with_order(&self, order: Vec<usize>) -> Schedule {
        Schedule {
            order,
            ..self.clone()
        }
    }

    /// The same schedule on `database` (its default order is found again on that database's
    /// model, since a wait on one may not be a wait on the other).
    pub fn on(&self, database: Database) -> Result<Schedule, ScheduleError> {
        let mut file = self.to_file();
        file.engine = database;
        Schedule::parse(file)
    }

    pub fn name(&self) -> &str {
        &self.name
    }
    /// The database it races on (`"engine"`). Without the `innodb` feature no schedule on
    /// InnoDB parses, so this is PostgreSQL, known at compile time: every branch for InnoDB,
    /// and the model behind it, is then left out of the build.
    pub fn database(&self) -> Database {
        if cfg!(feature = "innodb") {
            self.database
        } else {
            Database::Postgresql
        }
    }
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    pub fn actors(&self) -> &[Actor] {
        &self.actors
    }
    /// The order as indices into `actors()`.
    pub fn order(&self) -> &[usize] {
        &self.order
    }
    pub fn expect(&self) -> Option<&Expect> {
        self.expect.as_ref()
    }

    /// Whether some actor's program has an operation for which `f` holds.
    pub fn any_op(&self, f: impl Fn(&Op) -> bool) -> bool {
        self.actors.iter().any(|a| a.program.iter().any(&f))
    }

    pub fn actor_index(&self, name: &str) -> Option<usize> {
        self.actors.iter().position(|a| a.name == name)
    }

    /// The order with every actor's program run to its end, appending the missing entries in
    /// actor order: the multiset of entries that the explorer permutes.
    pub fn full_multiset(&self) -> Vec<usize> {
        (0..self.actors.len())
            .flat_map(|i| std::iter::repeat_n(i, self.actors[i].program.len()))
            .collect()
    }

    /// Back to the file format (defences stay expanded into their programs).
    pub fn to_file(&self) -> ScheduleFile {
        ScheduleFile {
            version: 1,
            name: self.name.clone(),
            engine: self.database,
            description: None,
            scenario: self.scenario.clone(),
            actors: self
                .actors
                .iter()
                .map(|a| {
                    let ops = a
                        .program
                        .iter()
                        .enumerate()
                        .map(|(i, op)| op_value(op, a.condition(i)))
                        .collect();
                    (a.name.clone(), ProgramSpec::Ops(ops))
                })
                .collect(),
            order: self
                .order
                .iter()
                .map(|&i| self.actors[i].name.clone())
                .collect(),
            expect: self.expect.clone(),
        }
    }

    /// Replaces the expectations (the page fills them from the current outcome on export).
    pub fn set_expect(&mut self, expect: Option<Expect>) {
        self.expect = expect;
    }
}
