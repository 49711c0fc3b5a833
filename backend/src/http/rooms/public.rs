//! The room routes anyone may call: make a room, read its state, its join link as a QR code,
//! and join it (a participant's own token comes back, never a name in a URL).

use axum::http::header::{CONTENT_TYPE, HOST};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use shared::protocol::room::{Change, Created, Join, Joined, RoomState, Settings};

use super::extract::{Api, Body, RoomCode};
use crate::http::error::ApiError;
use crate::room::error::RoomError;
use crate::room::{participants, settings, store};

/// `POST /api/rooms`: a new room (any settings left out take their defaults); its code, the
/// facilitator's secret (shown once), the join and facilitator links and the QR code's address.
pub async fn create(
    Api(api): Api,
    headers: HeaderMap,
    Body(change): Body<Change>,
) -> Result<(StatusCode, Json<Created>), ApiError> {
    let settings = settings::apply(&Settings::default(), change)?;
    let (code, secret) = store::create(&api.rooms.pool, &settings).await?;
    let origin = origin(&headers);
    Ok((
        StatusCode::CREATED,
        Json(Created {
            join_url: format!("{origin}/room/{code}"),
            facilitator_url: format!("{origin}/room/{code}/host#{secret}"),
            qr_svg: format!("/api/rooms/{code}/qr.svg"),
            code,
            secret,
            settings,
        }),
    ))
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
pub async fn state(Api(api): Api, RoomCode(code): RoomCode) -> Result<Json<RoomState>, ApiError> {
    Ok(Json(api.rooms.state.build(&code).await?))
}

/// `GET /api/rooms/{code}/qr.svg`: the join link as a QR code.
pub async fn qr(
    Api(api): Api,
    RoomCode(code): RoomCode,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    store::load(&api.rooms.pool, &code).await?;
    let url = format!("{}/room/{code}", origin(&headers));
    let qr = qrcode::QrCode::new(url.as_bytes()).map_err(|e| RoomError::Internal(e.to_string()))?;
    let svg = qr
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(256, 256)
        .build();
    Ok(([(CONTENT_TYPE, "image/svg+xml")], svg).into_response())
}

/// `POST /api/rooms/{code}/participants` `{"name": …}`: joins; the participant's own token.
pub async fn join(
    Api(api): Api,
    RoomCode(code): RoomCode,
    Body(Join { name }): Body<Join>,
) -> Result<(StatusCode, Json<Joined>), ApiError> {
    let name = settings::name(&name)?;
    let pool = &api.rooms.pool;
    store::load(pool, &code).await?;
    let mut joined = participants::join(pool, &code, &[name], false).await?;
    let (p, token) = joined
        .pop()
        .ok_or_else(|| RoomError::Internal("nobody joined".into()))?;
    api.rooms.notifier.changed(&code);
    Ok((
        StatusCode::CREATED,
        Json(Joined {
            token,
            n: p.n,
            name: p.name,
            actor: p.actor,
        }),
    ))
}
