//! Last Seat's server side: the executor that runs a schedule on a real PostgreSQL, the
//! replay that compares it with the simulator, the verification of every order of a schedule,
//! the HTTP API and the static page.
//!
//! `main.rs` only reads its configuration, connects and hands a bound listener to [`serve`].

pub mod claim;
pub mod db;
pub mod executor;
pub mod explore;
pub mod http;
pub mod innodb;
pub mod load;
pub mod replay;
pub mod room;
pub mod verify;
pub mod views;

pub use http::{router, serve, AppState};
