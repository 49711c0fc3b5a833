//! The counter built-ins (`shared/scenarios/shapes-*.json`) under every defence that fits them
//! (`Defence::fits`), and two cases of three buyers where a row serves two of them (a balance
//! of 250 for withdrawals of 100, a general-admission section of 2), each with the orders a
//! differential test runs: every feasible one, or, past `EVERY_ORDER_UP_TO` (the `_retry`
//! variants, and three buyers in transactions), an even sample of `SAMPLE` over all of them
//! (`backend::verify::Plan`, as `backend verify --limit` draws it), the orders feasible on the
//! database they run on. `differential.rs` runs them on PostgreSQL, `innodb.rs` on MariaDB.

use backend::verify::Plan;
use shared::defences::Defence;
use shared::schedule::{Database, ProgramSpec, ScheduleFile};
use shared::{scenarios, Schedule};

/// A defence's every order is run when it has at most this many (every defence but the
/// `_retry` variants, whose thousands of orders are sampled).
const EVERY_ORDER_UP_TO: u64 = 400;

/// How many orders of a `_retry` variant are run (an even sample), how many orders of three
/// buyers are run in full, and how many are sampled past that: fewer on MariaDB, whose runs
/// take turns at reading its lock tables (about five a second on two busy cores).
fn samples(db: Database) -> (u64, u64, u64) {
    match db {
        Database::Postgresql => (60, 100, 16),
        Database::Innodb => (8, 10, 4),
    }
}

/// One schedule and the orders to run of it.
pub struct Case {
    /// "shapes-balance × lock_row", "three buyers, balance 250 × transaction".
    pub label: String,
    pub schedule: Schedule,
    pub plan: Plan,
}

impl Case {
    fn new(label: String, file: ScheduleFile, db: Database, every_up_to: u64, sample: u64) -> Case {
        // The orders feasible on `db`: InnoDB's locks make some of PostgreSQL's wait, and others.
        let schedule = Schedule::parse(file)
            .and_then(|s| s.on(db))
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let plan = match Plan::every_order(&schedule, every_up_to) {
            Some(plan) => plan,
            None => Plan::of(&schedule, sample),
        };
        assert!(!plan.orders.is_empty(), "{label}: no feasible order");
        Case {
            label,
            schedule,
            plan,
        }
    }

    /// "every order (70)", or "a sample of 60 of 12870".
    pub fn coverage(&self) -> String {
        let c = self.plan.coverage();
        if c.every_order {
            format!("every order ({})", c.orders)
        } else {
            format!("an even sample of {} of {}", c.orders, c.space)
        }
    }
}

/// The counter built-ins whose buyers are given by a defence (one of programs written out, such
/// as the abandoned checkout, runs as written in the test of every built-in).
fn counter_builtins() -> Vec<scenarios::BuiltIn> {
    let by_defence = |b: &scenarios::BuiltIn| {
        b.file
            .actors
            .values()
            .any(|p| matches!(p, ProgramSpec::Defence { .. }))
    };
    let builtins: Vec<_> = scenarios::all()
        .into_iter()
        .filter(|b| b.file.scenario.kind.is_counter() && by_defence(b))
        .collect();
    assert!(
        builtins.len() >= 4,
        "a built-in of each counter kind: {}",
        builtins.len()
    );
    builtins
}

/// `builtin`'s file with three buyers of `defence`, its row's value `value`.
fn three_buyers(builtin: &scenarios::BuiltIn, value: i64, defence: Defence) -> ScheduleFile {
    let mut file = builtin.file_with_defence(Some(defence));
    file.scenario.seats[0].value = Some(value);
    file.actors.insert(
        "ines".to_string(),
        ProgramSpec::Defence {
            defence: defence.id().to_string(),
            seats: None,
        },
    );
    file.name = format!("{}, three buyers, {value} left", file.name);
    file
}

/// Every counter built-in under every defence that fits it, then the two cases of three buyers
/// under every defence that fits them but the `_retry` variants.
pub fn cases(db: Database) -> Vec<Case> {
    let builtins = counter_builtins();
    let (sample, three_up_to, three_sample) = samples(db);
    let mut cases = Vec::new();
    for b in &builtins {
        for d in Defence::ALL
            .into_iter()
            .filter(|d| d.fits(b.file.scenario.kind))
        {
            let file = b.file_with_defence(Some(d));
            cases.push(Case::new(
                format!("{} × {d}", b.id),
                file,
                db,
                EVERY_ORDER_UP_TO,
                sample,
            ));
        }
    }
    for (id, value) in [("shapes-balance", 250), ("shapes-general_admission", 2)] {
        let b = builtins.iter().find(|b| b.id == id).expect("the built-in");
        // Not the `_retry` variants: three buyers of them have millions of orders to count.
        let fitting = Defence::ALL
            .into_iter()
            .filter(|d| d.fits(b.file.scenario.kind) && d.retried().is_none());
        for d in fitting {
            cases.push(Case::new(
                format!("three buyers, {id} of {value} × {d}"),
                three_buyers(b, value, d),
                db,
                three_up_to,
                three_sample,
            ));
        }
    }
    cases
}

/// The entries (counted from 1, as the differences count them) whose outcome the model says
/// the real server leaves to a race (`Trace::races`): sessions one commit woke together, or a
/// deadlock whose victim the order of their checks picks. A run may go the other way there.
pub fn races(schedule: &Schedule) -> Vec<usize> {
    shared::engine::simulate(schedule)
        .map(|t| t.races.iter().map(|k| k + 1).collect())
        .unwrap_or_default()
}

/// The orders of the cases that differed between the model and the real server: a failure, or,
/// where the model names a race (three buyers woken by one commit, as `verify` counts them),
/// a race the real server took the other way.
#[derive(Default)]
pub struct Differed {
    pub failures: Vec<String>,
    pub raced: Vec<String>,
}

impl Differed {
    /// Files `order` of `case`, which differed by `differences`.
    pub fn file(&mut self, case: &Case, order: Vec<usize>, differences: &[String]) {
        let schedule = case.schedule.with_order(order);
        let names: Vec<&str> = schedule
            .order()
            .iter()
            .map(|&a| schedule.actors()[a].name.as_str())
            .collect();
        let said = format!(
            "{} [{}]:\n    {}",
            case.label,
            names.join(" "),
            differences.join("\n    ")
        );
        match races(&schedule) {
            races if races.is_empty() => self.failures.push(said),
            races => self
                .raced
                .push(format!("{said}\n    (the model names races at {races:?})")),
        }
    }

    /// How many races were taken, then each on a line of its own.
    pub fn raced_words(&self) -> String {
        let each: String = self.raced.iter().map(|r| format!("\n  {r}")).collect();
        format!(
            "{} race(s) the model names the other way{each}",
            self.raced.len()
        )
    }
}
