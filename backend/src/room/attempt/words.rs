//! What a participant's phone says after a request: `shared::view::reply`'s words, the
//! simulator's phone's own, from the round's defence and hold, whether they hold their seats
//! now, and what PostgreSQL (or Redis) answered.

use shared::outcome::StepResult;
use shared::view::{reply, Request};
use shared::Defence;

use crate::room::request::{Done, Kind};

/// What the phone says, in words.
pub(super) fn message(
    defence: Defence,
    hold_seconds: i32,
    kind: &Kind,
    holding: bool,
    done: &[Done],
) -> String {
    let request = match kind {
        Kind::Tap(seats) => Request::Tap {
            seats,
            defence,
            hold_seconds: hold_seconds.into(),
        },
        Kind::Pay => Request::Pay,
        Kind::Cancel => Request::Cancel,
    };
    let results: Vec<StepResult> = done.iter().map(|d| d.result.clone()).collect();
    reply(request, holding, &results)
}
