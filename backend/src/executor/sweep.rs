//! The sweep of run schemas that no live run owns any more: those of a process that was killed,
//! of a run whose connections a restart broke before it could drop its schema, or of a clean-up
//! that a stopped backend held past its bounds.
//!
//! A sweep is due at a database's first run, after any run that failed by a fault, after a
//! clean-up that could not drop its schema (until that schema is gone), and whenever `serve`'s
//! timer says so. It runs in the background, one at a time per database; one that fails (the
//! database is still away) or finds a stale schema still locked by a backend is tried again,
//! less and less often, until one succeeds or `GIVE_UP_AFTER` attempts have failed (the next
//! run asks again then).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use sqlx::postgres::PgConnectOptions;
use sqlx::PgPool;

use super::naming::{is_locked_schema_name, LOCKED};
use super::{monitor, SCHEMA_LOCK_CLASS as LOCK_CLASS};

/// How long one sweep may take.
const SWEEP_LIMIT: Duration = Duration::from_secs(20);
/// The pause after a sweep that did not finish the job, at first and at most.
const RETRY_FIRST: Duration = Duration::from_millis(500);
const RETRY_MOST: Duration = Duration::from_secs(10);
/// How many sweeps in a row may fail before the background task stops trying.
const GIVE_UP_AFTER: u32 = 100;

/// What one sweep did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Swept {
    /// Stale schemas dropped.
    pub dropped: usize,
    /// Stale schemas that could not be dropped yet (a backend still holds a lock in them).
    pub busy: usize,
    /// The run schemas still there: those of live runs, and the busy ones.
    pub left: Vec<String>,
}

/// Drops the run schemas that no run owns any more.
///
/// A run's monitor holds an advisory lock on its schema's name from before the schema exists
/// until it is dropped, and a lock dies with its session: a schema whose lock can be taken
/// belongs to no live run, whichever process or machine made it, so this is safe beside other
/// processes running runs on the same database. Schemas named without the lock (by older
/// builds) are left alone: nothing tells whether their run is still alive.
pub(crate) async fn sweep(pool: &PgPool) -> Result<Swept, sqlx::Error> {
    let mut conn = pool.acquire().await?;
    // Closed afterwards rather than handed back: it may still hold a lock if this is dropped
    // half-way.
    conn.close_on_drop();
    let names: Vec<String> =
        sqlx::query_scalar("select nspname::text from pg_namespace where nspname like $1")
            .bind(format!("run\\_%{}", LOCKED.replace('_', "\\_")))
            .fetch_all(&mut *conn)
            .await?;
    let mut swept = Swept::default();
    for name in names.into_iter().filter(|n| is_locked_schema_name(n)) {
        let stale: bool = sqlx::query_scalar("select pg_try_advisory_lock($1, hashtext($2))")
            .bind(LOCK_CLASS)
            .bind(&name)
            .fetch_one(&mut *conn)
            .await?;
        if !stale {
            swept.left.push(name);
            continue;
        }
        // A gone run's backend may still hold locks in it (for a moment, or while it is
        // stopped): skip it then, and say so, so that the sweep is tried again.
        let sql = format!(
            "select set_config('client_min_messages', 'warning', true), \
                    set_config('lock_timeout', '2s', true); \
             drop schema if exists \"{name}\" cascade"
        );
        match monitor::simple(&mut conn, &sql).await {
            Ok(_) => swept.dropped += 1,
            Err(e) if crate::db::Fault::is_lost(&e) => return Err(e),
            Err(e) => {
                tracing::debug!(error = %e, schema = %name, "a stale schema was not dropped yet");
                swept.busy += 1;
                swept.left.push(name.clone());
            }
        }
        sqlx::query("select pg_advisory_unlock($1, hashtext($2))")
            .bind(LOCK_CLASS)
            .bind(&name)
            .execute(&mut *conn)
            .await?;
    }
    Ok(swept)
}

/// Per database: whether it was swept once, whether a sweep is wanted, whether one runs.
#[derive(Default)]
struct Due {
    swept_once: bool,
    wanted: bool,
    running: bool,
    /// Schemas that a clean-up could not drop: sweeps go on until they are gone, even while
    /// their lock is still held (by a monitor whose backend is stopped, say).
    owed: Vec<String>,
}

/// The database that `options` name, as `host:port/database`.
pub(crate) fn database(options: &PgConnectOptions) -> String {
    format!(
        "{}:{}/{}",
        options.get_host(),
        options.get_port(),
        options.get_database().unwrap_or("")
    )
}

/// The sweep state of `pool`'s database. Pools on the same database share it: a sweep is of
/// the database, not of a pool. One small entry per database this process ever ran on.
fn due(pool: &PgPool) -> Arc<Mutex<Due>> {
    type Table = Vec<(String, Arc<Mutex<Due>>)>;
    static DUE: Mutex<Table> = Mutex::new(Vec::new());
    let key = database(&pool.connect_options());
    let mut table = DUE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, due)) = table.iter().find(|(k, _)| *k == key) {
        return due.clone();
    }
    let due = Arc::new(Mutex::new(Due::default()));
    table.push((key, due.clone()));
    due
}

fn lock(due: &Mutex<Due>) -> std::sync::MutexGuard<'_, Due> {
    due.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// At a run's start: sweeps if this database was never swept by this process, or a sweep is
/// still wanted (the last ones could not finish).
pub(crate) fn at_run_start(pool: &PgPool) {
    let due = due(pool);
    let wanted = {
        let mut d = lock(&due);
        let wanted = !d.swept_once || d.wanted;
        d.swept_once = true;
        wanted
    };
    if wanted {
        request(pool);
    }
}

/// Asks for sweeps of `pool`'s database until `schema`, which a clean-up could not drop, is
/// gone.
pub(crate) fn owe(pool: &PgPool, schema: &str) {
    {
        let due = due(pool);
        let mut d = lock(&due);
        if !d.owed.iter().any(|s| s == schema) {
            d.owed.push(schema.to_string());
        }
    }
    request(pool);
}

/// Asks for a sweep of `pool`'s database in the background (now, or after the one running).
pub fn request(pool: &PgPool) {
    let due = due(pool);
    {
        let mut d = lock(&due);
        d.wanted = true;
        if d.running {
            return;
        }
        d.running = true;
    }
    let pool = pool.clone();
    tokio::spawn(async move {
        let mut pause = RETRY_FIRST;
        let mut failed = 0;
        loop {
            lock(&due).wanted = false;
            // Ready schemas whose connection died while idle are the sweep's too.
            let _ = tokio::time::timeout(SWEEP_LIMIT, super::ready::check(&pool)).await;
            let done = match tokio::time::timeout(SWEEP_LIMIT, sweep(&pool)).await {
                Ok(Ok(swept)) => {
                    if swept.dropped > 0 {
                        tracing::info!(
                            dropped = swept.dropped,
                            "dropped run schemas that no live run owns"
                        );
                    }
                    let mut d = lock(&due);
                    d.owed.retain(|owed| swept.left.contains(owed));
                    swept.busy == 0 && d.owed.is_empty()
                }
                Ok(Err(e)) => {
                    tracing::debug!(error = %e, "sweeping stale run schemas; trying again");
                    false
                }
                Err(_) => false,
            };
            failed = if done { 0 } else { failed + 1 };
            {
                let mut d = lock(&due);
                d.wanted |= !done;
                if !d.wanted || failed >= GIVE_UP_AFTER {
                    d.running = false;
                    if d.wanted {
                        tracing::warn!(
                            "stale run schemas could not be swept; the next run tries again"
                        );
                    }
                    return;
                }
            }
            if done {
                // Asked again while sweeping: at once.
                continue;
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(RETRY_MOST);
        }
    });
}

/// Sweeps `pool`'s database every `every`, for ever (`serve` spawns it): schemas a clean-up
/// could not drop in the end are dropped on the next round at the latest.
pub async fn sweep_every(pool: PgPool, every: Duration) {
    loop {
        tokio::time::sleep(every).await;
        request(&pool);
    }
}
