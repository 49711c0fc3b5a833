//! What the live room's pages ask for beside the room API (`rooms.rs`): the choices a
//! facilitator has before a room exists (`GET /api/rooms/options`: every defence a room offers,
//! with the Redis one marked unavailable and why, and the bounds of every setting), and a
//! finished round as a link into the sandbox (`GET /api/rooms/{code}/rounds/{n}/sandbox`: the
//! round's schedule in `shared::link`'s token, checked the way the page will open it, and the
//! statements that were in flight at once).

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};
use shared::link::{self, View};
use shared::schedule::Op;
use shared::{defences, Schedule};

use super::rooms::MAX_TAP_SEATS;
use super::rooms_io::{room_api, Refused};
use super::AppState;
use crate::room::settings::{self, Settings, ROOM_DEFENCES};
use crate::room::{bots, schedule, store, RoomError};

/// The built-in scenario a round's link names: the sandbox's own. The round's schedule goes in
/// the link whole, so this is only the sandbox's starting point.
const SANDBOX_SCENARIO: &str = "ch5-three-buyers";

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/rooms/options", get(options))
        .route("/api/rooms/{code}/rounds/{n}/sandbox", get(sandbox))
}

/// Whether defence `name` holds the seat first and books when the participant pays: its
/// program has a payment (the server splits a tap from a payment there).
fn pays(name: &str) -> bool {
    defences::program(name, &["A1".to_string()])
        .is_some_and(|(ops, _)| ops.iter().any(|op| matches!(op, Op::Pay { .. })))
}

/// `GET /api/rooms/options`: every defence a room offers (its summary, whether it takes a
/// payment, and why it is unavailable if it is), the defaults and the bounds.
async fn options(State(state): State<AppState>) -> Result<Response, Refused> {
    let api = room_api(&state)?;
    let redis = api.rooms.inner().redis.check().await.err();
    let offered: Vec<Value> = ROOM_DEFENCES
        .iter()
        .map(|&name| {
            json!({
                "name": name,
                "summary": defences::summary(name),
                "pays": pays(name),
                "unavailable": if name.starts_with("redis") { redis.clone() } else { None },
            })
        })
        .collect();
    Ok(Json(json!({
        "defences": offered,
        "defaults": Settings::default(),
        "limits": {
            "seats": settings::MAX_SEATS,
            "gap_ms": settings::MAX_GAP_MS,
            "hold_seconds": settings::MAX_HOLD_SECONDS,
            "bots": bots::MAX_BOTS,
            "tap_seats": MAX_TAP_SEATS,
            "name": settings::MAX_NAME,
        },
    }))
    .into_response())
}

/// `GET /api/rooms/{code}/rounds/{n}/sandbox`: round n as the sandbox's address, and where its
/// statements overlapped (each with its entries, its actors and the sentence that says so).
async fn sandbox(
    State(state): State<AppState>,
    Path((raw, n)): Path<(String, String)>,
) -> Result<Response, Refused> {
    let api = room_api(&state)?;
    let code = store::code(&raw)?;
    let n: i32 = n.parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
        Refused::from(RoomError::invalid(
            "round",
            "that is not a round number: rounds count from 1",
        ))
    })?;
    let room = store::load(api.rooms.pool(), &code).await?;
    let round = schedule::round(api.rooms.pool(), &room, n).await?;
    let (path, parsed) = sandbox_path(&round.schedule)?;
    let overlaps: Vec<Value> = round
        .overlaps
        .iter()
        .map(|o| {
            json!({
                "entries": o.entries,
                "actors": o.actors,
                "words": shared::explain::overlap_line(&parsed, o.entries),
            })
        })
        .collect();
    Ok(Json(json!({
        "round": n,
        "path": path,
        "entries": parsed.order().len(),
        "overlaps": overlaps,
    }))
    .into_response())
}

/// The sandbox's address for `file`, and the file parsed; refused, saying why, when the link
/// would not open (a round the model cannot run as it was sent).
fn sandbox_path(file: &shared::schedule::ScheduleFile) -> Result<(String, Schedule), RoomError> {
    let cannot = |why: String| {
        RoomError::invalid(
            "round",
            format!("this round cannot open in the simulator: {why}"),
        )
    };
    let parsed = Schedule::parse(file.clone()).map_err(|e| cannot(e.to_string()))?;
    let view = View::of(
        link::SANDBOX,
        SANDBOX_SCENARIO,
        None,
        &parsed,
        parsed.order().len(),
    );
    let token = link::encode(&view);
    // Open it as the page will, so that a link we hand out always opens.
    link::decode(&token)
        .and_then(|v| v.schedule())
        .map_err(|e| cannot(e.to_string()))?;
    Ok((format!("/chapter/{}?s={token}", link::SANDBOX), parsed))
}
