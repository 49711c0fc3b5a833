//! The facilitator's room routes (their secret as `Authorization: Bearer`): start a round
//! after its countdown, finish, reset, change the next round's settings, release bots; and any
//! screen's read of a past round as a format v1 schedule.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use serde::Deserialize;
use serde_json::json;

use super::rooms::RoomApi;
use super::rooms_io::{bearer, body, code, ok, room_api, Answer, Refused};
use super::AppState;
use crate::room::settings::Change;
use crate::room::{bots, rounds, schedule, store, RoomError};

async fn facilitator(
    state: &AppState,
    raw: &str,
    headers: &HeaderMap,
) -> Result<(Arc<RoomApi>, store::Room), Refused> {
    let api = room_api(state)?;
    let code = code(raw)?;
    let room = store::as_facilitator(api.rooms.pool(), &code, bearer(headers)).await?;
    Ok((api, room))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct StartBody {
    countdown_ms: Option<i64>,
}

/// `POST /api/rooms/{code}/rounds` (facilitator): the next round, after a 3-2-1 countdown.
pub async fn start_round(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    headers: HeaderMap,
    raw_body: Result<Bytes, BytesRejection>,
) -> Answer {
    let (api, room) = facilitator(&state, &raw, &headers).await?;
    let StartBody { countdown_ms } = body(&headers, raw_body)?;
    let countdown = countdown_ms.unwrap_or(rounds::COUNTDOWN * 1000);
    if !(0..=10_000).contains(&countdown) {
        return Err(Refused::from(RoomError::invalid(
            "countdown_ms",
            format!("{countdown} ms: use 0 to 10000"),
        )));
    }
    let round = rounds::start(&api.rooms, &room, countdown).await?;
    let room = store::load(api.rooms.pool(), &room.code).await?;
    ok(json!({ "round": round, "race_at_ms": room.race_at_ms, "now_ms": room.now_ms }))
}

/// `POST /api/rooms/{code}/finish` (facilitator): the race is over; results.
pub async fn finish(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    headers: HeaderMap,
) -> Answer {
    let (api, room) = facilitator(&state, &raw, &headers).await?;
    rounds::finish(&api.rooms, &room).await?;
    ok(json!({ "phase": "results" }))
}

/// `POST /api/rooms/{code}/reset` (facilitator): back to the lobby, every seat free.
pub async fn reset(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    headers: HeaderMap,
) -> Answer {
    let (api, room) = facilitator(&state, &raw, &headers).await?;
    rounds::reset(&api.rooms, &room).await?;
    ok(json!({ "phase": "lobby" }))
}

/// `POST /api/rooms/{code}/settings` (facilitator): the defence, the gap, the hold, late or
/// duplicated payments, the show's size, for the next round.
pub async fn change_settings(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    headers: HeaderMap,
    raw_body: Result<Bytes, BytesRejection>,
) -> Answer {
    let (api, room) = facilitator(&state, &raw, &headers).await?;
    let change: Change = body(&headers, raw_body)?;
    let settings = rounds::change(&api.rooms, &room, change).await?;
    ok(json!({ "settings": settings }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BotsBody {
    count: i64,
}

/// `POST /api/rooms/{code}/bots` `{"count": N}` (facilitator): N bots race at once.
pub async fn release_bots(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    headers: HeaderMap,
    raw_body: Result<Bytes, BytesRejection>,
) -> Answer {
    let (api, room) = facilitator(&state, &raw, &headers).await?;
    let BotsBody { count } = body(&headers, raw_body)?;
    let released = bots::release(&api.rooms, &room, count).await?;
    ok(json!({ "released": released }))
}

/// `GET /api/rooms/{code}/rounds/{n}/schedule`: round n as a format v1 schedule, where its
/// statements overlapped, and what each entry answered live.
pub async fn round_schedule(
    State(state): State<AppState>,
    Path((raw, n)): Path<(String, String)>,
) -> Answer {
    let api = room_api(&state)?;
    let code = code(&raw)?;
    let n: i32 = n.parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
        Refused::from(RoomError::invalid(
            "round",
            format!(
                "{:?} is not a round number: rounds count from 1",
                n.chars().take(16).collect::<String>()
            ),
        ))
    })?;
    let room = store::load(api.rooms.pool(), &code).await?;
    let round = schedule::round(api.rooms.pool(), &room, n).await?;
    ok(serde_json::to_value(round).unwrap_or_default())
}
