//! What the live room's pages ask for beside the room API: the choices a facilitator has
//! before a room exists (`GET /api/rooms/options[?kind=general_admission]`: every defence a room
//! offers, in words, with the Redis one marked unavailable and why, and, for the kind of round
//! asked about, those that do not fit it and why; and the bounds of every setting), and a finished
//! round as a link into the sandbox (`GET /api/rooms/{code}/rounds/{n}/sandbox`: the round's
//! schedule in `shared::link`'s token, checked the way the page will open it, and the
//! statements that were in flight at once).

use axum::extract::{Path, RawQuery};
use axum::Json;
use shared::link::{self, View};
use shared::protocol::room::{DefenceOption, Limits, Options, RoundLink, RoundOverlap, Settings};
use shared::Schedule;

use super::extract::{round_number, Api, RoomCode};
use super::taps::MAX_TAP_SEATS;
use crate::http::error::ApiError;
use crate::room::bots::MAX_BOTS;
use crate::room::error::RoomError;
use crate::room::settings::{self, ROOM_DEFENCES};
use crate::room::{schedule, store};

/// The built-in scenario a round's link names: the sandbox's own. The round's schedule goes in
/// the link whole, so this is only the sandbox's starting point.
const SANDBOX_SCENARIO: &str = "ch5-three-buyers";

/// `GET /api/rooms/options`: every defence a room offers (its title, summary, whether it takes
/// a payment, and why it is unavailable if it is: Redis away, or, with `?kind=`, a defence that
/// does not fit that kind of round), the defaults and the bounds.
pub async fn options(Api(api): Api, RawQuery(query): RawQuery) -> Result<Json<Options>, ApiError> {
    let kind = settings::kind_of_query(query.as_deref())?;
    let redis = api.rooms.redis.check().await.err();
    let defences = ROOM_DEFENCES
        .iter()
        .map(|&name| DefenceOption {
            name,
            unavailable: settings::unfit(name, kind)
                .or_else(|| name.needs_redis().then(|| redis.clone()).flatten()),
        })
        .collect();
    Ok(Json(Options {
        defences,
        defaults: Settings::default(),
        limits: Limits {
            seats: settings::MAX_SEATS,
            tickets: settings::MAX_TICKETS,
            gap_ms: settings::MAX_GAP_MS,
            hold_seconds: settings::MAX_HOLD_SECONDS,
            bots: MAX_BOTS,
            tap_seats: MAX_TAP_SEATS,
            name: settings::MAX_NAME,
        },
    }))
}

/// `GET /api/rooms/{code}/rounds/{n}/sandbox`: round n as the sandbox's address, and where its
/// statements overlapped (each with its entries, its actors and the sentence that says so).
pub async fn sandbox(
    Api(api): Api,
    RoomCode(code): RoomCode,
    Path((_, n)): Path<(String, String)>,
) -> Result<Json<RoundLink>, ApiError> {
    let n = round_number(&n).ok_or_else(|| {
        RoomError::invalid("round", "that is not a round number: rounds count from 1")
    })?;
    let room = store::load(&api.rooms.pool, &code).await?;
    let round = schedule::round(&api.rooms.pool, &room, n).await?;
    let (path, parsed) = sandbox_path(&round.schedule)?;
    let overlaps = round
        .overlaps
        .iter()
        .map(|o| RoundOverlap {
            entries: o.entries,
            actors: o.actors.clone(),
            words: shared::explain::overlap_line(&parsed, o.entries),
        })
        .collect();
    Ok(Json(RoundLink {
        round: n,
        path,
        entries: parsed.order().len(),
        overlaps,
    }))
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
