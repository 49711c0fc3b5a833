//! What the backend's tests share: a pool on the test database, schedules from JSON text, and
//! the steps of a trace as `expect.steps` writes them.

#![allow(dead_code)]

pub mod schemas;

use std::path::Path;
use std::process::{Command, Output};

use backend::db;
use shared::{Schedule, Trace};
use sqlx::PgPool;

/// A pool on `DATABASE_URL` (or the default local database), named so that a test can find
/// its own connections in `pg_stat_activity`.
pub async fn pool_named(application_name: &str) -> PgPool {
    let url = db::database_url();
    let sep = if url.contains('?') { '&' } else { '?' };
    let url = format!("{url}{sep}application_name={application_name}");
    db::connect(&url, 12)
        .await
        .unwrap_or_else(|e| panic!("the tests need PostgreSQL at {}: {e}", db::redact(&url)))
}

pub async fn pool() -> PgPool {
    pool_named("lastseat_test").await
}

pub fn schedule(json: &str) -> Schedule {
    Schedule::parse_json(json).unwrap_or_else(|e| panic!("test schedule: {e}"))
}

pub fn steps(trace: &Trace) -> Vec<String> {
    trace.entries.iter().map(|e| e.step()).collect()
}

/// The schedules under `schedules/` at the workspace root.
pub fn schedule_files() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schedules");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

/// The built `backend` binary run with `args`, to its end.
pub fn backend(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_backend"))
        .args(args)
        .output()
        .expect("the backend binary runs")
}

/// The path of a file of `schedules/`.
pub fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schedules")
        .join(name)
        .display()
        .to_string()
}
