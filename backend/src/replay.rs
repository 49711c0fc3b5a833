//! One schedule both ways: simulated by `shared`, executed on the real database it names
//! (`Schedule::database()`: PostgreSQL, or MariaDB for InnoDB), the two outcomes compared and
//! the schedule's `expect` checked. `POST /api/runs`, `backend replay` and `backend verify` all
//! come here.

use std::path::Path;

use serde::Serialize;
use shared::assess::{assess, check_expect, compare_in, race_note};
use shared::schedule::Database;
use shared::{Outcome, Schedule, ScheduleError, Trace};
use sqlx::mysql::MySqlPool;
use sqlx::PgPool;

use crate::executor::{self, ExecError};
use crate::innodb;

/// The verdict of one replay.
#[derive(Debug, Serialize)]
pub struct Report {
    /// The simulator and PostgreSQL agree on every entry, the final tables and the verdict.
    pub agree: bool,
    /// The schedule's `expect` (if any) holds.
    pub expect_ok: bool,
    pub simulated: Outcome,
    /// `None` when PostgreSQL could not run the schedule as written though the model could.
    pub real: Option<Outcome>,
    /// What differs between the two outcomes, in plain words.
    pub differences: Vec<String>,
    /// What of `expect` does not hold.
    pub expect_failures: Vec<String>,
    /// The database it ran on (the schedule's).
    #[serde(skip)]
    pub database: Database,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.agree && self.expect_ok
    }
}

/// Why a schedule could not be replayed.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The schedule cannot run as written (the model says so).
    #[error(transparent)]
    Invalid(#[from] ScheduleError),
    #[error(transparent)]
    Exec(ExecError),
    /// The schedule names InnoDB and no MariaDB is configured (MYSQL_URL is not a URL).
    #[error("MariaDB is not reachable: {0}")]
    NoMariaDb(String),
}

/// Simulates and executes `schedule`, and compares the outcomes. Never hangs: the real run
/// ends within `executor::RUN_TIMEOUT + executor::CLOSE_BOUND` (a run that takes longer is an
/// `ExecError::Timeout`).
pub async fn replay(pool: &PgPool, schedule: &Schedule) -> Result<Report, ReplayError> {
    replay_within(pool, schedule, executor::RUN_TIMEOUT).await
}

/// `replay`, the real run bounded by `limit` instead. A fault of the database during the run
/// (a restart, a killed session) is an error, never a report: it says nothing of the schedule.
/// A schedule on InnoDB runs on the process's MariaDB (`innodb::default_pool`).
pub async fn replay_within(
    pool: &PgPool,
    schedule: &Schedule,
    limit: std::time::Duration,
) -> Result<Report, ReplayError> {
    replay_in(pool, innodb::default_pool(), schedule, limit).await
}

/// The real run of `schedule` on the database it names: `pool`, or `mariadb` for InnoDB.
pub async fn execute_on(
    pool: &PgPool,
    mariadb: Option<&MySqlPool>,
    schedule: &Schedule,
    limit: std::time::Duration,
) -> Result<Trace, ReplayError> {
    match schedule.database() {
        Database::Postgresql => executor::execute_within(pool, schedule, limit)
            .await
            .map_err(ReplayError::Exec),
        Database::Innodb => match mariadb {
            Some(mariadb) => innodb::execute_within(mariadb, schedule, limit)
                .await
                .map_err(ReplayError::Exec),
            None => Err(ReplayError::NoMariaDb(format!(
                "MYSQL_URL={:?} is not a MySQL URL",
                std::env::var("MYSQL_URL").unwrap_or_default()
            ))),
        },
    }
}

/// `replay_within`, an InnoDB schedule run on `mariadb`.
pub async fn replay_in(
    pool: &PgPool,
    mariadb: Option<&MySqlPool>,
    schedule: &Schedule,
    limit: std::time::Duration,
) -> Result<Report, ReplayError> {
    let database = schedule.database();
    let server = database.product();
    let simulated = assess(schedule, shared::engine::simulate(schedule)?);
    let sim_failures = check_expect(schedule, &simulated);
    let real = match execute_on(pool, mariadb, schedule, limit).await {
        Ok(trace) => assess(schedule, trace),
        Err(ReplayError::Exec(ExecError::Schedule(e))) => {
            let why = format!("{server} could not run the schedule as the simulator did: {e}");
            return Ok(Report {
                differences: race_note(&simulated).into_iter().chain([why]).collect(),
                agree: false,
                expect_ok: false,
                simulated,
                real: None,
                expect_failures: sim_failures,
                database,
            });
        }
        Err(e) => return Err(e),
    };
    let mut differences = compare_in(schedule, &simulated, &real);
    if let (false, Some(note)) = (differences.is_empty(), race_note(&simulated)) {
        // Say first why they may differ: the model knew this order leaves it to chance.
        differences.insert(0, note);
    }
    let mut expect_failures = check_expect(schedule, &real);
    for failure in sim_failures {
        if !expect_failures.contains(&failure) {
            expect_failures.push(format!("simulated: {failure}"));
        }
    }
    Ok(Report {
        agree: differences.is_empty(),
        expect_ok: expect_failures.is_empty(),
        simulated,
        real: Some(real),
        differences,
        expect_failures,
        database,
    })
}

/// One line of `backend replay --json`.
#[derive(Debug, Serialize)]
pub struct FileLine<'a> {
    pub file: String,
    pub agree: bool,
    pub expect_ok: bool,
    pub simulated: Option<&'a Outcome>,
    pub real: Option<&'a Outcome>,
    pub differences: &'a [String],
    pub expect_failures: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<LineError>,
}

/// Why a file could not be replayed.
#[derive(Debug, Serialize)]
pub struct LineError {
    pub field: String,
    pub message: String,
    /// The file is at fault (unreadable or invalid), not the database.
    #[serde(skip)]
    pub invalid: bool,
}

impl LineError {
    fn invalid(field: impl Into<String>, message: impl Into<String>) -> LineError {
        LineError {
            field: field.into(),
            message: message.into(),
            invalid: true,
        }
    }
}

/// Replays the file at `path`; `Err` carries a reason fit to print (an unreadable or invalid
/// file, or a database failure).
pub async fn replay_file(pool: &PgPool, path: &Path) -> Result<Report, LineError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| LineError::invalid("file", format!("cannot read it: {e}")))?;
    let schedule =
        Schedule::parse_json(&text).map_err(|e| LineError::invalid(e.field, e.message))?;
    replay(pool, &schedule).await.map_err(|e| match e {
        ReplayError::Invalid(e) => LineError::invalid(e.field, e.message),
        ReplayError::Exec(e) => LineError {
            field: "database".to_string(),
            message: match schedule.database() {
                Database::Innodb if e.is_fault() => format!("MariaDB is not reachable: {e}"),
                _ => e.to_string(),
            },
            invalid: false,
        },
        e @ ReplayError::NoMariaDb(_) => LineError {
            field: "database".to_string(),
            message: e.to_string(),
            invalid: false,
        },
    })
}

/// The human-readable lines for one file.
pub fn describe(file: &str, result: &Result<Report, LineError>) -> String {
    match result {
        Err(e) if e.invalid => format!("INVALID {file}: {}: {}", e.field, e.message),
        Err(e) => format!("ERROR   {file}: {}", e.message),
        Ok(r) => {
            let mut out = format!(
                "{} {file}: {}; {}",
                if r.passed() { "ok     " } else { "FAILED " },
                if r.agree {
                    format!("the simulator and {} agree", r.database.product())
                } else {
                    format!("the simulator and {} DISAGREE", r.database.product())
                },
                if r.expect_ok {
                    "expect holds"
                } else {
                    "expect DOES NOT HOLD"
                },
            );
            for line in r.differences.iter().chain(&r.expect_failures) {
                out.push_str("\n    ");
                out.push_str(line);
            }
            out
        }
    }
}

/// The `--json` line for one file.
pub fn json_line(file: &str, result: &Result<Report, LineError>) -> String {
    let line = match result {
        Ok(r) => FileLine {
            file: file.to_string(),
            agree: r.agree,
            expect_ok: r.expect_ok,
            simulated: Some(&r.simulated),
            real: r.real.as_ref(),
            differences: &r.differences,
            expect_failures: &r.expect_failures,
            error: None,
        },
        Err(e) => FileLine {
            file: file.to_string(),
            agree: false,
            expect_ok: false,
            simulated: None,
            real: None,
            differences: &[],
            expect_failures: &[],
            error: Some(LineError {
                field: e.field.clone(),
                message: e.message.clone(),
                invalid: e.invalid,
            }),
        },
    };
    serde_json::to_string(&line).expect("a report serialises")
}
