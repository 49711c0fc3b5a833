//! The differential suite on MariaDB: the InnoDB model against a real MariaDB 10.11.
//!
//! Every built-in scenario's every feasible order, and every exported schedule under
//! `schedules/`, set to `"engine": "innodb"` (`Schedule::on(Database::Innodb)`), is run in the
//! model and on MariaDB (one connection per buyer, a database per run), and the two outcomes
//! must be identical entry by entry (`shared::assess::compare`). The fixtures' `expect` is
//! PostgreSQL's and is not checked here: only the agreement is. MariaDB is `MYSQL_URL`
//! (scripts/test finds or starts one), else the local server.

use std::path::Path;
use std::time::Instant;

use futures::stream::{self, StreamExt};
use shared::assess::{assess, compare};
use shared::schedule::Database;
use shared::{explorer, scenarios, Schedule};
use sqlx::mysql::MySqlPool;

fn pool() -> MySqlPool {
    let url = backend::innodb::url();
    backend::innodb::pool(&url).unwrap_or_else(|e| panic!("MYSQL_URL={url}: {e}"))
}

/// Runs `schedule` in the model and on MariaDB; the differences (empty: they agree).
async fn run_both(pool: &MySqlPool, schedule: &Schedule) -> Vec<String> {
    let simulated = match shared::engine::simulate(schedule) {
        Ok(trace) => assess(schedule, trace),
        Err(e) => return vec![format!("the model refused it: {e}")],
    };
    let real = match backend::innodb::execute(pool, schedule).await {
        Ok(trace) => assess(schedule, trace),
        Err(e) => return vec![format!("the executor failed: {e}")],
    };
    compare(&simulated, &real)
}

fn on_innodb(schedule: &Schedule, what: &str) -> Schedule {
    schedule
        .on(Database::Innodb)
        .unwrap_or_else(|e| panic!("{what} on InnoDB: {e}"))
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
    for builtin in scenarios::all() {
        let schedule = on_innodb(&builtin.schedule(), builtin.id);
        let (orders, complete) = explorer::orders(&schedule, 20_000);
        assert!(complete, "{}: more than 20000 orders", builtin.id);
        runs += orders.len();
        let results: Vec<(Vec<usize>, Vec<String>)> = stream::iter(orders)
            .map(|order| {
                let pool = pool.clone();
                let schedule = schedule.with_order(order.clone());
                async move {
                    let differences = run_both(&pool, &schedule).await;
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
        scenarios::all().len(),
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} of {runs} orders disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_exported_schedule_runs_alike_in_the_innodb_model_and_on_mariadb() {
    let pool = pool();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schedules");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    assert!(!files.is_empty(), "schedules/ holds fixtures");
    files.sort();
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable");
        let schedule = Schedule::parse_json(&text)
            .unwrap_or_else(|e| panic!("{}: invalid: {e}", file.display()));
        let schedule = on_innodb(&schedule, &file.display().to_string());
        let differences = run_both(&pool, &schedule).await;
        if !differences.is_empty() {
            failures.push(format!(
                "{}:\n    {}",
                file.display(),
                differences.join("\n    ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures disagree:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
