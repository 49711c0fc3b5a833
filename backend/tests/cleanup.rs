//! Every run gives everything back: its schema is dropped or, emptied, kept ready for the next
//! run by its own idle connection, and no connection stays inside a transaction, whether the run ends normally, with a statement still waiting, on an invalid
//! order, on a timeout, or because its caller went away. One test, so that nothing else of this
//! process runs beside it while it counts.

mod common;

use std::time::{Duration, Instant};

use backend::executor::{execute, execute_within, ExecError, SCHEMA_LOCK_CLASS};
use common::{pool_named, schedule, schemas::LEFT_BEHIND};
use sqlx::PgPool;

const APP: &str = "lastseat_cleanup_test";

const DEADLOCK: &str = r#"{ "version": 1, "scenario": { "seats": [ { "id": "A1" }, { "id": "A2" } ] },
  "actors": {
    "ana": [ { "op": "begin" }, { "op": "lock", "seats": ["A1"] }, { "op": "lock", "seats": ["A2"] }, { "op": "commit" } ],
    "ben": [ { "op": "begin" }, { "op": "lock", "seats": ["A2"] }, { "op": "lock", "seats": ["A1"] }, { "op": "commit" } ] },
  "order": ["ana", "ben", "ana", "ben", "ana", "ben", "ana", "ben"] }"#;

const LEFT_WAITING: &str = r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
  "actors": { "adam": { "defence": "lock_row" }, "omar": { "defence": "lock_row" } },
  "order": ["adam", "adam", "omar", "omar"] }"#;

const INVALID_ORDER: &str = r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
  "actors": { "adam": { "defence": "lock_row" }, "omar": { "defence": "lock_row" } },
  "order": ["adam", "adam", "omar", "omar", "omar"] }"#;

/// This process's run schemas that still exist, but for the ready ones.
async fn schemas_left(pool: &PgPool) -> Vec<String> {
    let prefix = format!("run\\_{}\\_%", std::process::id());
    sqlx::query_scalar(LEFT_BEHIND)
        .bind(prefix)
        .bind(SCHEMA_LOCK_CLASS)
        .fetch_all(pool)
        .await
        .expect("pg_namespace")
}

/// The rows left in this process's ready schemas: none, once their runs are over.
async fn rows_left_in_ready_schemas(pool: &PgPool) -> i64 {
    let names: Vec<String> =
        sqlx::query_scalar("select nspname::text from pg_namespace where nspname like $1")
            .bind(format!("run\\_{}\\_%", std::process::id()))
            .fetch_all(pool)
            .await
            .expect("pg_namespace");
    let mut rows = 0;
    for name in names {
        let count: Result<i64, _> = sqlx::query_scalar(&format!(
            "select (select count(*) from \"{name}\".show_seats) + (select count(*) from \"{name}\".booking_seats)"
        ))
        .fetch_one(pool)
        .await;
        // A schema dropped meanwhile has nothing left in it.
        rows += count.unwrap_or(0);
    }
    rows
}

/// This test's connections that are inside a transaction, or have a statement running.
async fn busy_connections(pool: &PgPool) -> Vec<String> {
    sqlx::query_scalar(
        "select state || ': ' || query from pg_stat_activity
          where application_name = $1 and pid <> pg_backend_pid() and state <> 'idle'",
    )
    .bind(APP)
    .fetch_all(pool)
    .await
    .expect("pg_stat_activity")
}

/// Waits (up to 10 s) until nothing of the runs is left; the leftovers otherwise.
async fn settled(pool: &PgPool) -> Result<(), String> {
    let start = Instant::now();
    loop {
        let (schemas, conns) = (schemas_left(pool).await, busy_connections(pool).await);
        if schemas.is_empty() && conns.is_empty() {
            return Ok(());
        }
        if start.elapsed() > Duration::from_secs(10) {
            return Err(format!(
                "schemas left: {schemas:?}; connections not idle: {conns:?}"
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_run_drops_its_schema_and_leaves_no_connection_in_a_transaction() {
    let pool = pool_named(APP).await;

    execute(&pool, &schedule(DEADLOCK))
        .await
        .expect("a deadlock run");
    assert!(
        schemas_left(&pool).await.is_empty(),
        "a normal run drops its schema, or keeps it ready, before it returns"
    );
    assert_eq!(
        rows_left_in_ready_schemas(&pool).await,
        0,
        "a schema kept ready is empty"
    );
    settled(&pool).await.expect("after a normal run");

    let trace = execute(&pool, &schedule(LEFT_WAITING))
        .await
        .expect("a run that ends waiting");
    assert!(trace.entries[3].result.is_none());
    assert!(schemas_left(&pool).await.is_empty());
    settled(&pool)
        .await
        .expect("after a run that ended with a statement waiting");

    let invalid = execute(&pool, &schedule(INVALID_ORDER)).await;
    assert!(
        matches!(invalid, Err(ExecError::Schedule(_))),
        "{invalid:?}"
    );
    settled(&pool).await.expect("after an invalid order");

    let timed_out = execute_within(&pool, &schedule(DEADLOCK), Duration::from_millis(100)).await;
    assert!(
        matches!(timed_out, Err(ExecError::Timeout(_))),
        "{timed_out:?}"
    );
    settled(&pool).await.expect("after a timeout");

    // The caller goes away in the middle of the deadlock (before PostgreSQL breaks it).
    let (p, s) = (pool.clone(), schedule(DEADLOCK));
    let run = tokio::spawn(async move { execute(&p, &s).await });
    tokio::time::sleep(Duration::from_millis(150)).await;
    run.abort();
    assert!(run.await.is_err_and(|e| e.is_cancelled()));
    settled(&pool).await.expect("after the caller went away");

    // And the connections that came back serve the next run as if new.
    let trace = execute(&pool, &schedule(LEFT_WAITING))
        .await
        .expect("a run on reused connections");
    assert_eq!(trace.entries[1].step(), "ok:1");
    settled(&pool).await.expect("at the end");

    // At shutdown the ready schemas go too.
    backend::executor::shutdown(&pool).await;
    let prefix = format!("run\\_{}\\_%", std::process::id());
    let all: Vec<String> =
        sqlx::query_scalar("select nspname::text from pg_namespace where nspname like $1")
            .bind(prefix)
            .fetch_all(&pool)
            .await
            .expect("pg_namespace");
    assert!(all.is_empty(), "schemas left after the shutdown: {all:?}");
}
