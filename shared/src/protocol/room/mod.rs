//! The live room's protocol (`/api/rooms…`): the state every screen shows (`state.rs`), the
//! settings a facilitator chooses and the options they choose from (`settings.rs`), and every
//! request body and answer of the room's routes (`calls.rs`). The JSON is the one README's
//! "A live room" documents; `tests.rs` holds the wire to it.

mod calls;
mod settings;
mod state;

pub use calls::{
    Bots, Created, Join, Joined, PhaseNow, Released, Reply, RoundLink, RoundOverlap, SettingsNow,
    Start, Started, Step, Tap,
};
pub use settings::{Change, DefenceOption, Limits, Options, Settings, DEFAULT_TICKETS};
pub use state::{
    Counter, FeedRow, Named, Participants, Phase, RoomState, Scoreboard, Seat, SeatStatus,
};

#[cfg(test)]
mod tests;
