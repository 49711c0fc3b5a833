//! `GET /api/rooms/{code}/events`: the room's state as server-sent events. The stream starts
//! with the whole state, read afresh, so that a phone that reconnects is in step at once; then
//! every change, as this process hears of it through PostgreSQL's NOTIFY (`room::live`), and a
//! `reconnecting` event (`{"message"}`) while the database is out of reach, followed by the
//! true state once it is back.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::IntoResponse;
use futures::stream::{self, Stream, StreamExt};
use tokio_stream::wrappers::WatchStream;

use super::AppState;
use crate::room::live::Update;
use crate::room::{state, store};

pub async fn events(
    State(app): State<AppState>,
    Path(raw): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, super::rooms_io::Refused> {
    app.readiness
        .check()
        .map_err(|r| super::ApiError::NotReady(r).into_response())?;
    let api = app.room_api();
    let code = store::code(&raw)?;
    let first = Update::state(state::build(&api.rooms, &code).await?.to_string());
    let changes = api.rooms.inner().live.subscribe(&code, first.clone());
    let stream = stream::once(async move { first })
        .chain(WatchStream::from_changes(changes))
        .map(|update| Ok(Event::default().event(update.event).data(&update.data)));
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}
