//! The state of a room as every screen reads it (`GET /api/rooms/{code}`, and each `state` event
//! of its stream): the phase and its clock, the settings, who joined, every seat, the scoreboard
//! and the feed of the latest requests.

use serde::{Deserialize, Serialize};

use super::Settings;

/// The whole state of a room.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoomState {
    pub code: String,
    /// The round being played or last played (0 before the first).
    pub round: i32,
    pub phase: Phase,
    /// When the round's race opens (after its countdown), on the server's clock: ms since the
    /// epoch.
    pub race_at_ms: Option<i64>,
    /// The server's clock when it read the state: ms since the epoch.
    pub now_ms: i64,
    /// The round's clock: whole seconds since its race opened.
    pub clock: i64,
    pub settings: Settings,
    /// Why the Redis hold cannot run now, under a defence that needs Redis.
    pub redis_unavailable: Option<String>,
    /// Bots of the server still racing.
    pub bots_racing: u64,
    pub participants: Participants,
    /// Every seat of a round of numbered seats (none in a general-admission round).
    pub seats: Vec<Seat>,
    /// The section's count in a general-admission round (none in a round of seats).
    #[serde(default)]
    pub counter: Option<Counter>,
    pub scoreboard: Scoreboard,
    /// The latest requests, newest first.
    pub feed: Vec<FeedRow>,
}

/// A round's phase, as the screens show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Lobby,
    /// Started, its race not open yet (the 3-2-1).
    Countdown,
    Race,
    Results,
}

/// Who joined: people and bots counted, and the first people's names.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Participants {
    pub people: u64,
    pub bots: u64,
    pub names: Vec<Named>,
}

/// A participant by number and display name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Named {
    pub n: i32,
    pub name: String,
}

/// One seat of the show.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    pub id: String,
    pub status: SeatStatus,
    /// The holder's display name.
    pub holder: Option<String>,
    /// The holder's actor name: a phone knows its own seats by it (names may repeat).
    pub actor: Option<String>,
    /// The hold's deadline, in seconds of the round's clock.
    pub until: Option<i64>,
    /// Whether a ticket was issued for it.
    pub ticket: bool,
}

impl Seat {
    /// A seat nobody has touched.
    pub fn available(id: String) -> Seat {
        Seat {
            id,
            status: SeatStatus::Available,
            holder: None,
            actor: None,
            until: None,
            ticket: false,
        }
    }

    /// Whether a tap could take it now: free, or held past its deadline.
    pub fn free(&self) -> bool {
        matches!(self.status, SeatStatus::Available | SeatStatus::Expired) && !self.ticket
    }
}

/// A seat's row as the screens see it (`EXPIRED`: held, and its hold has run out on the
/// server's clock: free for anyone to take).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SeatStatus {
    Available,
    Held,
    Expired,
    Booked,
}

impl SeatStatus {
    /// The word, as the seats table and the wire spell it (`AVAILABLE`).
    pub fn word(self) -> &'static str {
        match self {
            SeatStatus::Available => "AVAILABLE",
            SeatStatus::Held => "HELD",
            SeatStatus::Expired => "EXPIRED",
            SeatStatus::Booked => "BOOKED",
        }
    }

    /// The status spelled `word`, or `None`.
    pub fn parse(word: &str) -> Option<SeatStatus> {
        [
            SeatStatus::Available,
            SeatStatus::Held,
            SeatStatus::Expired,
            SeatStatus::Booked,
        ]
        .into_iter()
        .find(|s| s.word() == word)
    }
}

/// A general-admission round's section: one row counting the tickets left, and what the
/// buyers were told. `left` is the row as PostgreSQL holds it: a decrement sent after a stale
/// check takes it below zero. `sold` counts the buyers told they got a ticket; `oversold` those
/// told so beyond the `tickets` there were ("103 sold of 100": 3 oversold).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counter {
    /// The section's key (`sections.section_id`).
    pub section: String,
    pub tickets: i32,
    pub left: i64,
    pub sold: u64,
    pub oversold: u64,
}

impl Counter {
    /// Whether a buyer could still be told yes by a correct defence: a ticket is left.
    pub fn sold_out(&self) -> bool {
        self.left <= 0
    }
}

/// What the round's race came to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scoreboard {
    pub sold: u64,
    /// Seats two participants were told at once that they have.
    pub double_bookings: u64,
    /// Tickets the unique key refused.
    pub unique_refusals: u64,
    pub refunds_owed: u64,
    /// Holds that ran out and were never released.
    pub holds_never_released: u64,
}

/// One request of the feed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeedRow {
    /// The participant's display name (their actor name if they have none: the clock).
    pub who: String,
    /// The operation's name (`claim`, `pay`, …).
    pub op: String,
    /// The SQL sent, parameters written in, or the Redis command; none when nothing was sent.
    pub sql: Option<String>,
    /// What PostgreSQL (or Redis) answered, in the outcome's short form (`ok:1`, `error:55P03`).
    pub answer: String,
    /// How long it took, in milliseconds to a tenth.
    pub waited_ms: f64,
}
