//! What the fault tests ask a private cluster, on connections of their own: the run schemas
//! left (the ready ones aside), the connections of a server's pool and what they do, the backends waiting on a lock;
//! and the waits, generous and bounded, until nothing of a run is left.

use std::time::{Duration, Instant};

use sqlx::postgres::PgPoolOptions;
use sqlx::PgPool;

use super::cluster::Cluster;

/// How long a test waits for what must happen (generous: the machine may be loaded).
pub const PATIENCE: Duration = Duration::from_secs(40);

/// A pool for the test's own questions, which reconnects after a restart.
pub fn observer(cluster: &Cluster) -> PgPool {
    PgPoolOptions::new()
        .max_connections(2)
        .acquire_timeout(Duration::from_secs(10))
        .connect_lazy(&cluster.url("lastseat_faults_observer"))
        .expect("a lazy pool")
}

/// Every run schema in the cluster's database but the ready ones (`schemas::LEFT_BEHIND`).
pub async fn schemas(observer: &PgPool) -> Result<Vec<String>, sqlx::Error> {
    sqlx::query_scalar(super::schemas::LEFT_BEHIND)
        .bind("run\\_%")
        .bind(backend::executor::SCHEMA_LOCK_CLASS)
        .fetch_all(observer)
        .await
}

/// The connections named `app`: all of them, and those inside a transaction or running.
pub async fn connections(observer: &PgPool, app: &str) -> Result<(i64, Vec<String>), sqlx::Error> {
    let rows: Vec<(String, String)> = sqlx::query_as(
        "select coalesce(state, ''), query from pg_stat_activity where application_name = $1",
    )
    .bind(app)
    .fetch_all(observer)
    .await?;
    let busy = rows
        .iter()
        .filter(|(state, _)| state != "idle")
        .map(|(state, query)| format!("{state}: {query}"))
        .collect();
    Ok((rows.len() as i64, busy))
}

/// Waits (up to `PATIENCE`) until no run schema is left and no connection of `app` is busy;
/// how long that took, or what is left.
pub async fn settled(observer: &PgPool, app: &str) -> Result<Duration, String> {
    let start = Instant::now();
    let mut last;
    loop {
        match (schemas(observer).await, connections(observer, app).await) {
            (Ok(s), Ok((_, busy))) if s.is_empty() && busy.is_empty() => return Ok(start.elapsed()),
            (Ok(s), Ok((_, busy))) => {
                last = format!("schemas left: {s:?}; busy connections: {busy:?}")
            }
            (Err(e), _) | (_, Err(e)) => last = format!("cannot ask: {e}"),
        }
        if start.elapsed() > PATIENCE {
            return Err(last);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The backends of `app` waiting for a row lock (for another transaction's end, or for a
/// tuple's lock), once there are at least `n` (up to `PATIENCE`). Other waits are not a buyer's:
/// a ready schema being made in the background may wait a moment to extend a catalog.
pub async fn waiting_on_a_lock(observer: &PgPool, app: &str, n: usize) -> Vec<i32> {
    let start = Instant::now();
    loop {
        let pids: Vec<i32> = sqlx::query_scalar(
            "select pid from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'
               and wait_event in ('transactionid', 'tuple')",
        )
        .bind(app)
        .fetch_all(observer)
        .await
        .unwrap_or_default();
        if pids.len() >= n {
            return pids;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "no run of {app} waits on a lock"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

pub async fn terminate(observer: &PgPool, pid: i32) {
    let ended: bool = sqlx::query_scalar("select pg_terminate_backend($1)")
        .bind(pid)
        .fetch_one(observer)
        .await
        .expect("pg_terminate_backend");
    assert!(ended, "backend {pid} was there to end");
}
