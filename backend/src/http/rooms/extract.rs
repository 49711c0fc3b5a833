//! What every room handler takes from a request, read once here: the rooms (a 503 while the
//! database is not ready), the room's code from the path, the participant's token or the
//! facilitator's secret as `Authorization: Bearer`, and a JSON body (an empty body as `{}`), each
//! refused with a message that names what is wrong.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRef, FromRequest, FromRequestParts, RawPathParams, Request};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::api::{RoomApi, RoomsState};
use crate::http::error::ApiError;
use crate::http::headers::require_json;
use crate::room::error::RoomError;
use crate::room::store::{self, Room};

/// The largest body a room route takes.
pub const ROOM_BODY_LIMIT: usize = 4 * 1024;

/// Makes `$extractor` an axum extractor that `$read(parts, rooms_state)` reads.
macro_rules! from_parts {
    ($extractor:ty, $read:path) => {
        impl<S: Send + Sync> FromRequestParts<S> for $extractor
        where
            RoomsState: FromRef<S>,
        {
            type Rejection = ApiError;

            async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
                $read(parts, &RoomsState::from_ref(state)).await
            }
        }
    };
}

/// The live rooms, once the database is ready.
pub struct Api(pub Arc<RoomApi>);
from_parts!(Api, Api::read);

impl Api {
    async fn read(_: &mut Parts, rooms: &RoomsState) -> Result<Api, ApiError> {
        Ok(Api(rooms.api()?))
    }
}

/// The room code of the path (`{code}`), normalised.
pub struct RoomCode(pub String);
from_parts!(RoomCode, RoomCode::read);

impl RoomCode {
    async fn read(parts: &mut Parts, _: &RoomsState) -> Result<RoomCode, ApiError> {
        let params = RawPathParams::from_request_parts(parts, &()).await;
        let raw = (params.ok())
            .and_then(|p| {
                p.iter()
                    .find(|(k, _)| *k == "code")
                    .map(|(_, v)| v.to_string())
            })
            .unwrap_or_default();
        Ok(RoomCode(store::code(&raw)?))
    }
}

/// The participant's token (`Authorization: Bearer`), counted against their rate limit.
pub struct Participant(pub String);
from_parts!(Participant, Participant::read);

impl Participant {
    async fn read(parts: &mut Parts, rooms: &RoomsState) -> Result<Participant, ApiError> {
        let token = bearer(parts);
        if let Some(token) = &token {
            rooms.api()?.limit(token)?;
        }
        let token = token.ok_or_else(|| {
            RoomError::Unauthorized(
                "join the room first: send your token as Authorization: Bearer".into(),
            )
        })?;
        Ok(Participant(token))
    }
}

/// The room of the path, as its facilitator (their secret as `Authorization: Bearer`); the
/// room is marked used.
pub struct Facilitator(pub Room);
from_parts!(Facilitator, Facilitator::read);

impl Facilitator {
    async fn read(parts: &mut Parts, rooms: &RoomsState) -> Result<Facilitator, ApiError> {
        let api = rooms.api()?;
        let RoomCode(code) = RoomCode::read(parts, rooms).await?;
        let secret = bearer(parts);
        let room = store::as_facilitator(&api.rooms.pool, &code, secret.as_deref()).await?;
        Ok(Facilitator(room))
    }
}

/// The bearer token of the request: at most 100 characters, none if empty.
fn bearer(parts: &Parts) -> Option<String> {
    let value = parts.headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty() && t.len() <= 100)
        .map(str::to_string)
}

/// A round number of the path (`{n}`): rounds count from 1.
pub fn round_number(raw: &str) -> Option<i32> {
    raw.parse().ok().filter(|n| *n >= 1)
}

/// A JSON body as `T` (an empty body as `{}`), or what is wrong with it.
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Body<T>, ApiError> {
        let headers = request.headers().clone();
        let body = Bytes::from_request(request, state).await.map_err(|e| {
            RoomError::invalid(
                "body",
                format!(
                    "the body could not be read ({}): send at most {} KB of JSON",
                    e.body_text(),
                    ROOM_BODY_LIMIT / 1024
                ),
            )
        })?;
        let read = |text: &[u8], what: &str| {
            serde_json::from_slice(text)
                .map(Body)
                .map_err(|e| RoomError::invalid("body", format!("{what}: {e}")).into())
        };
        if body.is_empty() {
            return read(b"{}", "this route needs a JSON body");
        }
        require_json(&headers)?;
        read(&body, "the body is not what this route takes")
    }
}
