//! A run's connections: taken from the pool through its gate (one run at a time takes its
//! connections, all at once), the monitor (one of the pool's, or a ready schema's own), actor
//! connections not yet set up (closed, never handed back, if the set-up fails), and a ready
//! schema taken off the shelf and not used yet (put back if the run gets no further).

use std::sync::{Arc, Weak};

use futures::future::join_all;
use sqlx::pool::PoolConnection;
use sqlx::{PgConnection, PgPool, Postgres};

use super::ready::{self, Ready};

/// The gate through which a run takes its connections from `pool`: one run at a time per pool.
/// A run needs all of its connections at once; runs that each took some while waiting for the
/// rest could otherwise hold a shared pool between them until the pool's acquire timeout. The
/// runs that already have theirs always finish and give them back, so the run at the gate
/// always gets them.
fn gate(pool: &PgPool) -> Arc<tokio::sync::Mutex<()>> {
    type Gates = Vec<(usize, Weak<tokio::sync::Mutex<()>>)>;
    static GATES: std::sync::Mutex<Gates> = std::sync::Mutex::new(Vec::new());
    // The pool's options live as long as the pool (and a run keeps its pool alive).
    let key = std::ptr::from_ref(pool.options()) as usize;
    let mut gates = GATES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    gates.retain(|(_, gate)| gate.strong_count() > 0);
    if let Some(gate) = gates
        .iter()
        .find(|(k, _)| *k == key)
        .and_then(|(_, gate)| gate.upgrade())
    {
        return gate;
    }
    let gate = Arc::new(tokio::sync::Mutex::new(()));
    gates.push((key, Arc::downgrade(&gate)));
    gate
}

/// `n` connections of `pool`, taken through its gate; if the pool has not that many left to
/// open or hand out, idle ready schemas' actors' connections are closed to make room.
pub(super) async fn acquire(
    pool: &PgPool,
    n: usize,
) -> Vec<Result<PoolConnection<Postgres>, sqlx::Error>> {
    if n == 0 {
        return Vec::new();
    }
    let gate = gate(pool);
    let _turn = gate.lock().await;
    ready::make_room(pool, n);
    join_all((0..n).map(|_| pool.acquire())).await
}

/// A run's monitor: one of the pool's (for a schema made for the run), or a ready schema's own.
pub(crate) enum Monitor {
    Pool(PoolConnection<Postgres>),
    Own(PgConnection),
}

impl Monitor {
    pub fn conn(&mut self) -> &mut PgConnection {
        match self {
            Monitor::Pool(c) => c,
            Monitor::Own(c) => c,
        }
    }

    /// Closes it instead of handing it back: its state is unknown (a statement may be in
    /// flight, the run's lock is held). Closing ends its session, and frees the lock.
    pub fn discard(self) {
        if let Monitor::Pool(mut c) = self {
            c.close_on_drop();
        }
    }

    /// The connection, detached from the pool if it is one of the pool's.
    pub fn into_own(self) -> PgConnection {
        match self {
            Monitor::Pool(c) => c.detach(),
            Monitor::Own(c) => c,
        }
    }
}

/// Actor connections not yet owned by their tasks. Their settings may be half applied if the
/// set-up fails or is dropped half-way: then they are closed, never handed back to the pool.
pub(super) struct Unready(pub Vec<PoolConnection<Postgres>>);

impl Drop for Unready {
    fn drop(&mut self) {
        self.0.iter_mut().for_each(|c| c.close_on_drop());
    }
}

/// A ready schema taken off the shelf and not used yet: back on the shelf if the run does not
/// get as far as using it (its connections could not be had, or it was dropped meanwhile).
pub(super) struct Taken {
    pub pool: PgPool,
    pub ready: Option<Ready>,
}

impl Drop for Taken {
    fn drop(&mut self) {
        if let Some(ready) = self.ready.take() {
            if let Err(ready) = ready::put(&self.pool, ready, true) {
                ready::drop_ready(ready);
            }
        }
    }
}
