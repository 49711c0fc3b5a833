//! The executor on MySQL/InnoDB: runs a schedule whose database is InnoDB
//! (`Schedule::database()`) on a real MariaDB 10.11 (or MySQL 8), one connection per actor, in
//! a database of its own made from `shared::sql::innodb::SCHEMA_DDL` and dropped after the run,
//! and reports what the server answered as the same `shared::Trace` as the PostgreSQL executor.
//!
//! Each entry is sent on its actor's connection without being awaited; then the run waits for
//! quiescence: every statement in flight has answered or is blocked on a lock, as
//! INFORMATION_SCHEMA.INNODB_TRX and INNODB_LOCK_WAITS (MariaDB; performance_schema's
//! data_lock_waits on MySQL 8) say, never a timer. InnoDB breaks a deadlock the moment its cycle
//! closes, so nothing here paces the statements (PostgreSQL's executor must: its detector runs
//! a second after a wait began). What is generic is the PostgreSQL executor's: the error type
//! and which errors are faults (`ExecError`, `db::Fault`), the reading of an answer as a step
//! (`executor::answer::read`), and the wait-for graph (`executor::waits`).
//!
//! A fault (the server down, a killed connection) is never an entry of the trace: it is an
//! `ExecError`, and the HTTP layer's 503 names MariaDB.

mod actor;
mod database;
mod flavor;
mod holders;
mod monitor;
mod run;

use std::time::Duration;

use shared::{Schedule, Trace};
use sqlx::mysql::{MySqlConnectOptions, MySqlPool, MySqlPoolOptions};
use sqlx::ConnectOptions;

pub use crate::executor::ExecError;
pub use database::sweep as sweep_stale_databases;

/// The hard bound on one run (as `executor::RUN_TIMEOUT`).
pub const RUN_TIMEOUT: Duration = crate::executor::RUN_TIMEOUT;

/// How long the clean-up of a run (its connections killed, its database dropped) may take
/// before `execute` answers without waiting for it.
const CLEANUP_BOUND: Duration = Duration::from_secs(5);

/// The server's address when MYSQL_URL is not set: the local server's socket if there is one
/// (Debian's, as root), else TCP on 127.0.0.1:3306.
pub fn default_url() -> String {
    let socket = "/run/mysqld/mysqld.sock";
    if std::path::Path::new(socket).exists() {
        format!("mysql://root@localhost/mysql?socket={socket}")
    } else {
        "mysql://root@127.0.0.1:3306/mysql".to_string()
    }
}

/// MYSQL_URL, or `default_url()`.
pub fn url() -> String {
    std::env::var("MYSQL_URL").unwrap_or_else(|_| default_url())
}

/// A pool on the server at `url`, connected lazily (the server may be down: a run then fails
/// as a fault). The runs' own connections are opened with the pool's options; the pool itself
/// only makes, drops and sweeps the runs' databases.
pub fn pool(url: &str) -> Result<MySqlPool, sqlx::Error> {
    let options: MySqlConnectOptions = url
        .parse::<MySqlConnectOptions>()?
        // A statement blocked on a lock is the point of a run, not a slow query worth a warning.
        .log_slow_statements(log::LevelFilter::Off, Duration::from_secs(60))
        .log_statements(log::LevelFilter::Trace);
    Ok(MySqlPoolOptions::new()
        .max_connections(4)
        .acquire_timeout(Duration::from_secs(5))
        // No maintenance task: the pool can be made outside a runtime (`default_pool`), and a
        // connection idle since another runtime ended is found dead when taken (sqlx pings it).
        .idle_timeout(None)
        .max_lifetime(None)
        .connect_lazy_with(options))
}

/// The process's pool on `url()` (made on first use; `None` if MYSQL_URL is not a URL). A
/// pool belongs to the runtime that made it: tests make their own with `pool`.
pub fn default_pool() -> Option<&'static MySqlPool> {
    static POOL: std::sync::OnceLock<Option<MySqlPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| match pool(&url()) {
        Ok(pool) => Some(pool),
        Err(e) => {
            tracing::warn!("MYSQL_URL is not a MySQL URL: {e}");
            None
        }
    })
    .as_ref()
}

/// Connects `pool` in the background, again and again until MariaDB answers, then says so and
/// sweeps the run databases left behind: `serve` starts without MariaDB, and a run on InnoDB
/// meanwhile answers 503 naming it.
pub fn connect_in_background(pool: MySqlPool) {
    tokio::spawn(async move {
        let mut pause = Duration::from_millis(200);
        let mut said = false;
        loop {
            match sqlx::query("select 1").execute(&pool).await {
                Ok(_) => {
                    tracing::info!("MariaDB answers: schedules on InnoDB run there");
                    match sweep_stale_databases(&pool).await {
                        Ok(0) | Err(_) => {}
                        Ok(n) => tracing::info!("dropped {n} stale run database(s) on MariaDB"),
                    }
                    return;
                }
                Err(e) if !said => {
                    tracing::warn!(
                        "MariaDB is not reachable ({e}): runs on InnoDB answer 503 until it is"
                    );
                    said = true;
                }
                Err(_) => {}
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(10));
        }
    });
}

/// Runs `schedule` on MariaDB within `RUN_TIMEOUT`.
pub async fn execute(pool: &MySqlPool, schedule: &Schedule) -> Result<Trace, ExecError> {
    execute_within(pool, schedule, RUN_TIMEOUT).await
}

/// Runs `schedule` on MariaDB within `limit`: a run that does not end in time is an
/// `ExecError::Timeout`. Whatever happens, the run's connections are killed and its database
/// dropped: before this returns when that takes less than `CLEANUP_BOUND`, in the background
/// otherwise (and a database left by a process that died is swept by the next one).
pub async fn execute_within(
    pool: &MySqlPool,
    schedule: &Schedule,
    limit: Duration,
) -> Result<Trace, ExecError> {
    database::sweep_once(pool);
    let deadline = tokio::time::Instant::now() + limit;
    // A server that accepts and never answers: the set-up is bounded too. A database it made
    // meanwhile, or one a clean-up could not drop, is swept soon after.
    let opened = tokio::time::timeout_at(deadline, database::Session::open(pool, schedule))
        .await
        .map_err(|_| ExecError::Timeout(limit))
        .and_then(|opened| opened);
    let mut session = match opened {
        Ok(session) => session,
        Err(e) => {
            database::sweep_soon(pool);
            return Err(e);
        }
    };
    let run = run::Driver::new(schedule, &mut session).run();
    let result = match tokio::time::timeout_at(deadline, run).await {
        Ok(result) => result,
        Err(_) => Err(ExecError::Timeout(limit)),
    };
    let cleanup = tokio::spawn(session.close(pool.clone()));
    if !matches!(
        tokio::time::timeout(CLEANUP_BOUND, cleanup).await,
        Ok(Ok(true))
    ) {
        database::sweep_soon(pool);
    }
    result
}
