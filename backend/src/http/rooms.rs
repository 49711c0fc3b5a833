//! The live rooms' API under `/api/rooms`: a facilitator creates a room and runs its rounds
//! (their secret as `Authorization: Bearer`), a participant joins, taps, pays and cancels (their
//! own token, never a name in a URL), every screen reads the state or streams it
//! (`rooms_events.rs`). Every body is JSON, every input checked with a message that names it,
//! every participant's requests rate-limited.

use std::num::NonZeroU32;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, HOST, RETRY_AFTER};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use super::headers::require_json;
use super::AppState;
use crate::room::attempt::{self, Kind};
use crate::room::settings::{self, seat_ids, Change, Settings};
use crate::room::{bots, rounds, schedule, state, store, RoomError, Rooms};

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
        .route("/api/rooms/{code}/rounds", post(start_round))
        .route("/api/rooms/{code}/finish", post(finish))
        .route("/api/rooms/{code}/reset", post(reset))
        .route("/api/rooms/{code}/settings", post(change_settings))
        .route("/api/rooms/{code}/bots", post(release_bots))
        .route("/api/rooms/{code}/rounds/{n}/schedule", get(round_schedule))
        .layer(axum::extract::DefaultBodyLimit::max(ROOM_BODY_LIMIT))
}

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

type Answer = Result<Response, Refused>;

fn room_api(state: &AppState) -> Result<Arc<RoomApi>, Refused> {
    state
        .readiness
        .check()
        .map_err(|r| super::ApiError::NotReady(r).into_response())?;
    Ok(state.room_api())
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty() && t.len() <= 100)
}

/// The JSON body as `T` (an empty body as `{}`), or what is wrong with it.
fn body<T: DeserializeOwned>(
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

fn ok(value: Value) -> Answer {
    Ok(Json(value).into_response())
}

fn code(raw: &str) -> Result<String, Refused> {
    Ok(store::code(raw)?)
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
    store::notify(api.rooms.pool(), &code).await;
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
    let pool = api.rooms.pool();
    let who = store::participant(pool, &code, token).await?;
    let room = store::load(pool, &code).await?;
    let kind = kind(&room)?;
    let reply = attempt::act(&api.rooms, &room, &who, kind).await?;
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
async fn start_round(
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
async fn finish(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    headers: HeaderMap,
) -> Answer {
    let (api, room) = facilitator(&state, &raw, &headers).await?;
    rounds::finish(&api.rooms, &room).await?;
    ok(json!({ "phase": "results" }))
}

/// `POST /api/rooms/{code}/reset` (facilitator): back to the lobby, every seat free.
async fn reset(
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
async fn change_settings(
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
async fn release_bots(
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
async fn round_schedule(
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
