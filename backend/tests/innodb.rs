//! The differential suite on MariaDB: the InnoDB model against a real MariaDB 10.11.
//!
//! Every built-in scenario's every feasible order, and every exported schedule under
//! `schedules/`, set to `"engine": "innodb"` (`Schedule::on(Database::Innodb)`), is run in the
//! model and on MariaDB (one connection per buyer, a database per run), and the two outcomes
//! must be identical entry by entry (`shared::assess::compare`); the counter built-ins the same
//! under every defence that fits them, and three buyers on a row that serves two
//! (`common/counters.rs`). The fixtures' `expect` is
//! PostgreSQL's and is not checked here: only the agreement is. Then every case of the model
//! under `shared/tests/model/` that names InnoDB, with its `expect` (where the model names a
//! race, MariaDB may take it the other way: that is printed, not failed). A schedule that the
//! InnoDB model refuses to run (an operation it does not model yet) is listed, not run; at
//! least one of each kind must run. MariaDB is `MYSQL_URL` (scripts/test finds or starts one),
//! else the local server.

#[path = "common/counters.rs"]
mod counters;

use std::path::Path;
use std::time::Instant;

use futures::stream::{self, StreamExt};
use shared::assess::{assess, check_expect, compare_in};
use shared::schedule::Database;
use shared::{explorer, scenarios, Schedule};
use sqlx::mysql::MySqlPool;

fn pool() -> MySqlPool {
    let url = backend::innodb::url();
    backend::innodb::pool(&url).unwrap_or_else(|e| panic!("MYSQL_URL={url}: {e}"))
}

/// Runs `schedule` in the model and on MariaDB; the differences (empty: they agree), and
/// what of its `expect` the real run does not meet.
async fn run_both(pool: &MySqlPool, schedule: &Schedule) -> (Vec<String>, Vec<String>) {
    let simulated = match shared::engine::simulate(schedule) {
        Ok(trace) => assess(schedule, trace),
        // The order cannot run on InnoDB (a statement still waits when its actor's next entry
        // comes): MariaDB must find the same.
        Err(e) => {
            return match backend::innodb::execute(pool, schedule).await {
                Err(backend::innodb::ExecError::Schedule(_)) => {
                    println!(
                        "{}: neither runs this order on InnoDB: {e}",
                        schedule.name()
                    );
                    (Vec::new(), Vec::new())
                }
                Ok(_) => (
                    vec![format!("the model refused it, MariaDB ran it: {e}")],
                    Vec::new(),
                ),
                Err(x) => (
                    vec![format!(
                        "the model refused it ({e}), the executor failed: {x}"
                    )],
                    Vec::new(),
                ),
            };
        }
    };
    let real = match backend::innodb::execute(pool, schedule).await {
        Ok(trace) => assess(schedule, trace),
        Err(backend::innodb::ExecError::Schedule(e)) => {
            return (
                vec![format!("the model ran it, MariaDB could not: {e}")],
                Vec::new(),
            )
        }
        Err(e) => return (vec![format!("the executor failed: {e}")], Vec::new()),
    };
    (
        compare_in(schedule, &simulated, &real),
        check_expect(schedule, &real),
    )
}

/// `schedule` on InnoDB, or why the InnoDB model refuses it (said, and counted).
fn on_innodb(schedule: &Schedule, what: &str, refused: &mut Vec<String>) -> Option<Schedule> {
    match schedule.on(Database::Innodb) {
        Ok(s) => Some(s),
        Err(e) => {
            refused.push(format!("{what}: {e}"));
            None
        }
    }
}

fn say_refused(refused: &[String]) {
    if !refused.is_empty() {
        println!(
            "not run, the InnoDB model refuses them:\n  {}",
            refused.join("\n  ")
        );
    }
}

fn names(schedule: &Schedule, order: &[usize]) -> String {
    order
        .iter()
        .map(|&a| schedule.actors()[a].name.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_innodb_model_and_mariadb_agree_on_every_order_of_every_builtin_scenario() {
    let pool = pool();
    let started = Instant::now();
    let mut runs = 0usize;
    let mut failures = Vec::new();
    let mut refused = Vec::new();
    for builtin in scenarios::all() {
        let Some(schedule) = on_innodb(&builtin.schedule(), builtin.id, &mut refused) else {
            continue;
        };
        let (orders, complete) = explorer::orders(&schedule, 20_000);
        assert!(complete, "{}: more than 20000 orders", builtin.id);
        runs += orders.len();
        let results: Vec<(Vec<usize>, Vec<String>)> = stream::iter(orders)
            .map(|order| {
                let pool = pool.clone();
                let schedule = schedule.with_order(order.clone());
                async move {
                    let (differences, _) = run_both(&pool, &schedule).await;
                    (order, differences)
                }
            })
            .buffer_unordered(4)
            .collect()
            .await;
        for (order, differences) in results {
            if !differences.is_empty() {
                failures.push(format!(
                    "{} [{}]:\n    {}",
                    builtin.id,
                    names(&schedule, &order),
                    differences.join("\n    ")
                ));
            }
        }
    }
    println!(
        "innodb differential: {runs} orders of {} scenarios in {:.1?}",
        scenarios::all().len() - refused.len(),
        started.elapsed()
    );
    say_refused(&refused);
    assert!(runs > 0, "no built-in runs on InnoDB: {refused:#?}");
    assert!(
        failures.is_empty(),
        "{} of {runs} orders disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_innodb_model_and_mariadb_agree_on_every_order_of_every_defence_on_every_counter() {
    let pool = pool();
    let started = Instant::now();
    let (mut runs, mut differed) = (0usize, counters::Differed::default());
    for case in counters::cases(Database::Innodb) {
        let schedule = &case.schedule;
        runs += case.plan.orders.len();
        println!("{}: {}", case.label, case.coverage());
        let results: Vec<(Vec<usize>, Vec<String>)> = stream::iter(case.plan.orders.clone())
            .map(|order| {
                let pool = pool.clone();
                let schedule = schedule.with_order(order.clone());
                async move {
                    let (differences, _) = run_both(&pool, &schedule).await;
                    (order, differences)
                }
            })
            .buffer_unordered(6)
            .collect()
            .await;
        for (order, differences) in results {
            if !differences.is_empty() {
                differed.file(&case, order, &differences);
            }
        }
    }
    println!(
        "counters on MariaDB: {runs} orders in {:.1?}; MariaDB took {}",
        started.elapsed(),
        differed.raced_words()
    );
    let failures = differed.failures;
    assert!(
        failures.is_empty(),
        "{} of {runs} orders disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The JSON files of `dir` (relative to the backend crate), sorted.
fn fixtures(dir: &str) -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    assert!(!files.is_empty(), "{} holds fixtures", dir.display());
    files.sort();
    files
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_exported_schedule_runs_alike_in_the_innodb_model_and_on_mariadb() {
    let pool = pool();
    let files = fixtures("../schedules");
    let (mut failures, mut refused, mut ran) = (Vec::new(), Vec::new(), 0);
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable");
        let schedule = Schedule::parse_json(&text)
            .unwrap_or_else(|e| panic!("{}: invalid: {e}", file.display()));
        let what = file.display().to_string();
        let Some(schedule) = on_innodb(&schedule, &what, &mut refused) else {
            continue;
        };
        ran += 1;
        // The file's `expect` is PostgreSQL's: only the agreement counts here.
        let (differences, _) = run_both(&pool, &schedule).await;
        if !differences.is_empty() {
            failures.push(format!("{what}:\n    {}", differences.join("\n    ")));
        }
    }
    say_refused(&refused);
    assert!(ran > 0, "no fixture runs on InnoDB: {refused:#?}");
    assert!(
        failures.is_empty(),
        "{} of {ran} fixtures disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_innodb_case_of_the_model_runs_alike_on_mariadb_and_meets_its_expect() {
    let pool = pool();
    let mut failures = Vec::new();
    let mut ran = 0;
    for file in fixtures("../shared/tests/model") {
        let text = std::fs::read_to_string(&file).expect("readable");
        let schedule = Schedule::parse_json(&text)
            .unwrap_or_else(|e| panic!("{}: invalid: {e}", file.display()));
        if schedule.database() != Database::Innodb {
            continue;
        }
        ran += 1;
        // The entries the model names races, counted from 1 as the differences count them.
        let races = counters::races(&schedule);
        let (differences, unmet) = run_both(&pool, &schedule).await;
        if !races.is_empty() && !differences.is_empty() {
            // MariaDB may take the race the other way: said, not failed.
            println!(
                "{}: MariaDB took the race the model names at entries {races:?}: {}",
                file.display(),
                differences.join("; ")
            );
            continue;
        }
        for line in differences.iter().chain(&unmet) {
            failures.push(format!("{}: {line}", file.display()));
        }
    }
    println!("{ran} InnoDB cases of the model replayed on MariaDB");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
