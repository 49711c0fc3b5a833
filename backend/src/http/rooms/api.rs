//! The live rooms as the HTTP side holds them: started on the first room request (their
//! listener, clock and batches are tasks of their own), behind the check that the database is
//! ready, with each participant's rate limit.

use std::num::NonZeroU32;
use std::sync::{Arc, OnceLock};

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::db::Readiness;
use crate::http::error::ApiError;
use crate::room::error::RoomError;
use crate::room::hub::Rooms;
use crate::room::store;

/// The rooms and the per-participant rate limit.
pub struct RoomApi {
    pub rooms: Rooms,
    limiter: DefaultKeyedRateLimiter<Vec<u8>>,
}

impl RoomApi {
    fn new(pool: sqlx::PgPool) -> RoomApi {
        let quota = Quota::per_second(NonZeroU32::new(10).expect("10"))
            .allow_burst(NonZeroU32::new(20).expect("20"));
        RoomApi {
            rooms: Rooms::new(pool),
            limiter: RateLimiter::keyed(quota),
        }
    }

    /// Counts a request of the participant whose token is `token`: refused past 10 a second
    /// (a burst of 20).
    pub fn limit(&self, token: &str) -> Result<(), RoomError> {
        // The limiter keeps a cell per token it has seen: forget the quiet ones now and then.
        if self.limiter.len() > 10_000 {
            self.limiter.retain_recent();
        }
        self.limiter.check_key(&store::hash(token)).map_err(|_| {
            RoomError::TooMany(
                "at most 10 requests a second per participant: wait a moment and tap again".into(),
            )
        })
    }
}

/// What the room routes take from the server's state (`axum::extract::FromRef`): the database's
/// readiness and pool, and the rooms once started.
#[derive(Clone)]
pub struct RoomsState {
    pub readiness: Readiness,
    pub pool: sqlx::PgPool,
    pub started: Arc<OnceLock<Arc<RoomApi>>>,
}

impl RoomsState {
    /// The rooms, started on first use; a 503 saying why while the database is not ready.
    pub fn api(&self) -> Result<Arc<RoomApi>, ApiError> {
        self.readiness.check().map_err(ApiError::NotReady)?;
        Ok(self
            .started
            .get_or_init(|| Arc::new(RoomApi::new(self.pool.clone())))
            .clone())
    }
}
