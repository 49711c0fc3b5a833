//! The defence × scenario matrix of chapters 4 and 5 (buyers racing for one seat) and of
//! chapter 6 (two buyers racing for a seat and for each counter shape): per cell, every order of
//! the buyers with one defence, and how the buyers who got nothing were stopped, in sentences.
//! A defence that does not fit a shape (`Defence::fits`) has no cell there: it does not apply.

use std::collections::BTreeMap;

use serde::Serialize;

use super::stop::{Stop, NOT_STOPPED};
use super::{explore, Exploration};
use crate::counter_words::CounterWords;
use crate::defences::Defence;
use crate::schedule::{
    Database, ProgramSpec, Scenario, Schedule, ScheduleFile, SeatSpec, SeatStatus, Shape, CLOCK,
};
use crate::username_words::UsernameWords;

/// A column of the defence × scenario matrix: buyers racing for one seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MatrixScenario {
    pub id: &'static str,
    pub title: &'static str,
    /// The buyers, each running the row's defence for seat A7.
    pub buyers: &'static [&'static str],
    /// The clock moves on this many minutes at some point of the race (past the 10-minute
    /// hold, so a hold can run out under a buyer who is still paying).
    pub clock: Option<u32>,
    /// What the buyers race for: seat A7, or the row of the shape's built-in (`shapes-…`).
    #[serde(skip_serializing_if = "Shape::is_seats")]
    pub kind: Shape,
}

const MATRIX_SCENARIOS: &[MatrixScenario] = &[
    MatrixScenario {
        id: "two-buyers",
        title: "Two buyers",
        buyers: &["adam", "omar"],
        clock: None,
        kind: Shape::Seats,
    },
    MatrixScenario {
        id: "three-buyers",
        title: "Three buyers",
        buyers: &["adam", "omar", "zoe"],
        clock: None,
        kind: Shape::Seats,
    },
    MatrixScenario {
        id: "hold-runs-out",
        title: "Two buyers, a hold runs out",
        buyers: &["adam", "omar"],
        clock: Some(11),
        kind: Shape::Seats,
    },
];

/// The columns of chapter 6's matrix: two buyers racing for a seat, then for each counter.
const SHAPE_COLUMNS: &[MatrixScenario] = &[
    shape_column("seat", "A numbered seat", Shape::Seats),
    shape_column(
        "general_admission",
        "General admission",
        Shape::GeneralAdmission,
    ),
    shape_column("balance", "A balance", Shape::Balance),
    shape_column("rate_limit", "A rate limit", Shape::RateLimit),
    shape_column("coupon", "A single-use coupon", Shape::Coupon),
    shape_column("username", "A username", Shape::Username),
];

const fn shape_column(id: &'static str, title: &'static str, kind: Shape) -> MatrixScenario {
    MatrixScenario {
        id,
        title,
        buyers: &["adam", "omar"],
        clock: None,
        kind,
    }
}

/// The rows of the matrix: the defences that race for a seat, from SQL alone to the hold and
/// the Redis SET NX hold (each titled by `Defence::title`).
const MATRIX_DEFENCES: &[Defence] = &[
    Defence::CheckThenAct,
    Defence::Transaction,
    Defence::AtomicUpdate,
    Defence::LockRow,
    Defence::UniqueConstraint,
    Defence::Serializable,
    Defence::RepeatableRead,
    Defence::LockNowait,
    Defence::SkipLocked,
    Defence::HoldConfirm,
    Defence::RedisHold,
    Defence::RedisUpdate,
];

/// The matrix's scenarios (its columns), in the order the page shows them.
pub fn matrix_scenarios() -> &'static [MatrixScenario] {
    MATRIX_SCENARIOS
}

/// Chapter 6's columns: a seat, then each counter shape, two buyers each.
pub fn matrix_shape_columns() -> &'static [MatrixScenario] {
    shape_columns()
}

/// The shapes matrix's columns; none in a build without the shapes (the page's first bundle).
fn shape_columns() -> &'static [MatrixScenario] {
    if crate::schedule::SHAPES {
        SHAPE_COLUMNS
    } else {
        &[]
    }
}

/// The column `id` of either matrix.
pub fn matrix_column(id: &str) -> Option<&'static MatrixScenario> {
    MATRIX_SCENARIOS
        .iter()
        .chain(shape_columns())
        .find(|s| s.id == id)
}

/// The matrix's defences (its rows), in the order the page shows them.
pub fn matrix_defences() -> &'static [Defence] {
    MATRIX_DEFENCES
}

/// The most orders one cell explores: every cell has fewer (34,650 at most, three buyers who
/// never wait); a cell that grew past it says so (`complete` is false) instead of freezing the
/// page.
pub const MATRIX_CELL_LIMIT: u64 = 50_000;

/// The schedule of one cell: every buyer of `scenario` runs `defence` for seat A7 (show 501,
/// holds of 10 minutes), with the clock's move if the scenario has one; its order is the race
/// with every buyer's step in turn, a waiting buyer passing its turn. `None` for a defence or
/// scenario that is not in the matrix.
pub fn matrix_schedule(defence: Defence, scenario: &str) -> Option<Schedule> {
    matrix_schedule_on(defence, scenario, Database::Postgresql)
}

/// `matrix_schedule` on `database`.
pub fn matrix_schedule_on(
    defence: Defence,
    scenario: &str,
    database: Database,
) -> Option<Schedule> {
    let row = MATRIX_DEFENCES.contains(&defence).then_some(defence)?;
    let column = matrix_column(scenario)?;
    if !column.kind.is_seats() {
        return counter_schedule(row, column, database);
    }
    let seats = vec!["A7".to_string()];
    let mut actors: BTreeMap<String, ProgramSpec> = column
        .buyers
        .iter()
        .map(|b| {
            let spec = ProgramSpec::Defence {
                defence: row.id().to_string(),
                seats: Some(seats.clone()),
            };
            (b.to_string(), spec)
        })
        .collect();
    if let Some(minutes) = column.clock {
        actors.insert(
            CLOCK.to_string(),
            ProgramSpec::Ops(vec![
                serde_json::json!({"op": "advance", "minutes": minutes}),
            ]),
        );
    }
    let file = ScheduleFile {
        version: 1,
        name: format!("{}: {}", column.title, row.title()),
        engine: database,
        description: Some(row.summary().to_string()),
        scenario: Scenario {
            show: 501,
            hold_minutes: 10,
            clock: 0,
            clock_unit: crate::schedule::ClockUnit::Minute,
            kind: crate::schedule::Shape::Seats,
            take: 1,
            seats: vec![SeatSpec {
                id: seats[0].clone(),
                status: SeatStatus::Available,
                holder: None,
                until: None,
                value: None,
            }],
        },
        actors: actors.into_iter().collect(),
        order: Vec::new(),
        expect: None,
    };
    // The file gives no order: the default one is exactly this race (`Schedule::round_robin`).
    Some(Schedule::parse(file).expect("the matrix's schedules are valid"))
}

/// A counter column's schedule: the shape's built-in with every buyer running `defence` (none
/// where it does not fit the shape), in the race's default order.
fn counter_schedule(
    defence: Defence,
    column: &MatrixScenario,
    database: Database,
) -> Option<Schedule> {
    if !defence.fits(column.kind) {
        return None;
    }
    let builtin = crate::scenarios::get(&format!("shapes-{}", column.kind.id()))?;
    let mut file = builtin.file_with_defence(Some(defence));
    file.name = format!("{}: {}", column.title, defence.title());
    file.description = Some(defence.summary().to_string());
    file.engine = database;
    Some(Schedule::parse(file).expect("a fitting defence on a shape's built-in is valid"))
}

/// One way the orders of a cell ended for the buyers who got no seat: a stop, or nobody
/// stopped (a double booking), and in how many orders.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Way {
    /// `None`: nobody was stopped, the seat was sold twice.
    pub stop: Option<Stop>,
    pub words: String,
    /// The orders in which some buyer was stopped this way.
    pub orders: u64,
    /// One of them, as actor names: loaded into the lab when the reader picks the cell.
    pub example: Vec<String>,
}

/// One cell of the matrix: every feasible order of the cell's schedule, and how the buyers who
/// got no seat were stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatrixCell {
    pub defence: Defence,
    pub scenario: String,
    /// The database whose model ran the cell.
    #[serde(skip_serializing_if = "Database::is_postgresql")]
    pub database: Database,
    pub exploration: Exploration,
    /// The ways, the double booking first, then by orders (most first).
    pub ways: Vec<Way>,
    /// In sentences, with how many orders each way: "24 of 70 orders sell the seat twice. In
    /// the other 46, the second buyer saw the seat taken and did not write (46)."
    pub summary: String,
}

impl MatrixCell {
    /// The order to load when the reader picks the cell: a double booking if there is one,
    /// else an example of the commonest way.
    pub fn example(&self) -> &[String] {
        self.ways
            .first()
            .map(|w| w.example.as_slice())
            .unwrap_or_default()
    }
}

/// Explores one cell: every feasible order (at most `MATRIX_CELL_LIMIT`), in tens of
/// milliseconds at most. `None` for a defence or scenario that is not in the matrix.
pub fn matrix_cell(defence: Defence, scenario: &str) -> Option<MatrixCell> {
    matrix_cell_on(defence, scenario, Database::Postgresql)
}

/// `matrix_cell` on `database`: where the second request stops there.
pub fn matrix_cell_on(defence: Defence, scenario: &str, database: Database) -> Option<MatrixCell> {
    let schedule = matrix_schedule_on(defence, scenario, database)?;
    let exploration = explore(&schedule, MATRIX_CELL_LIMIT);
    let kind = schedule.scenario().kind;
    let username = UsernameWords::of(schedule.scenario());
    let ways = ways(
        &exploration,
        CounterWords::of(schedule.scenario()),
        username.as_ref(),
    );
    Some(MatrixCell {
        defence,
        scenario: scenario.to_string(),
        database,
        summary: summary(&exploration, &ways, kind, username.as_ref()),
        ways,
        exploration,
    })
}

/// The ways of a cell's orders: the double bookings first, then each stop by the orders it
/// ended (most first, then by words).
fn ways(
    e: &Exploration,
    counter: Option<CounterWords>,
    username: Option<&UsernameWords>,
) -> Vec<Way> {
    let mut ways: Vec<Way> = Vec::new();
    for g in &e.groups {
        let stops: Vec<Option<&Stop>> = if g.verdict.double_booked {
            vec![None]
        } else {
            g.stops.iter().map(Some).collect()
        };
        for stop in stops {
            match ways.iter_mut().find(|w| w.stop.as_ref() == stop) {
                Some(way) => way.orders += g.count,
                None => ways.push(Way {
                    stop: stop.cloned(),
                    words: match (stop, username) {
                        (None, Some(u)) => u.not_stopped(),
                        (Some(s), Some(u)) => s.words_of(u),
                        _ => stop.map_or_else(
                            || counter.map_or_else(|| NOT_STOPPED.to_string(), |c| c.not_stopped()),
                            |s| s.words_in(counter),
                        ),
                    },
                    orders: g.count,
                    example: g.example.clone(),
                }),
            }
        }
    }
    ways.sort_by(|a, b| {
        b.stop
            .is_none()
            .cmp(&a.stop.is_none())
            .then(b.orders.cmp(&a.orders))
            .then_with(|| a.words.cmp(&b.words))
    });
    ways
}

/// "1 order", "6 orders".
fn n_orders(n: u64) -> String {
    if n == 1 {
        "1 order".to_string()
    } else {
        format!("{n} orders")
    }
}

/// The cell's words, as sentences: how many orders sell the seat twice, and how the others
/// stopped the buyers who got no seat, with how many orders each (the most common first).
fn summary(e: &Exploration, ways: &[Way], kind: Shape, username: Option<&UsernameWords>) -> String {
    let named;
    // Seats, at compile time, in a build without the shapes.
    let kind = if crate::schedule::SHAPES {
        kind
    } else {
        Shape::Seats
    };
    let (sells, sell) = match kind {
        Shape::Username => {
            named = username.map(UsernameWords::sells).unwrap_or_default();
            (named.0.as_str(), named.1.as_str())
        }
        Shape::Seats => ("sells the seat twice", "sell the seat twice"),
        Shape::GeneralAdmission => (
            "sells more tickets than there were",
            "sell more tickets than there were",
        ),
        Shape::Balance => ("overdraws the account", "overdraw the account"),
        Shape::RateLimit => (
            "lets more calls through than the key had",
            "let more calls through than the key had",
        ),
        Shape::Coupon => ("uses the coupon twice", "use the coupon twice"),
    };
    let (one_who, many_who) = if kind.is_username() {
        ("sign-up that", "sign-ups that")
    } else {
        ("buyer who", "buyers who")
    };
    let stopped: Vec<String> = ways
        .iter()
        .filter(|w| w.stop.is_some())
        .map(|w| format!("{} ({})", w.words, n_orders(w.orders)))
        .collect();
    let how = match stopped.as_slice() {
        [] => String::new(),
        [one] => format!(" The {one_who} missed out {one}."),
        many => format!(
            " The {many_who} missed out were stopped in {} ways: {}.",
            many.len(),
            many.join("; ")
        ),
    };
    let of = if e.complete {
        String::new()
    } else {
        format!(" (the first {} orders only)", e.orders)
    };
    match e.double_booked() {
        0 => format!("None of the {}{of} {sells}.{how}", n_orders(e.orders)),
        d if d == e.orders => format!("All {}{of} {sell}.", n_orders(d)),
        d => format!(
            "{d} of {}{of} {sell}. In the other {}:{}",
            n_orders(e.orders),
            e.orders - d,
            how.replacen(" The ", " the ", 1)
        ),
    }
}
