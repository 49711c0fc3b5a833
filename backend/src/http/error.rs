//! The HTTP boundary's one error type, and the one place where an error becomes a status.
//!
//! Client mistakes get a 4xx whose message names the field and the fix; server-side causes are
//! logged and never sent.

use axum::extract::rejection::BytesRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use shared::ScheduleError;

use crate::db::Fault;
use crate::executor::ExecError;
use crate::replay::ReplayError;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The body is not a valid schedule file.
    #[error(transparent)]
    BadSchedule(ScheduleError),
    /// The schedule is well formed but cannot run as written.
    #[error(transparent)]
    CannotRun(ScheduleError),
    #[error("the body is larger than {limit} bytes")]
    TooLarge { limit: usize },
    #[error("the body could not be read: {0}")]
    BadBody(BytesRejection),
    #[error("no such API route")]
    NotFound,
    #[error("too many runs at once")]
    Busy,
    #[error("database unavailable: {0}")]
    DatabaseDown(sqlx::Error),
    #[error("a run did not finish in time: {0}")]
    RunTimeout(ExecError),
    /// The database was restarted (or is restarting) and did not take the run.
    #[error("the database was restarted: {0}")]
    DatabaseRestarted(ExecError),
    /// A connection was lost during the run: a restart, or a session that was ended.
    #[error("a connection was lost during the run: {0}")]
    ConnectionLost(ExecError),
    /// The server has not connected to the database yet (it keeps trying); why, in words fit
    /// for the client.
    #[error("the database is not ready: {0}")]
    NotReady(String),
    #[error("internal: {0}")]
    Internal(String),
}

impl From<BytesRejection> for ApiError {
    fn from(rejection: BytesRejection) -> ApiError {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::TooLarge {
                limit: super::RUN_BODY_LIMIT,
            }
        } else {
            ApiError::BadBody(rejection)
        }
    }
}

impl From<ExecError> for ApiError {
    fn from(e: ExecError) -> ApiError {
        match e {
            ExecError::Schedule(e) => ApiError::CannotRun(e),
            // A pool that times out is one that cannot connect (runs never exhaust it: they
            // queue for a turn first), or one shared with more work than it can take.
            ExecError::Database(e) if Fault::of(&e).is_some() => ApiError::DatabaseDown(e),
            ExecError::Restarted(_) => ApiError::DatabaseRestarted(e),
            ExecError::ConnectionLost(_) => ApiError::ConnectionLost(e),
            ExecError::Timeout(_) => ApiError::RunTimeout(e),
            e => ApiError::Internal(e.to_string()),
        }
    }
}

impl From<ReplayError> for ApiError {
    fn from(e: ReplayError) -> ApiError {
        match e {
            ReplayError::Invalid(e) => ApiError::CannotRun(e),
            ReplayError::Exec(e) => e.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, field, message) = match &self {
            ApiError::BadSchedule(e) => (StatusCode::BAD_REQUEST, Some(e.field.clone()), e.message.clone()),
            ApiError::CannotRun(e) => (StatusCode::UNPROCESSABLE_ENTITY, Some(e.field.clone()), e.message.clone()),
            ApiError::TooLarge { limit } => (
                StatusCode::PAYLOAD_TOO_LARGE,
                Some("body".to_string()),
                format!("the schedule is larger than {} KB: send a smaller one", limit / 1024),
            ),
            ApiError::BadBody(r) => (r.status(), Some("body".to_string()), r.body_text()),
            ApiError::NotFound => (StatusCode::NOT_FOUND, None, "no such API route".to_string()),
            ApiError::Busy => (
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                "the server is running as many schedules as it can: try again in a moment".to_string(),
            ),
            ApiError::DatabaseDown(_) => (
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                "the database is unavailable or overloaded: check that PostgreSQL is running and DATABASE_URL points at it, then try again".to_string(),
            ),
            ApiError::RunTimeout(_) => (
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                "the run did not finish in time on PostgreSQL: try again".to_string(),
            ),
            ApiError::DatabaseRestarted(_) => (
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                "the database was restarted and is not taking runs yet: try again in a moment".to_string(),
            ),
            ApiError::ConnectionLost(_) => (
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                "a database connection was lost during the run (PostgreSQL was restarted, or the session was ended): nothing of it is reported; try again".to_string(),
            ),
            ApiError::NotReady(reason) => (
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                format!("the database is not available yet: {reason}; the server keeps trying to connect: try again in a moment"),
            ),
            ApiError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, None, "internal error".to_string()),
        };
        if status.is_server_error() {
            tracing::error!(error = %self, "request failed");
        }
        (
            status,
            Json(json!({ "error": { "field": field, "message": message } })),
        )
            .into_response()
    }
}
