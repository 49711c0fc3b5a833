//! The API's handlers.

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::Json;
use serde_json::{json, Value};
use shared::scenarios::{self, BuiltIn};
use shared::schedule::Database;
use shared::{Schedule, ScheduleError};

use super::admission::Refusal;
use super::client::ClientAddr;
use super::cost::Cost;
use super::headers::require_json;
use super::{ApiError, AppState};
use crate::db::{self, Fault};
use crate::replay::{self, Report};

/// How long a health check waits for the database.
const HEALTH_LIMIT: Duration = Duration::from_secs(2);

/// `GET /api/health`: the server is up, and so is the database. Until the server has connected
/// (and migrated), a 503 that says why not; after a restart, the connections the pool kept
/// from before are closed and the question asked once more, so that a database that is back
/// is reported up.
pub async fn health(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, ApiError> {
    if asked_database(query.as_deref())? == Database::Innodb {
        return mariadb_health(&state).await;
    }
    state.readiness.check().map_err(ApiError::NotReady)?;
    let ask = || tokio::time::timeout(HEALTH_LIMIT, sqlx::query("select 1").execute(&state.pool));
    let mut answer = ask().await;
    if matches!(&answer, Ok(Err(e)) if Fault::is_lost(e)) {
        db::discard_dead(&state.pool).await;
        answer = ask().await;
    }
    match answer {
        Ok(Ok(_)) => Ok(Json(json!({ "status": "ok", "database": "up" }))),
        Ok(Err(e)) => Err(ApiError::DatabaseDown(e)),
        Err(_) => Err(ApiError::DatabaseDown(sqlx::Error::PoolTimedOut)),
    }
}

/// The database `GET /api/health` is asked about: PostgreSQL, or `?database=innodb` for MariaDB.
fn asked_database(query: Option<&str>) -> Result<Database, ApiError> {
    let refuse = |found: &str| {
        ApiError::BadSchedule(ScheduleError::new(
            "database",
            format!(
                "found {found:?}: ask about one database, ?database=postgresql or ?database=innodb"
            ),
        ))
    };
    match query.filter(|q| !q.is_empty()) {
        None => Ok(Database::Postgresql),
        Some(q) => {
            let value = q.strip_prefix("database=").ok_or_else(|| refuse(q))?;
            Database::ALL
                .into_iter()
                .find(|d| d.id() == value)
                .ok_or_else(|| refuse(value))
        }
    }
}

/// `GET /api/health?database=innodb`: MariaDB answers, or a 503 that names it.
async fn mariadb_health(state: &AppState) -> Result<Json<Value>, ApiError> {
    let Some(pool) = state.mariadb.as_ref() else {
        return Err(ApiError::MariaDbDown(
            "no MariaDB is configured (set MYSQL_URL)".into(),
        ));
    };
    match tokio::time::timeout(HEALTH_LIMIT, sqlx::query("select 1").execute(pool)).await {
        Ok(Ok(_)) => Ok(Json(json!({ "status": "ok", "database": "up" }))),
        Ok(Err(e)) => Err(ApiError::MariaDbDown(e.to_string())),
        Err(_) => Err(ApiError::MariaDbDown("it did not answer in time".into())),
    }
}

/// `GET /api/scenarios`: the built-in scenarios of the chapters.
pub async fn scenarios() -> Json<Vec<BuiltIn>> {
    Json(scenarios::all())
}

/// `POST /api/runs`: a schedule file in; the simulated and the real outcome out, compared.
/// The body must say it is JSON (so that a cross-site form or `text/plain` fetch, which needs
/// no preflight, cannot start a run). The model's trace prices the run before it starts
/// (`cost.rs`), and it waits its turn under the admission rule (`admission.rs`): a run above the
/// bound is a 422 that says why, one that finds no slot a 503 with `Retry-After`. The run
/// itself is bounded by the executor; a client that goes away takes its run with it (the run's
/// task is aborted and its schema dropped).
pub async fn create_run(
    State(state): State<AppState>,
    ClientAddr(client): ClientAddr,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Report>, ApiError> {
    let schedule = schedule_of(&headers, body)?;
    state.readiness.check().map_err(ApiError::NotReady)?;
    let cost = Cost::of(&shared::engine::simulate(&schedule).map_err(ApiError::CannotRun)?);
    let _turn = state
        .admission
        .admit(client, cost)
        .await
        .map_err(|refusal| match refusal {
            Refusal::TooCostly { cost, limit } => ApiError::TooCostly(cost.refusal(limit)),
            Refusal::Busy {
                retry_after,
                waited,
            } => ApiError::Busy {
                retry_after,
                waited,
            },
        })?;
    let report = replay::replay_in(
        &state.pool,
        state.mariadb.as_ref(),
        &schedule,
        state.run_limit,
    )
    .await
    .map_err(|e| ApiError::of_run(schedule.database(), e))?;
    Ok(Json(report))
}

/// The schedule a request's body holds, said to be JSON (`POST /api/runs` and
/// `POST /api/verify`): a cross-site form or `text/plain` fetch, which needs no preflight, is
/// refused before anything runs.
pub(super) fn schedule_of(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Schedule, ApiError> {
    require_json(headers)?;
    let body = body?;
    let text = std::str::from_utf8(&body).map_err(|_| {
        ApiError::BadSchedule(ScheduleError::new(
            "schedule",
            "the body is not UTF-8 text: send the schedule file's JSON",
        ))
    })?;
    Schedule::parse_json(text).map_err(ApiError::BadSchedule)
}
