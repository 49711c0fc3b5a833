//! How the room routes speak HTTP: a `RoomError` as its status and JSON message (a database
//! that is away is a 503 saying it is restarting, never a 500), the boxed refusal every handler
//! returns, the bearer token, and a JSON body read with a message that names what is wrong.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::header::{AUTHORIZATION, RETRY_AFTER};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use super::headers::require_json;
use super::rooms::{RoomApi, ROOM_BODY_LIMIT};
use super::AppState;
use crate::room::{store, RoomError};

impl IntoResponse for RoomError {
    fn into_response(self) -> Response {
        let (status, field, message) = match &self {
            RoomError::Invalid { field, message } => (
                StatusCode::BAD_REQUEST,
                Some(field.clone()),
                message.clone(),
            ),
            RoomError::NoRoom(_) => (
                StatusCode::NOT_FOUND,
                Some("code".to_string()),
                self.to_string(),
            ),
            RoomError::Unauthorized(m) => (
                StatusCode::UNAUTHORIZED,
                Some("Authorization".to_string()),
                m.clone(),
            ),
            RoomError::Conflict(m) => (StatusCode::CONFLICT, None, m.clone()),
            RoomError::TooMany(m) => (StatusCode::TOO_MANY_REQUESTS, None, m.clone()),
            RoomError::Unavailable(m) => (StatusCode::SERVICE_UNAVAILABLE, None, m.clone()),
            RoomError::Database(e) if crate::db::Fault::of(e).is_some() => (
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                "the database is restarting or out of reach: the server is reconnecting; try again in a moment"
                    .to_string(),
            ),
            RoomError::Database(_) | RoomError::Internal(_) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                None,
                "internal error".to_string(),
            ),
        };
        if status.is_server_error() {
            tracing::error!(error = %self, "a room request failed");
        }
        let mut response = (
            status,
            Json(json!({ "error": { "field": field, "message": message } })),
        )
            .into_response();
        if status == StatusCode::TOO_MANY_REQUESTS || status == StatusCode::SERVICE_UNAVAILABLE {
            response
                .headers_mut()
                .insert(RETRY_AFTER, HeaderValue::from_static("1"));
        }
        response
    }
}

/// A refusal: the error's response, boxed (a response is large).
pub struct Refused(Box<Response>);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        *self.0
    }
}

impl From<Response> for Refused {
    fn from(r: Response) -> Refused {
        Refused(Box::new(r))
    }
}

impl From<RoomError> for Refused {
    fn from(e: RoomError) -> Refused {
        e.into_response().into()
    }
}

pub type Answer = Result<Response, Refused>;

pub fn room_api(state: &AppState) -> Result<Arc<RoomApi>, Refused> {
    state
        .readiness
        .check()
        .map_err(|r| super::ApiError::NotReady(r).into_response())?;
    Ok(state.room_api())
}

pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty() && t.len() <= 100)
}

/// The JSON body as `T` (an empty body as `{}`), or what is wrong with it.
pub fn body<T: DeserializeOwned>(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<T, Refused> {
    let body = body.map_err(|e| {
        Refused::from(RoomError::invalid(
            "body",
            format!(
                "the body could not be read ({}): send at most {} KB of JSON",
                e.body_text(),
                ROOM_BODY_LIMIT / 1024
            ),
        ))
    })?;
    if body.is_empty() {
        return serde_json::from_str("{}").map_err(|e| {
            Refused::from(RoomError::invalid(
                "body",
                format!("this route needs a JSON body: {e}"),
            ))
        });
    }
    require_json(headers).map_err(|e| Refused::from(e.into_response()))?;
    serde_json::from_slice(&body).map_err(|e| {
        Refused::from(RoomError::invalid(
            "body",
            format!("the body is not what this route takes: {e}"),
        ))
    })
}

pub fn ok(value: Value) -> Answer {
    Ok(Json(value).into_response())
}

pub fn code(raw: &str) -> Result<String, Refused> {
    Ok(store::code(raw)?)
}
