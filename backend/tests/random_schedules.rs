//! Random schedules against the real databases, drawn from a fixed seed, each in a random
//! feasible order, run in the model and on the real server: PostgreSQL, and MariaDB for the
//! same schedules set to `"engine": "innodb"` (`Schedule::on(Database::Innodb)`, run in the
//! InnoDB model). Three kinds: mixed programs of two to eight buyers (and sometimes the clock)
//! over two to five seats, some retrying their attempt under `"if": "failed"` or paying only
//! `"if": "held"` (`mixed.rs`); deep queues (`queues.rs`), three to eight buyers of mixed
//! isolation levels queueing for one seat; counters (`counters.rs`), every counter kind with
//! rows that serve 0, 1 or 2 requests, raced for by reads, locks, writes and claims; and
//! usernames (`usernames.rs`), two to five buyers checking a name, free or taken, and creating
//! it (an account, the name in the keyed table, or the name if it is not there yet). An operation
//! the model of the database refuses (InnoDB's may refuse `confirm`) is never drawn for it. The
//! outcomes must be identical, except in an order the model marks as a race between sessions the
//! server woke together (`Trace::races`): there the real server may go either way, and a real
//! run that does says the race first. Those are run too and counted.
//!
//! `RANDOM_SCHEDULES` (default 150 of each kind on PostgreSQL, 100 on MariaDB) and
//! `RANDOM_SCHEDULES_SEED` run more, or others; `RANDOM_SCHEDULES_SKIP=K` leaves out the first
//! K of them, so that a long campaign can run in parts (2,500 then 2,500 more: `RANDOM_SCHEDULES=
//! 5000 RANDOM_SCHEDULES_SKIP=2500`); `RANDOM_SCHEDULES_WRITE=DIR` writes every file it runs
//! into DIR, to replay one of them alone. The database is the test's: `cargo test --test
//! random_schedules innodb` runs the MariaDB ones only, `postgres` the PostgreSQL ones
//! (`DATABASE_URL`, `MYSQL_URL` say where).

#[path = "random_schedules/cases.rs"]
mod cases;
#[path = "random_schedules/counters.rs"]
mod counters;
#[path = "random_schedules/judge.rs"]
mod judge;
#[path = "random_schedules/mixed.rs"]
mod mixed;
#[path = "random_schedules/queues.rs"]
mod queues;
#[path = "random_schedules/usernames.rs"]
mod usernames;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use futures::stream::{self, StreamExt};
use shared::schedule::Database;
use sqlx::postgres::PgPoolOptions;
use tokio::sync::Semaphore;

use cases::{cases, write_files, Case};
use judge::{judge, Target, Verdict};
pub use mixed::{conditioned, Rng};

/// The kinds of random schedule: each its generator and whether its orders queue first.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Mixed,
    Queues,
    Counters,
    Usernames,
}

/// How many random schedules of each kind, from which seed (`RANDOM_SCHEDULES`,
/// `RANDOM_SCHEDULES_SEED`), and how many of the first to leave out (`RANDOM_SCHEDULES_SKIP`).
fn skipped() -> usize {
    std::env::var("RANDOM_SCHEDULES_SKIP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// The count by default: fewer on MariaDB, whose runs read its lock tables in turn (at most
/// one reading every 0.1 s on the whole server).
fn count_and_seed(db: Database) -> (usize, u64) {
    let count = std::env::var("RANDOM_SCHEDULES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(match db {
            Database::Postgresql => 150,
            Database::Innodb => 100,
        });
    let seed = std::env::var("RANDOM_SCHEDULES_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5EA7_5EA7);
    (count, seed)
}

/// The server `db`'s cases run on, how many connections a case may take there in all, and
/// how many cases run at once.
async fn target(db: Database) -> (Target, u32, usize) {
    match db {
        Database::Postgresql => {
            let url = std::env::var("DATABASE_URL")
                .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
            const CONNECTIONS: u32 = 20;
            let pool = PgPoolOptions::new()
                .max_connections(CONNECTIONS)
                .connect(&url)
                .await
                .unwrap_or_else(|e| {
                    panic!("cannot reach PostgreSQL at {url} ({e}): set DATABASE_URL")
                });
            (Target::Postgres(pool), CONNECTIONS, 6)
        }
        Database::Innodb => {
            let url = backend::innodb::url();
            let pool =
                backend::innodb::pool(&url).unwrap_or_else(|e| panic!("MYSQL_URL={url}: {e}"));
            sqlx::query("select 1")
                .execute(&pool)
                .await
                .unwrap_or_else(|e| panic!("cannot reach MariaDB at {url} ({e}): set MYSQL_URL"));
            // Each run opens its own connections (one per buyer and a monitor); few at once,
            // as they take turns at InnoDB's lock tables.
            (Target::Mariadb(pool), 40, 6)
        }
    }
}

/// How many more times a case the machine was too busy for is run, alone.
const ALONE_TRIES: usize = 3;

/// Runs every case in the model and on `db`'s server, several at once (as many as the
/// connections allow: a run takes one per buyer and one to watch), and holds them to agree.
/// A case the executor could not run for a reason of the machine (PostgreSQL too busy for its
/// deadlock at the model's pace on every try; MariaDB's run timed out or its lock tables stayed
/// stale) is run again alone afterwards, when the others no longer load the machine; one that
/// still cannot run then fails the test as a disagreement does. A disagreement is printed as
/// soon as it is found, and the progress every 100 cases, so that a long campaign can be
/// followed.
async fn run_all(kind: Kind, db: Database) {
    let started = Instant::now();
    let (count, seed) = count_and_seed(db);
    let (target, connections, at_once) = target(db).await;
    let connections = Arc::new(Semaphore::new(connections as usize));
    let cases: Vec<Case> = cases(kind, db, count, seed)
        .into_iter()
        .skip(skipped())
        .collect();
    write_files(seed, db, &cases);
    let done = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let total = cases.len();
    let mut results: Vec<(usize, (Verdict, Vec<String>))> = stream::iter(cases.iter().enumerate())
        .map(|(i, case)| {
            let (target, connections, done) = (target.clone(), connections.clone(), done.clone());
            async move {
                let needed = case.schedule.actors().len() as u32 + 1;
                let _connections = connections.acquire_many(needed).await.expect("open");
                let result = judge(&target, case).await;
                if let Verdict::Disagreed(f) = &result.0 {
                    eprintln!("DISAGREED ({kind:?} on {db:?}, seed {seed}):\n{f}\n");
                }
                let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                if n % 100 == 0 {
                    eprintln!("{kind:?} on {db:?}: {n} of {total} run");
                }
                (i, result)
            }
        })
        .buffer_unordered(at_once)
        .collect()
        .await;
    results.sort_by_key(|(i, _)| *i);
    let mut results: Vec<(Verdict, Vec<String>)> = results.into_iter().map(|(_, r)| r).collect();
    let mut alone = 0;
    for (case, result) in cases.iter().zip(results.iter_mut()) {
        for _ in 0..ALONE_TRIES {
            if !matches!(result.0, Verdict::TooBusy(_)) {
                break;
            }
            alone += 1;
            *result = judge(&target, case).await;
        }
    }
    let (ran, skip) = (results.len(), skipped());
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    for seen in results.iter().flat_map(|(_, seen)| seen) {
        *tally.entry(seen.clone()).or_default() += 1;
    }
    let failures: Vec<&String> = results
        .iter()
        .filter_map(|(v, _)| match v {
            Verdict::Disagreed(f) | Verdict::TooBusy(f) => Some(f),
            _ => None,
        })
        .collect();
    let races_taken = results
        .iter()
        .filter(|(v, _)| matches!(v, Verdict::RaceTaken))
        .count();
    let server = db.product();
    // What the schedules went through, so that a change of the generator that stops reaching
    // waits, deadlocks or errors shows.
    eprintln!(
        "random schedules ({kind:?} on {server}): {ran} (seed {seed}, {skip} to {count}) in {:.0?}: {} \
         disagreed where the model named no race or could not be run, {races_taken} took a race the \
         model named, {alone} runs alone after the machine was too busy; {tally:?}",
        started.elapsed(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {ran} random schedules ({kind:?}, seed {seed}, {skip} to {count}) ran differently on {server} \
         where the model named no race, or the machine stayed too busy to run alone:\n{}",
        failures.len(),
        failures
            .iter()
            .map(|f| f.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    if skip > 0 || count < 50 {
        // Too few to hold the generator to its reach.
        return;
    }
    for wanted in wanted(kind, db) {
        assert!(
            tally.contains_key(*wanted),
            "no random schedule ({kind:?} on {server}) reached {wanted}: the generator no longer covers it"
        );
    }
}

/// What the runs of a kind on a database must go through between them: waits, each error its
/// programs can meet, the conditions taken and skipped.
fn wanted(kind: Kind, db: Database) -> &'static [&'static str] {
    match (kind, db) {
        (Kind::Mixed, Database::Postgresql) => &[
            "a wait",
            "23505",
            "40001",
            "55P03",
            "25P02",
            "a retry ran",
            "ran while held",
            "a condition skipped it",
        ],
        (Kind::Queues, Database::Postgresql) => {
            &["a wait", "a queue of 3", "40001", "40P01", "a retry ran"]
        }
        (Kind::Mixed, Database::Innodb) => &[
            "a wait",
            "1062",
            "1205",
            "1213",
            "a retry ran",
            "ran while held",
            "a condition skipped it",
        ],
        (Kind::Queues, Database::Innodb) => &["a wait", "a queue of 3", "1213", "a retry ran"],
        (Kind::Counters, Database::Postgresql) => &[
            "a wait",
            "a queue of 3",
            "40001",
            "40P01",
            "55P03",
            "25P02",
            "a retry ran",
            "ran while held",
            "double booked",
        ],
        (Kind::Counters, Database::Innodb) => &[
            "a wait",
            "a queue of 3",
            "1205",
            "1213",
            "a retry ran",
            "ran while held",
            "double booked",
        ],
        (Kind::Usernames, Database::Postgresql) => &[
            "a wait",
            "23505",
            "40001",
            "25P02",
            "ran while held",
            "a condition skipped it",
            "double booked",
        ],
        (Kind::Usernames, Database::Innodb) => &[
            "a wait",
            "a queue of 3",
            "1062",
            "1213",
            "ran while held",
            "a condition skipped it",
            "double booked",
        ],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_schedules_run_identically_in_the_model_and_on_postgres() {
    run_all(Kind::Mixed, Database::Postgresql).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_queues_of_mixed_isolation_run_identically_in_the_model_and_on_postgres() {
    run_all(Kind::Queues, Database::Postgresql).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counter_schedules_run_identically_in_the_model_and_on_postgres() {
    run_all(Kind::Counters, Database::Postgresql).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counter_schedules_run_identically_in_the_innodb_model_and_on_mariadb() {
    run_all(Kind::Counters, Database::Innodb).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn username_schedules_run_identically_in_the_model_and_on_postgres() {
    run_all(Kind::Usernames, Database::Postgresql).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn username_schedules_run_identically_in_the_innodb_model_and_on_mariadb() {
    run_all(Kind::Usernames, Database::Innodb).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_schedules_run_identically_in_the_innodb_model_and_on_mariadb() {
    run_all(Kind::Mixed, Database::Innodb).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_queues_of_mixed_isolation_run_identically_in_the_innodb_model_and_on_mariadb() {
    run_all(Kind::Queues, Database::Innodb).await;
}
