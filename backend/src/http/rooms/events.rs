//! `GET /api/rooms/{code}/events`: the room's state as server-sent events. The stream starts
//! with the whole state, read afresh, so that a phone that reconnects is in step at once; then
//! every change, as this process hears of it through PostgreSQL's NOTIFY (`room::live`), and a
//! `reconnecting` event (`{"message"}`) while the database is out of reach, followed by the
//! true state once it is back. Each event's bytes are written once (`live::Update::frame`) and
//! shared by every stream of the room, so a room with many screens costs one copy of its state
//! per change, not one per screen; a comment every 15 s keeps idle streams open.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use futures::stream::{self, StreamExt};
use tokio_stream::wrappers::WatchStream;

use super::extract::{Api, RoomCode};
use crate::http::error::ApiError;
use crate::room::live::Update;

/// How often an idle stream gets a comment, so that proxies and browsers keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

pub async fn events(Api(api): Api, RoomCode(code): RoomCode) -> Result<Response, ApiError> {
    let first = Update::state(&api.rooms.state.build(&code).await?);
    let changes = api.rooms.live.subscribe(&code, first.clone());
    // A `None` after the last update, so that the stream ends with the updates (the room is
    // gone from this process), not never for the comments.
    let updates = stream::once(async move { first })
        .chain(WatchStream::from_changes(changes))
        .map(|update| Some(update.frame.clone()))
        .chain(stream::once(async { None }));
    let comments = stream::unfold((), |()| async {
        tokio::time::sleep(KEEP_ALIVE).await;
        Some((Some(Bytes::from_static(b":\n\n")), ()))
    });
    let frames = stream::select(updates, comments)
        .take_while(|frame| std::future::ready(frame.is_some()))
        .filter_map(std::future::ready)
        .map(Ok::<_, Infallible>);
    Ok((
        [
            (CONTENT_TYPE, "text/event-stream"),
            (CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(frames),
    )
        .into_response())
}
