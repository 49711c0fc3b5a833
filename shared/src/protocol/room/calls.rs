//! The room routes' request bodies and answers, route by route: a room made, a participant
//! joined, a tap, a payment or a cancel answered, a round started, finished or reset, settings
//! changed, bots released, a finished round as the sandbox's link.

use serde::{Deserialize, Serialize};

use super::{Phase, Settings};
use crate::StepResult;

/// `POST /api/rooms`: the room made. The secret is the facilitator's, shown this once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Created {
    pub code: String,
    pub secret: String,
    pub join_url: String,
    pub facilitator_url: String,
    pub qr_svg: String,
    pub settings: Settings,
}

/// `POST /api/rooms/{code}/participants`: who joins.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Join {
    pub name: String,
}

/// A participant joined: their own token (sent back as `Authorization: Bearer`), number, name
/// and actor name (how the seat map names their seats).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Joined {
    pub token: String,
    pub n: i32,
    pub name: String,
    pub actor: String,
}

/// `POST /api/rooms/{code}/taps`: the seats tapped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tap {
    pub seats: Vec<String>,
}

/// The answer to a tap, a payment or a cancel: whether the phone holds its seats now, what it
/// says, and every operation carried out. A reader that shows only the words reads the steps as
/// `serde::de::IgnoredAny` (`Reply<IgnoredAny>`): the phone's bundle carries no reader of a
/// step's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reply<Steps = Vec<Step>> {
    pub holding: bool,
    pub message: String,
    pub steps: Steps,
}

/// One operation of a request as carried out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Its place in the participant's program this round.
    pub op_index: usize,
    /// The operation's name (`claim`, `pay`, …).
    pub name: String,
    /// The SQL (parameters written in) or the Redis command; none when nothing was sent.
    pub sent: Option<String>,
    pub result: StepResult,
    pub took_ms: f64,
}

/// `POST /api/rooms/{code}/rounds`: how long the countdown lasts (3 s if left out).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Start {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub countdown_ms: Option<i64>,
}

/// A round started: its number, and when its race opens on the server's clock.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Started {
    pub round: i32,
    pub race_at_ms: Option<i64>,
    pub now_ms: i64,
}

/// `…/finish` and `…/reset`: the phase the room is in now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseNow {
    pub phase: Phase,
}

/// `…/settings`: the settings the next round uses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingsNow {
    pub settings: Settings,
}

/// `POST /api/rooms/{code}/bots`: how many bots to release.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bots {
    pub count: i64,
}

/// The bots released.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Released {
    pub released: usize,
}

/// `GET /api/rooms/{code}/rounds/{n}/sandbox`: round n as the sandbox's address, its entries,
/// and the statements that were in flight at once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundLink {
    pub round: i32,
    pub path: String,
    pub entries: usize,
    pub overlaps: Vec<RoundOverlap>,
}

/// Two statements in flight at once: their entries in the order, their actors, in a sentence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundOverlap {
    pub entries: [usize; 2],
    pub actors: [String; 2],
    pub words: Option<String>,
}
