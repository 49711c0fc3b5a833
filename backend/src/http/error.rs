//! The HTTP boundary's one error type, and the one place where an error becomes a status and
//! the one envelope every refusal is sent in (`shared::protocol::ErrorBody`), the live rooms'
//! (`RoomError`) included.
//!
//! Client mistakes get a 4xx whose message names the field and the fix; server-side causes are
//! logged and never sent.

use std::time::Duration;

use axum::extract::rejection::BytesRejection;
use axum::http::header::{ALLOW, CONNECTION, RETRY_AFTER};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use shared::protocol::ErrorBody;
use shared::ScheduleError;

use crate::db::Fault;
use crate::executor::ExecError;
use crate::replay::ReplayError;
use crate::room::error::RoomError;

/// A request body that did not arrive within `Limits::body_read_timeout`.
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive within {} s", .0.as_secs())]
pub struct BodyTimeout(pub Duration);

/// The largest schedule file `POST /api/runs` and `POST /api/verify` take: past it, a body is
/// refused as `ApiError::TooLarge`.
pub const RUN_BODY_LIMIT: usize = 64 * 1024;

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
    /// `POST /api/runs` without `Content-Type: application/json` (what it had instead).
    #[error("unsupported content type {0:?}")]
    NotJson(Option<String>),
    #[error("the body did not arrive in time: {0}")]
    BodyTimeout(BodyTimeout),
    /// The run would cost PostgreSQL more than the server allows (`cost.rs`); the message says
    /// how much and what to do.
    #[error("too costly: {0}")]
    TooCostly(String),
    /// No slot for the run: try again after `retry_after` seconds.
    #[error("too many runs at once")]
    Busy { retry_after: u64, waited: bool },
    /// As many verifications (`POST /api/verify`) as the server takes at once are under way.
    #[error("too many verifications at once")]
    Verifying { at_once: usize, retry_after: u64 },
    /// The route exists but not with this method; `allow` lists the methods it takes.
    #[error("method {method} not allowed")]
    MethodNotAllowed { method: String, allow: String },
    /// The request's address or headers are larger than the server reads.
    #[error("{message}")]
    HeadTooLarge { status: StatusCode, message: String },
    #[error("database unavailable: {0}")]
    DatabaseDown(sqlx::Error),
    /// A run on InnoDB found MariaDB down or lost it (a fault), or none is configured: why.
    #[error("MariaDB is not reachable: {0}")]
    MariaDbDown(String),
    #[error("a run did not finish in time: {0}")]
    RunTimeout(ExecError),
    /// The machine was too slow for the deadlock of the schedule, on every try.
    #[error("{0}")]
    TooBusy(ExecError),
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
    /// A live room's refusal (`room/error.rs`).
    #[error("room: {0}")]
    Room(#[from] RoomError),
}

impl From<BytesRejection> for ApiError {
    fn from(rejection: BytesRejection) -> ApiError {
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&rejection);
        while let Some(e) = source {
            if let Some(timeout) = e.downcast_ref::<BodyTimeout>() {
                return ApiError::BodyTimeout(BodyTimeout(timeout.0));
            }
            source = e.source();
        }
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::TooLarge {
                limit: RUN_BODY_LIMIT,
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
            ExecError::TooSlow(_) => ApiError::TooBusy(e),
            e => ApiError::Internal(e.to_string()),
        }
    }
}

impl From<ReplayError> for ApiError {
    fn from(e: ReplayError) -> ApiError {
        match e {
            ReplayError::Invalid(e) => ApiError::CannotRun(e),
            ReplayError::Exec(e) => e.into(),
            ReplayError::NoMariaDb(why) => ApiError::MariaDbDown(why),
        }
    }
}

impl ApiError {
    /// The error of a run of a schedule on `database`: on InnoDB, a fault of the server is
    /// MariaDB's, and the answer names it.
    pub fn of_run(database: shared::schedule::Database, e: ReplayError) -> ApiError {
        match (database, e) {
            (shared::schedule::Database::Innodb, ReplayError::Exec(e)) if e.is_fault() => {
                ApiError::MariaDbDown(e.to_string())
            }
            (_, e) => e.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, field, message) = self.parts();
        if status.is_server_error()
            && !matches!(self, ApiError::Busy { .. } | ApiError::Verifying { .. })
        {
            tracing::error!(error = %self, "request failed");
        }
        let mut response = (status, Json(ErrorBody::new(field, message))).into_response();
        let headers = response.headers_mut();
        match &self {
            ApiError::Busy { retry_after, .. } | ApiError::Verifying { retry_after, .. } => {
                headers.insert(RETRY_AFTER, HeaderValue::from(*retry_after));
            }
            ApiError::MethodNotAllowed { allow, .. } => {
                if let Ok(allow) = HeaderValue::from_str(allow) {
                    headers.insert(ALLOW, allow);
                }
            }
            // The rest of the body is still on its way, or never coming: do not read on.
            ApiError::BodyTimeout(_) => {
                headers.insert(CONNECTION, HeaderValue::from_static("close"));
            }
            // A room's phone tries again a second later.
            ApiError::Room(_)
                if status == StatusCode::TOO_MANY_REQUESTS
                    || status == StatusCode::SERVICE_UNAVAILABLE =>
            {
                headers.insert(RETRY_AFTER, HeaderValue::from_static("1"));
            }
            _ => {}
        }
        response
    }
}

impl ApiError {
    /// The status, the field at fault and the message the client is sent.
    fn parts(&self) -> (StatusCode, Option<String>, String) {
        match self {
            ApiError::BadSchedule(e) => (StatusCode::BAD_REQUEST, Some(e.field.clone()), e.message.clone()),
            ApiError::CannotRun(e) => (StatusCode::UNPROCESSABLE_ENTITY, Some(e.field.clone()), e.message.clone()),
            ApiError::TooLarge { limit } => (
                StatusCode::PAYLOAD_TOO_LARGE,
                Some("body".to_string()),
                format!("the schedule is larger than {} KB: send a smaller one", limit / 1024),
            ),
            ApiError::BadBody(r) => (r.status(), Some("body".to_string()), r.body_text()),
            ApiError::NotFound => (StatusCode::NOT_FOUND, None, "no such API route".to_string()),
            ApiError::NotJson(got) => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                Some("Content-Type".to_string()),
                format!(
                    "a schedule is sent as JSON: set the header Content-Type: application/json (this request {})",
                    match got {
                        Some(got) => format!("said {got:?}"),
                        None => "had none".to_string(),
                    }
                ),
            ),
            ApiError::BodyTimeout(e) => (
                StatusCode::REQUEST_TIMEOUT,
                Some("body".to_string()),
                format!("{e}: send the whole body at once, no shorter than its Content-Length"),
            ),
            ApiError::TooCostly(message) => (StatusCode::UNPROCESSABLE_ENTITY, Some("order".to_string()), message.clone()),
            ApiError::MethodNotAllowed { method, allow } => (
                StatusCode::METHOD_NOT_ALLOWED,
                None,
                format!("this route does not take {method}: use {allow}"),
            ),
            ApiError::HeadTooLarge { status, message } => (*status, None, message.clone()),
            ApiError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, None, "internal error".to_string()),
            ApiError::Room(e) => room_parts(e),
            ApiError::Busy { retry_after, waited } => unavailable(format!(
                "the server is running as many schedules as it can{}: try again in {retry_after} s",
                if *waited { ", and this one waited its turn too long" } else { ", and yours already fill your place in the queue" }
            )),
            ApiError::Verifying { at_once, retry_after } => unavailable(format!(
                "the server is already proving {at_once} schedule{} on PostgreSQL, as many as it \
                 proves at once: try again in {retry_after} s",
                if *at_once == 1 { "" } else { "s" }
            )),
            ApiError::DatabaseDown(_) => unavailable(
                "the database is unavailable or overloaded: check that PostgreSQL is running and DATABASE_URL points at it, then try again".into(),
            ),
            ApiError::MariaDbDown(_) => unavailable(
                "MariaDB is not reachable (it is down, or a connection to it was lost during the run): check that it is running and MYSQL_URL points at it, then try again".into(),
            ),
            ApiError::TooBusy(e) => unavailable(e.to_string()),
            ApiError::RunTimeout(_) => unavailable("the run did not finish in time on PostgreSQL: try again".into()),
            ApiError::DatabaseRestarted(_) => unavailable(
                "the database was restarted and is not taking runs yet: try again in a moment".into(),
            ),
            ApiError::ConnectionLost(_) => unavailable(
                "a database connection was lost during the run (PostgreSQL was restarted, or the session was ended): nothing of it is reported; try again".into(),
            ),
            ApiError::NotReady(reason) => unavailable(format!(
                "the database is not available yet: {reason}; the server keeps trying to connect: try again in a moment"
            )),
        }
    }
}

/// A 503: the server or the database cannot take the request now; `message` says why and when
/// to try again.
fn unavailable(message: String) -> (StatusCode, Option<String>, String) {
    (StatusCode::SERVICE_UNAVAILABLE, None, message)
}

/// A room's refusal: a database that is away is a 503 saying it is restarting, never a 500.
fn room_parts(e: &RoomError) -> (StatusCode, Option<String>, String) {
    let named = |f: &str| Some(f.to_string());
    match e {
        RoomError::Invalid { field, message } => {
            (StatusCode::BAD_REQUEST, Some(field.clone()), message.clone())
        }
        RoomError::NoRoom(_) => (StatusCode::NOT_FOUND, named("code"), e.to_string()),
        RoomError::Unauthorized(m) => (StatusCode::UNAUTHORIZED, named("Authorization"), m.clone()),
        RoomError::Conflict(m) => (StatusCode::CONFLICT, None, m.clone()),
        RoomError::TooMany(m) => (StatusCode::TOO_MANY_REQUESTS, None, m.clone()),
        RoomError::Unavailable(m) => (StatusCode::SERVICE_UNAVAILABLE, None, m.clone()),
        RoomError::Database(e) if Fault::of(e).is_some() => (
            StatusCode::SERVICE_UNAVAILABLE,
            None,
            "the database is restarting or out of reach: the server is reconnecting; try again in a moment".to_string(),
        ),
        RoomError::Database(_) | RoomError::Internal(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            None,
            "internal error".to_string(),
        ),
    }
}
