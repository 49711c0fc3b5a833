//! The names of runs' schemas: fresh for every schema, unique across processes and runs, and
//! the only text the executor ever splices into SQL; and the first query that makes one, its
//! advisory lock taken before the schema exists.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use super::{RUN_SETTINGS, SCHEMA_LOCK_CLASS as LOCK_CLASS};

/// The end of the name of a schema whose monitor holds its lock (see `sweep::sweep`).
pub(crate) const LOCKED: &str = "_lk";

static RUNS: AtomicU64 = AtomicU64::new(0);

/// A fresh schema name, unique across processes and runs: `run_<pid>_<counter>_<nanos>_lk`.
/// It is the only text the executor ever splices into SQL.
pub(crate) fn schema_name() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "run_{}_{}_{nanos}{LOCKED}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    )
}

/// Whether `name` is exactly what `schema_name` makes (so it is safe to splice into SQL).
pub(crate) fn is_locked_schema_name(name: &str) -> bool {
    let Some(middle) = name
        .strip_prefix("run_")
        .and_then(|rest| rest.strip_suffix(LOCKED))
    else {
        return false;
    };
    let parts: Vec<&str> = middle.split('_').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 20 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// The first query on the monitor of a new schema: the run's settings, the lock on the name
/// (taken before the schema exists: the statements of one simple query are one transaction, so
/// others see the schema only once it is committed, lock held), the schema, and `ddl` in it.
pub(crate) fn create_sql(schema: &str, ddl: &str) -> String {
    format!(
        "{RUN_SETTINGS}; select pg_try_advisory_lock({LOCK_CLASS}, hashtext('{schema}'));\n\
         create schema \"{schema}\"; set search_path to \"{schema}\";\n{ddl}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_names_this_executor_makes_are_taken_for_locked_schemas() {
        assert!(is_locked_schema_name(&schema_name()));
        assert!(is_locked_schema_name("run_1_2_3_lk"));
        for name in [
            "run_1_2_3",
            "run_1_2_lk",
            "run_1_2_3_4_lk",
            "run_1_2_x_lk",
            "run_1__3_lk",
            "run_1_2_3\"; drop table t; --_lk",
            "public",
        ] {
            assert!(!is_locked_schema_name(name), "{name}");
        }
    }
}
