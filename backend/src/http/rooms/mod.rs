//! The live rooms' API under `/api/rooms`: anyone makes a room, reads its state or streams it
//! (`public.rs`, `events.rs`); a participant joins, taps, pays and cancels with their own token
//! (`taps.rs`); the facilitator runs the rounds with the room's secret (`host.rs`); the pages
//! read the options and each finished round's way into the sandbox (`pages.rs`). `extract.rs`
//! reads what every handler takes from a request, `api.rs` holds the rooms; a refusal is
//! `http/error.rs`'s one envelope. These routes take only `RoomsState` from the server's state,
//! and nothing here names the rest of `http`'s handlers.

mod api;
mod events;
mod extract;
mod host;
mod pages;
mod public;
mod taps;

pub use api::{RoomApi, RoomsState};

use axum::extract::{DefaultBodyLimit, FromRef};
use axum::routing::{get, post};
use axum::Router;

use crate::room::request::Kind;
use extract::{Api, Facilitator, Participant, RoomCode};
use shared::protocol::room::Phase;

/// Every room route, on any server state the rooms' own can be taken from.
pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    RoomsState: FromRef<S>,
{
    let api = Router::new()
        .route("/api/rooms", post(public::create))
        .route("/api/rooms/{code}", get(public::state))
        .route("/api/rooms/{code}/events", get(events::events))
        .route("/api/rooms/{code}/qr.svg", get(public::qr))
        .route("/api/rooms/{code}/participants", post(public::join))
        .route("/api/rooms/{code}/taps", post(taps::tap))
        .route(
            "/api/rooms/{code}/pay",
            post(|a: Api, c: RoomCode, p: Participant| taps::pay_or_cancel(a, c, p, Kind::Pay)),
        )
        .route(
            "/api/rooms/{code}/cancel",
            post(|a: Api, c: RoomCode, p: Participant| taps::pay_or_cancel(a, c, p, Kind::Cancel)),
        )
        .route("/api/rooms/{code}/rounds", post(host::start_round))
        .route(
            "/api/rooms/{code}/finish",
            post(|a: Api, f: Facilitator| host::finish_or_reset(a, f, Phase::Results)),
        )
        .route(
            "/api/rooms/{code}/reset",
            post(|a: Api, f: Facilitator| host::finish_or_reset(a, f, Phase::Lobby)),
        )
        .route("/api/rooms/{code}/settings", post(host::change_settings))
        .route("/api/rooms/{code}/bots", post(host::release_bots))
        .route(
            "/api/rooms/{code}/rounds/{n}/schedule",
            get(host::round_schedule),
        )
        .layer(DefaultBodyLimit::max(extract::ROOM_BODY_LIMIT));
    // The pages' own calls, as before under no body limit of the rooms' (they take no body).
    let pages = Router::new()
        .route("/api/rooms/options", get(pages::options))
        .route("/api/rooms/{code}/rounds/{n}/sandbox", get(pages::sandbox));
    api.merge(pages)
}
