//! The live rooms' API under `/api/rooms`: anyone creates a room, a participant joins, taps,
//! pays and cancels (their own token, never a name in a URL), every screen reads the state or
//! streams it (`rooms_events.rs`); the facilitator's routes are `rooms_host.rs`, the errors and
//! the reading of requests `rooms_io.rs`. Every body is JSON, every input checked with a message
//! that names it, every participant's requests rate-limited.

use std::num::NonZeroU32;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::header::{CONTENT_TYPE, HOST};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde::Deserialize;
use serde_json::json;

use super::rooms_host as host;
use super::rooms_io::{bearer, body, code, ok, room_api, Answer, Refused};
use super::AppState;
use crate::room::attempt::{self, Kind};
use crate::room::settings::{self, seat_ids, Change, Settings};
use crate::room::{state, store, RoomError, Rooms};

/// The largest body a room route takes.
pub const ROOM_BODY_LIMIT: usize = 4 * 1024;
/// The most seats one tap may take at once.
pub const MAX_TAP_SEATS: usize = 4;

/// The rooms and the per-participant rate limit.
pub struct RoomApi {
    pub rooms: Rooms,
    limiter: DefaultKeyedRateLimiter<Vec<u8>>,
}

impl RoomApi {
    pub fn new(pool: sqlx::PgPool) -> RoomApi {
        let quota = Quota::per_second(NonZeroU32::new(10).expect("10"))
            .allow_burst(NonZeroU32::new(20).expect("20"));
        RoomApi {
            rooms: Rooms::new(pool),
            limiter: RateLimiter::keyed(quota),
        }
    }

    fn limit(&self, token: &str) -> Result<(), RoomError> {
        // The limiter keeps a cell per token it has seen: forget the quiet ones now and then.
        if self.limiter.len() > 10_000 {
            self.limiter.retain_recent();
        }
        self.limiter.check_key(&store::hash(token)).map_err(|_| {
            RoomError::TooMany(
                "at most 10 requests a second per participant: wait a moment and tap again".into(),
            )
        })
    }
}

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/rooms", post(create))
        .route("/api/rooms/{code}", get(read_state))
        .route("/api/rooms/{code}/events", get(super::rooms_events::events))
        .route("/api/rooms/{code}/qr.svg", get(qr))
        .route("/api/rooms/{code}/participants", post(join))
        .route("/api/rooms/{code}/taps", post(tap))
        .route("/api/rooms/{code}/pay", post(pay))
        .route("/api/rooms/{code}/cancel", post(cancel))
        .route("/api/rooms/{code}/rounds", post(host::start_round))
        .route("/api/rooms/{code}/finish", post(host::finish))
        .route("/api/rooms/{code}/reset", post(host::reset))
        .route("/api/rooms/{code}/settings", post(host::change_settings))
        .route("/api/rooms/{code}/bots", post(host::release_bots))
        .route(
            "/api/rooms/{code}/rounds/{n}/schedule",
            get(host::round_schedule),
        )
        .layer(axum::extract::DefaultBodyLimit::max(ROOM_BODY_LIMIT))
}

/// `POST /api/rooms`: a new room (any settings left out take their defaults); its code, the
/// facilitator's secret (shown once), the join and facilitator links and the QR code's address.
async fn create(
    State(state): State<AppState>,
    headers: HeaderMap,
    raw: Result<Bytes, BytesRejection>,
) -> Answer {
    let api = room_api(&state)?;
    let change: Change = body(&headers, raw)?;
    let settings = Settings::default().with(change)?;
    let (code, secret) = store::create(api.rooms.pool(), &settings).await?;
    let join = format!("{}/room/{code}", origin(&headers));
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "code": code,
            "secret": secret,
            "join_url": join,
            "facilitator_url": format!("{}/room/{code}/host#{secret}", origin(&headers)),
            "qr_svg": format!("/api/rooms/{code}/qr.svg"),
            "settings": settings,
        })),
    )
        .into_response())
}

/// The origin the request was made to, as links to give people (a host that is not a plain
/// host name or address is replaced by localhost).
fn origin(headers: &HeaderMap) -> String {
    let host = headers
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    let plain = !host.is_empty()
        && host.len() <= 255
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c));
    format!("http://{}", if plain { host } else { "localhost" })
}

/// `GET /api/rooms/{code}`: the room's whole state.
async fn read_state(State(state): State<AppState>, Path(raw): Path<String>) -> Answer {
    let api = room_api(&state)?;
    let code = code(&raw)?;
    ok(state::build(&api.rooms, &code).await?)
}

/// `GET /api/rooms/{code}/qr.svg`: the join link as a QR code.
async fn qr(State(state): State<AppState>, Path(raw): Path<String>, headers: HeaderMap) -> Answer {
    let api = room_api(&state)?;
    let code = code(&raw)?;
    store::load(api.rooms.pool(), &code).await?;
    let url = format!("{}/room/{code}", origin(&headers));
    let qr = qrcode::QrCode::new(url.as_bytes())
        .map_err(|e| Refused::from(RoomError::Internal(e.to_string())))?;
    let svg = qr
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(256, 256)
        .build();
    Ok(([(CONTENT_TYPE, "image/svg+xml")], svg).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JoinBody {
    name: String,
}

/// `POST /api/rooms/{code}/participants` `{"name": …}`: joins; the participant's own token.
async fn join(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    headers: HeaderMap,
    raw_body: Result<Bytes, BytesRejection>,
) -> Answer {
    let api = room_api(&state)?;
    let code = code(&raw)?;
    let JoinBody { name } = body(&headers, raw_body)?;
    let name = settings::name(&name)?;
    store::load(api.rooms.pool(), &code).await?;
    let mut joined = store::join(api.rooms.pool(), &code, &[name], false).await?;
    let (p, token) = joined
        .pop()
        .ok_or_else(|| Refused::from(RoomError::Internal("nobody joined".into())))?;
    api.rooms.changed(&code);
    Ok((
        StatusCode::CREATED,
        Json(json!({ "token": token, "n": p.n, "name": p.name, "actor": p.actor })),
    )
        .into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TapBody {
    seats: Vec<String>,
}

async fn act(
    state: AppState,
    raw: String,
    headers: &HeaderMap,
    kind: impl FnOnce(&store::Room) -> Result<Kind, RoomError>,
) -> Answer {
    let api = room_api(&state)?;
    let code = code(&raw)?;
    let token = bearer(headers);
    if let Some(token) = token {
        api.limit(token)?;
    }
    let token = token.ok_or_else(|| {
        RoomError::Unauthorized(
            "join the room first: send your token as Authorization: Bearer".into(),
        )
    })?;
    let reply = attempt::act_by_token(&api.rooms, &code, token, kind).await?;
    ok(serde_json::to_value(reply).unwrap_or_default())
}

/// `POST /api/rooms/{code}/taps` `{"seats": ["A7"]}`: the defence's program for these seats, up
/// to its payment.
async fn tap(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    headers: HeaderMap,
    raw_body: Result<Bytes, BytesRejection>,
) -> Answer {
    let TapBody { seats } = body(&headers, raw_body)?;
    act(state, raw, &headers, move |room| {
        let all = seat_ids(room.settings.seats);
        if seats.is_empty() || seats.len() > MAX_TAP_SEATS {
            return Err(RoomError::invalid(
                "seats",
                format!("tap 1 to {MAX_TAP_SEATS} seats, not {}", seats.len()),
            ));
        }
        let mut sorted = seats.clone();
        sorted.sort();
        sorted.dedup();
        if sorted.len() != seats.len() {
            return Err(RoomError::invalid("seats", "a seat is named twice"));
        }
        if let Some(s) = seats.iter().find(|s| !all.contains(s)) {
            return Err(RoomError::invalid(
                "seats",
                format!(
                    "{:?} is not a seat of this show: seats run from {} to {}",
                    s.chars().take(16).collect::<String>(),
                    all[0],
                    all[all.len() - 1]
                ),
            ));
        }
        Ok(Kind::Tap(sorted))
    })
    .await
}

/// `POST /api/rooms/{code}/pay`: the payment, then its confirm (or the ticket).
async fn pay(State(state): State<AppState>, Path(raw): Path<String>, headers: HeaderMap) -> Answer {
    act(state, raw, &headers, |_| Ok(Kind::Pay)).await
}

/// `POST /api/rooms/{code}/cancel`: leaves the flow, releasing the hold.
async fn cancel(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    headers: HeaderMap,
) -> Answer {
    act(state, raw, &headers, |_| Ok(Kind::Cancel)).await
}
