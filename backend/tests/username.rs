//! The username built-in ("batman" checked free, then created twice) with every defence that
//! fits it, free and already taken, on both databases: every order of each runs in the model
//! and on the real server (PostgreSQL, and MariaDB for InnoDB's model), and they must agree.
//! The `_retry` defences, whose orders are thousands, run an even sample of theirs.

use futures::stream::{self, StreamExt};
use shared::defences::Defence;
use shared::schedule::{Database, Shape};
use shared::{explorer, Schedule};
use sqlx::postgres::PgPoolOptions;
use sqlx::PgPool;

async fn pool() -> PgPool {
    let url = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    PgPoolOptions::new()
        .max_connections(24)
        .connect(&url)
        .await
        .unwrap_or_else(|e| panic!("cannot reach PostgreSQL at {url} ({e}): set DATABASE_URL"))
}

/// The built-in with `defence`, on `database`, its name free or taken.
fn schedule(defence: Defence, database: Database, taken: bool) -> Schedule {
    let mut file = username_file(defence);
    file.scenario.seats[0].value = Some(i64::from(taken));
    Schedule::parse(file)
        .expect("a fitting defence parses")
        .on(database)
        .expect("the InnoDB model runs a username")
}

/// Every order of `schedule` (an even sample of `sample` past it), each run both ways: the
/// orders run and the differences found.
async fn every_order(pool: &PgPool, schedule: &Schedule, sample: usize) -> (usize, Vec<String>) {
    let (orders, _) = explorer::orders(schedule, 20_000);
    let step = orders.len().div_ceil(sample).max(1);
    let orders: Vec<_> = orders.into_iter().step_by(step).collect();
    let n = orders.len();
    let results: Vec<(Vec<usize>, Vec<String>)> = stream::iter(orders)
        .map(|order| {
            let schedule = schedule.with_order(order.clone());
            async move {
                let differences = match backend::replay::replay(pool, &schedule).await {
                    Ok(report) if report.agree => Vec::new(),
                    Ok(report) => report.differences,
                    Err(e) => vec![format!("not replayed: {e}")],
                };
                (order, differences)
            }
        })
        .buffer_unordered(4)
        .collect()
        .await;
    let failures = results
        .into_iter()
        .filter(|(_, d)| !d.is_empty())
        .map(|(order, d)| format!("{} {order:?}: {}", schedule.name(), d.join("; ")))
        .collect();
    (n, failures)
}

async fn every_defence_on(database: Database) {
    let pool = pool().await;
    let mut failures = Vec::new();
    let mut runs = 0;
    for defence in Defence::ALL.into_iter().filter(|d| d.fits(Shape::Username)) {
        let sample = if defence.retried().is_some() {
            60
        } else {
            20_000
        };
        for taken in [false, true] {
            let s = schedule(defence, database, taken);
            let (n, f) = every_order(&pool, &s, sample).await;
            runs += n;
            failures.extend(
                f.into_iter()
                    .map(|f| format!("{defence} (taken: {taken}): {f}")),
            );
        }
    }
    println!("{runs} orders of the username built-in on {database:?}");
    backend::executor::shutdown(&pool).await;
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_order_of_every_fitting_defence_agrees_on_postgresql() {
    every_defence_on(Database::Postgresql).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_order_of_every_fitting_defence_agrees_on_mariadb() {
    every_defence_on(Database::Innodb).await;
}

/// The username built-in (`shared/scenarios/shapes-username.json`, chapter 6) with every
/// buyer running `defence`, in the order of one entry of each buyer in turn.
fn username_file(defence: Defence) -> shared::schedule::ScheduleFile {
    shared::scenarios::get("shapes-username")
        .expect("the username built-in")
        .file_with_defence(Some(defence))
}
