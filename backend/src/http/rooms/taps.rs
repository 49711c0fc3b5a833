//! A participant's requests (their own token as `Authorization: Bearer`, rate-limited): a tap
//! on seats (or, in a general-admission round, for one ticket), a payment, a cancel; each
//! answered with the phone's words and every step.

use axum::Json;
use shared::protocol::room::{Reply, Tap};

use super::extract::{Api, Body, Participant, RoomCode};
use crate::http::error::ApiError;
use crate::room::error::RoomError;
use crate::room::request::Kind;
use crate::room::settings::{seat_ids, SECTION};
use crate::room::store::Room;

/// The most seats one tap may take at once.
pub const MAX_TAP_SEATS: usize = 4;

/// `POST /api/rooms/{code}/taps` `{"seats": ["A7"]}`: the defence's program for these seats, up
/// to its payment. In a general-admission round `{"seats": []}` asks for one ticket.
pub async fn tap(
    Api(api): Api,
    RoomCode(code): RoomCode,
    Participant(token): Participant,
    Body(Tap { seats }): Body<Tap>,
) -> Result<Json<Reply>, ApiError> {
    let attempts = &api.rooms.attempts;
    let reply = attempts
        .act_by_token(&code, &token, move |room| tapped(room, seats))
        .await?;
    Ok(Json(reply))
}

/// A tap on `seats`, checked against `room`'s show: sorted, each named once. In a
/// general-admission round, a tap asks for one ticket of the section and names no seat.
fn tapped(room: &Room, seats: Vec<String>) -> Result<Kind, RoomError> {
    if room.played.kind.is_counter() {
        return if seats.is_empty() || seats == [SECTION] {
            Ok(Kind::Tap(vec![SECTION.to_string()]))
        } else {
            Err(RoomError::invalid(
                "seats",
                "this round sells general admission, without numbered seats: send \"seats\": [] to ask for one ticket",
            ))
        };
    }
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
}

/// `POST /api/rooms/{code}/pay` (the payment, then its confirm or the ticket) and `…/cancel`
/// (leaves the flow, releasing the hold): `kind` says which (`routes`).
pub async fn pay_or_cancel(
    Api(api): Api,
    RoomCode(code): RoomCode,
    Participant(token): Participant,
    kind: Kind,
) -> Result<Json<Reply>, ApiError> {
    let attempts = &api.rooms.attempts;
    Ok(Json(
        attempts.act_by_token(&code, &token, |_| Ok(kind)).await?,
    ))
}
