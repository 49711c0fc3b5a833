//! A run's own database: named (`lastseat_run_…`, the only text the executor splices into
//! SQL), made from the migration text and seeded, its monitor and actors' connections opened in
//! it, and at the end every one of those connections killed and the database dropped. The
//! monitor holds a named lock (`GET_LOCK`) on the database's name from before it exists until
//! the run ends, so a sweep can tell a database whose run is gone (its lock free) and drop it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use shared::schedule::{Database, Schedule, SeatStatus};
use shared::sql::{self, innodb};
use sqlx::mysql::{MySqlConnectOptions, MySqlConnection, MySqlPool};
use sqlx::{Connection, Executor};
use tokio::sync::mpsc;

use super::actor::{Actor, Completion};
use super::flavor::Flavor;
use super::monitor::Monitor;
use crate::executor::ExecError;

/// Every run database's name starts so (and nothing else's may).
const PREFIX: &str = "lastseat_run_";

/// A fresh name: this process, a counter and a random part (processes on other machines may
/// share the server).
fn next_name() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "{PREFIX}{}_{}_{:08x}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed),
        rand::random::<u32>()
    )
}

/// A run's database and its connections.
pub(super) struct Session {
    pub name: String,
    pub monitor: Monitor,
    /// Per actor, in the order of `Schedule::actors()`.
    pub actors: Vec<Actor>,
    pub completions: mpsc::UnboundedReceiver<Completion>,
}

impl Session {
    /// Makes the run's database, seeds it with `schedule`'s scenario and opens the monitor's
    /// and the actors' connections in it.
    pub async fn open(pool: &MySqlPool, schedule: &Schedule) -> Result<Session, ExecError> {
        let options: MySqlConnectOptions = (*pool.connect_options()).clone();
        let name = next_name();
        let mut conn = MySqlConnection::connect_with(&options).await?;
        let (_, thread, version): (i64, i64, String) = sqlx::query_as(
            "select cast(get_lock(?, 0) as signed), cast(connection_id() as signed), version()",
        )
        .bind(&name)
        .fetch_one(&mut conn)
        .await?;
        let flavor = Flavor::of(&version);
        // From here on the database may exist: a failure still drops it (`close`).
        let mut session = Session {
            name: name.clone(),
            monitor: Monitor::new(conn, thread, flavor),
            actors: Vec::new(),
            completions: mpsc::unbounded_channel().1,
        };
        if let Err(e) = session.build(&options, schedule).await {
            let pool = pool.clone();
            tokio::spawn(async move { session.close(pool).await });
            return Err(e);
        }
        Ok(session)
    }

    async fn build(
        &mut self,
        options: &MySqlConnectOptions,
        schedule: &Schedule,
    ) -> Result<(), ExecError> {
        let name = &self.name;
        let conn = &mut self.monitor.conn;
        conn.execute(
            format!(
                "create database `{name}` character set utf8mb4 collate utf8mb4_bin; use `{name}`"
            )
            .as_str(),
        )
        .await?;
        for step in innodb::ddl_statements(innodb::SCHEMA_DDL) {
            conn.execute(sqlx::raw_sql(&step)).await?;
        }
        seed(conn, schedule).await?;
        self.monitor.start().await?;
        let (tx, rx) = mpsc::unbounded_channel();
        self.completions = rx;
        let options = options.clone().database(name);
        for a in 0..schedule.actors().len() {
            let mut conn = MySqlConnection::connect_with(&options).await?;
            for setting in innodb::SESSION_SETTINGS {
                conn.execute(setting).await?;
            }
            let thread: i64 = sqlx::query_scalar("select cast(connection_id() as signed)")
                .fetch_one(&mut conn)
                .await?;
            self.actors.push(Actor::spawn(a, conn, thread, tx.clone()));
        }
        Ok(())
    }

    /// Kills the run's connections (whatever they wait for) and drops its database, on a
    /// connection of `pool`'s; whether it is gone. Errors are logged: a database left behind
    /// is swept later.
    pub async fn close(self, pool: MySqlPool) -> bool {
        let threads: Vec<i64> = self
            .actors
            .iter()
            .map(|a| a.thread)
            .chain([self.monitor.thread])
            .collect();
        drop(self.actors);
        drop(self.monitor);
        match drop_database(&pool, &self.name, &threads).await {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(database = %self.name, "a run's database was not dropped: {e}");
                false
            }
        }
    }
}

async fn drop_database(pool: &MySqlPool, name: &str, threads: &[i64]) -> Result<(), sqlx::Error> {
    let mut conn = pool.acquire().await?;
    for thread in threads {
        // Gone already (closed, or killed from outside): nothing to do.
        let _ = conn
            .execute(format!("kill connection {thread}").as_str())
            .await;
    }
    conn.execute("set session lock_wait_timeout = 10").await?;
    conn.execute(format!("drop database if exists `{name}`").as_str())
        .await?;
    Ok(())
}

/// The scenario's seats, the tickets of the seats that start BOOKED, and the clock, as
/// `innodb::INSERT_SEAT`, `INSERT_BOOKING` and `SET_CLOCK` write them (what an export prints).
async fn seed(conn: &mut MySqlConnection, schedule: &Schedule) -> Result<(), sqlx::Error> {
    let scenario = schedule.scenario();
    if let Some(table) = sql::counter::table(scenario.kind) {
        let insert = table.insert(Database::Innodb);
        for row in &scenario.seats {
            sqlx::query(&insert)
                .bind(&row.id)
                .bind(row.value.unwrap_or(0))
                .execute(&mut *conn)
                .await?;
        }
    }
    if scenario.kind.is_username() {
        let [account, claim] = shared::sql::username::SEED_INNODB;
        for row in scenario.seats.iter().filter(|r| r.value == Some(1)) {
            sqlx::query(account)
                .bind(&row.id)
                .bind(&row.id)
                .execute(&mut *conn)
                .await?;
            sqlx::query(claim)
                .bind(&row.id)
                .bind(&row.id)
                .bind(sql::initial_hold(&row.id))
                .execute(&mut *conn)
                .await?;
        }
    }
    for seat in scenario.seats.iter().filter(|s| s.value.is_none()) {
        let hold_id = match seat.status {
            SeatStatus::Available => None,
            SeatStatus::Held | SeatStatus::Booked => seat.holder.as_deref().map(sql::initial_hold),
        };
        sqlx::query(innodb::INSERT_SEAT)
            .bind(scenario.show)
            .bind(&seat.id)
            .bind(seat.status.as_sql())
            .bind(&seat.holder)
            .bind(&hold_id)
            .bind(seat.until)
            .execute(&mut *conn)
            .await?;
        if let (SeatStatus::Booked, Some(holder), Some(booking_id)) =
            (seat.status, &seat.holder, &hold_id)
        {
            sqlx::query(innodb::INSERT_BOOKING)
                .bind(booking_id)
                .bind(scenario.show)
                .bind(&seat.id)
                .bind(holder)
                .execute(&mut *conn)
                .await?;
        }
    }
    sqlx::query(innodb::SET_CLOCK)
        .bind(scenario.clock)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Drops the run databases whose run is gone (their name's lock is free): left by a process
/// that was killed, or by a clean-up the server's going away cut short. How many.
pub async fn sweep(pool: &MySqlPool) -> Result<usize, sqlx::Error> {
    let names: Vec<String> = sqlx::query_scalar(
        "select cast(schema_name as char) from information_schema.schemata \
         where schema_name like 'lastseat\\_run\\_%'",
    )
    .fetch_all(pool)
    .await?;
    let mut dropped = 0;
    for name in names.iter().filter(|n| n.starts_with(PREFIX)) {
        let free: Option<i64> = sqlx::query_scalar("select cast(is_free_lock(?) as signed)")
            .bind(name)
            .fetch_one(pool)
            .await?;
        if free == Some(1) {
            sqlx::query(&format!("drop database if exists `{name}`"))
                .execute(pool)
                .await?;
            dropped += 1;
        }
    }
    Ok(dropped)
}

/// Sweeps in the background a moment from now (after a run that may have left its database:
/// the server away, a clean-up cut short), at most one sweep at a time.
pub(super) fn sweep_soon(pool: &MySqlPool) {
    static SWEEPING: AtomicBool = AtomicBool::new(false);
    if SWEEPING.swap(true, Ordering::Relaxed) {
        return;
    }
    let pool = pool.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        if let Err(e) = sweep(&pool).await {
            tracing::debug!("the sweep of stale run databases failed: {e}");
        }
        SWEEPING.store(false, Ordering::Relaxed);
    });
}

/// Sweeps once per process, in the background, at the first run.
pub(super) fn sweep_once(pool: &MySqlPool) {
    static SWEPT: AtomicBool = AtomicBool::new(false);
    if !SWEPT.swap(true, Ordering::Relaxed) {
        let pool = pool.clone();
        tokio::spawn(async move {
            match sweep(&pool).await {
                Ok(0) => {}
                Ok(n) => tracing::info!("dropped {n} stale run database(s) on MariaDB"),
                Err(e) => tracing::debug!("the sweep of stale run databases failed: {e}"),
            }
        });
    }
}
