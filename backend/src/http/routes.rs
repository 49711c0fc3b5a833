//! The API's handlers.

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};
use shared::scenarios::{self, BuiltIn};
use shared::{Schedule, ScheduleError};

use super::{ApiError, AppState};
use crate::db::{self, Fault};
use crate::replay::{self, Report};

/// How long a health check waits for the database.
const HEALTH_LIMIT: Duration = Duration::from_secs(2);
/// How long a run waits for its turn when the server is running as many as it can.
const QUEUE_LIMIT: Duration = Duration::from_secs(10);

/// `GET /api/health`: the server is up, and so is the database. Until the server has connected
/// (and migrated), a 503 that says why not; after a restart, the connections the pool kept
/// from before are closed and the question asked once more, so that a database that is back
/// is reported up.
pub async fn health(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
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

/// `GET /api/scenarios`: the built-in scenarios of the chapters.
pub async fn scenarios() -> Json<Vec<BuiltIn>> {
    Json(scenarios::all())
}

/// `POST /api/runs`: a schedule file in; the simulated and the real outcome out, compared.
/// Every wait is bounded: for a turn by `QUEUE_LIMIT` (then a 503), for the run by the
/// executor's own bound (then a 503 too); a client that goes away takes its run with it (the
/// run's task is aborted and its schema dropped).
pub async fn create_run(
    State(state): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Report>, ApiError> {
    let body = body?;
    let text = std::str::from_utf8(&body).map_err(|_| {
        ApiError::BadSchedule(ScheduleError::new(
            "schedule",
            "the body is not UTF-8 text: send the schedule file's JSON",
        ))
    })?;
    let schedule = Schedule::parse_json(text).map_err(ApiError::BadSchedule)?;
    state.readiness.check().map_err(ApiError::NotReady)?;
    let _turn = tokio::time::timeout(QUEUE_LIMIT, state.runs.acquire())
        .await
        .map_err(|_| ApiError::Busy)?
        .map_err(|_| ApiError::Busy)?;
    Ok(Json(
        replay::replay_within(&state.pool, &schedule, state.run_limit).await?,
    ))
}
