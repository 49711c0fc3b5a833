//! Live rooms: a workshop racing for real seats on the real database. A room lives in
//! PostgreSQL (`lastseat_rooms`, migration 0002); each round's seats in a booking schema of the
//! round's own, made from 0001 like a run's. A participant's tap runs the room's defence, the
//! program of `shared::Defence`, statement by statement from `shared::sql`, driven by the same
//! `shared::client::Clients` as the simulator, and every statement is recorded with when it was
//! sent and answered, so that the round becomes a schedule the model replays. What the screens
//! read and the requests send are `shared::protocol::room`'s types.
//!
//! By concept: `hub` (the parts put together, and the background tasks started), `error` (why a
//! request was refused), `settings` (what a facilitator chooses, validated), `store` (rooms and
//! tokens), `participants` (who joins), `booking` (the round's schema and its pool), `exec` (one
//! statement and its answer), `request` (a request as data), `attempt` (a tap, a payment, a
//! cancel),
//! `record` (what a request leaves behind), `recorder` (the records, batched), `batch` (one
//! statement for many requests), `redis` (the real Redis of the Redis hold), `state` (what
//! every screen shows), `live` (LISTEN/NOTIFY fan-out to the event streams), `notifier` (this
//! process's NOTIFYs, coalesced), `joined` (who joined, counted again only when someone did),
//! `phases` (where a request's time goes), `clock` (the round's clock), `rounds` (the
//! facilitator's controls), `ticker` (the clock moved, idle rooms swept), `bots`, `schedule` (a
//! round as a format v1 file). The imports run one way: `hub` uses every part, no part uses
//! `hub` (`scripts/module_cycles.py` lists any circle).

pub mod attempt;
pub mod batch;
pub mod booking;
pub mod bots;
pub mod clock;
pub mod error;
pub mod exec;
pub mod hub;
pub mod joined;
pub mod live;
pub mod notifier;
pub mod participants;
pub mod phases;
pub mod record;
pub mod recorder;
pub mod redis;
pub mod request;
pub mod rounds;
pub mod schedule;
pub mod settings;
pub mod state;
pub mod store;
pub mod ticker;
