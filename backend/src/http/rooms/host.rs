//! The facilitator's room routes (their secret as `Authorization: Bearer`): start a round
//! after its countdown, finish, reset, change the next round's settings, release bots; and any
//! screen's read of a past round as a format v1 schedule.

use axum::extract::Path;
use axum::Json;
use shared::protocol::room::{
    Bots, Change, Phase, PhaseNow, Released, SettingsNow, Start, Started,
};

use super::extract::{round_number, Api, Body, Facilitator, RoomCode};
use crate::http::error::ApiError;
use crate::room::error::RoomError;
use crate::room::rounds::COUNTDOWN;
use crate::room::schedule::{self, RoundSchedule};
use crate::room::store;

/// `POST /api/rooms/{code}/rounds` (facilitator): the next round, after a 3-2-1 countdown.
pub async fn start_round(
    Api(api): Api,
    Facilitator(room): Facilitator,
    Body(Start { countdown_ms }): Body<Start>,
) -> Result<Json<Started>, ApiError> {
    let countdown = countdown_ms.unwrap_or(COUNTDOWN * 1000);
    if !(0..=10_000).contains(&countdown) {
        return Err(
            RoomError::invalid("countdown_ms", format!("{countdown} ms: use 0 to 10000")).into(),
        );
    }
    let round = api.rooms.rounds.start(&room, countdown).await?;
    let room = store::load(&api.rooms.pool, &room.code).await?;
    Ok(Json(Started {
        round,
        race_at_ms: room.race_at_ms,
        now_ms: room.now_ms,
    }))
}

/// `POST /api/rooms/{code}/finish` (facilitator): the race is over; results. And
/// `POST /api/rooms/{code}/reset`: back to the lobby, every seat free. `phase` says which.
pub async fn finish_or_reset(
    Api(api): Api,
    Facilitator(room): Facilitator,
    phase: Phase,
) -> Result<Json<PhaseNow>, ApiError> {
    let rounds = &api.rooms.rounds;
    match phase {
        Phase::Lobby => rounds.reset(&room).await?,
        _ => rounds.finish(&room).await?,
    }
    Ok(Json(PhaseNow { phase }))
}

/// `POST /api/rooms/{code}/settings` (facilitator): the defence, the gap, the hold, late or
/// duplicated payments, the show's size, for the next round.
pub async fn change_settings(
    Api(api): Api,
    Facilitator(room): Facilitator,
    Body(change): Body<Change>,
) -> Result<Json<SettingsNow>, ApiError> {
    let settings = api.rooms.rounds.change(&room, change).await?;
    Ok(Json(SettingsNow { settings }))
}

/// `POST /api/rooms/{code}/bots` `{"count": N}` (facilitator): N bots race at once.
pub async fn release_bots(
    Api(api): Api,
    Facilitator(room): Facilitator,
    Body(Bots { count }): Body<Bots>,
) -> Result<Json<Released>, ApiError> {
    let released = api.rooms.bots.release(&room, count).await?;
    Ok(Json(Released { released }))
}

/// `GET /api/rooms/{code}/rounds/{n}/schedule`: round n as a format v1 schedule, where its
/// statements overlapped, and what each entry answered live.
pub async fn round_schedule(
    Api(api): Api,
    RoomCode(code): RoomCode,
    Path((_, n)): Path<(String, String)>,
) -> Result<Json<RoundSchedule>, ApiError> {
    let n = round_number(&n).ok_or_else(|| {
        RoomError::invalid(
            "round",
            format!(
                "{:?} is not a round number: rounds count from 1",
                n.chars().take(16).collect::<String>()
            ),
        )
    })?;
    let room = store::load(&api.rooms.pool, &code).await?;
    Ok(Json(schedule::round(&api.rooms.pool, &room, n).await?))
}
