//! Live updates: every change to a room is a `NOTIFY` on one channel, so that every backend
//! process serving the room hears of it; each process rebuilds the room's state as soon as it
//! hears of a change (at most every `COALESCE`) and hands it to its own event streams. A
//! listener that lost its connection (a restart) tells every stream that it is reconnecting (a
//! `reconnecting` event the screens show), reconnects, and then rebuilds every room it serves,
//! since it may have missed some; a rebuild that fails is tried again until it succeeds, so the
//! screens get the true state.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use futures::future::join_all;
use shared::protocol::room::RoomState;
use sqlx::postgres::PgListener;
use tokio::sync::watch;

use super::error::RoomError;
use super::state::Reader;
use crate::db::Fault;

/// The channel every room's changes are notified on (the payload is the room's code).
pub const CHANNEL: &str = "lastseat_rooms";
/// How often a room's state is rebuilt at most, per process: a change is rebuilt as soon as it
/// is heard of (or made here), and changes heard meanwhile wait for the next rebuild, which
/// starts at most this long after the start of the last one.
const COALESCE: Duration = Duration::from_millis(20);
/// How long a rebuild that failed (the database is away) waits before it is tried again.
const RETRY: Duration = Duration::from_millis(200);

/// What the screens hear while the database is out of reach.
pub const RECONNECTING: &str = "the connection to the database was lost: reconnecting; \
     the seats shown may be out of date until it is back";

/// One event of a room's stream: its name (`state`, `reconnecting`) and its JSON data, and the
/// server-sent event's bytes, written once for every stream that sends it.
#[derive(Debug)]
pub struct Update {
    pub event: &'static str,
    pub data: String,
    pub frame: Bytes,
}

impl Update {
    fn new(event: &'static str, data: String) -> Arc<Update> {
        let mut frame = format!("event: {event}\n");
        for line in data.lines() {
            frame.push_str("data: ");
            frame.push_str(line);
            frame.push('\n');
        }
        frame.push('\n');
        Arc::new(Update {
            event,
            data,
            frame: Bytes::from(frame),
        })
    }

    /// A `state` event: the room's whole state.
    pub fn state(state: &RoomState) -> Arc<Update> {
        // Strings, numbers and flags: nothing in it can fail to serialise.
        let data = serde_json::to_string(state).expect("a room's state as JSON");
        Update::new("state", data)
    }

    fn reconnecting() -> Arc<Update> {
        Update::new(
            "reconnecting",
            serde_json::json!({ "message": RECONNECTING }).to_string(),
        )
    }
}

/// The latest event of each room that has event streams in this process.
#[derive(Default)]
pub struct Live {
    rooms: Mutex<HashMap<String, Watched>>,
    /// Wakes the builder when a room is marked (a permit is kept if it is busy).
    wake: tokio::sync::Notify,
}

struct Watched {
    tx: watch::Sender<Arc<Update>>,
    dirty: bool,
}

impl Live {
    /// Streams `code`'s state: the receiver starts with `first`.
    pub fn subscribe(&self, code: &str, first: Arc<Update>) -> watch::Receiver<Arc<Update>> {
        let mut rooms = self.rooms.lock().expect("live lock");
        let w = rooms.entry(code.to_string()).or_insert_with(|| Watched {
            tx: watch::channel(first.clone()).0,
            dirty: false,
        });
        w.tx.subscribe()
    }

    /// Tells the streams of `code` (or of every room) that the database is out of reach, and
    /// marks them for a rebuild.
    fn reconnecting(&self, code: Option<&str>) {
        let mut rooms = self.rooms.lock().expect("live lock");
        for (c, w) in rooms.iter_mut() {
            if code.is_none_or(|code| code == c) {
                if w.tx.borrow().event != "reconnecting" {
                    w.tx.send_replace(Update::reconnecting());
                }
                w.dirty = true;
            }
        }
        self.wake.notify_one();
    }

    /// Marks the streams of `code` in this process for a rebuild: a change this process made
    /// (`recorder.rs`), without waiting for its NOTIFY to come back.
    pub fn changed(&self, code: &str) {
        let mut rooms = self.rooms.lock().expect("live lock");
        if let Some(w) = rooms.get_mut(code) {
            w.dirty = true;
            self.wake.notify_one();
        }
    }

    fn mark(&self, code: Option<&str>) {
        let mut rooms = self.rooms.lock().expect("live lock");
        for (c, w) in rooms.iter_mut() {
            if code.is_none_or(|code| code == c) {
                w.dirty = true;
            }
        }
        self.wake.notify_one();
    }

    /// The rooms to rebuild now; forgets those nobody streams any more.
    fn take_dirty(&self) -> Vec<String> {
        let mut rooms = self.rooms.lock().expect("live lock");
        rooms.retain(|_, w| w.tx.receiver_count() > 0);
        rooms
            .iter_mut()
            .filter_map(|(c, w)| std::mem::take(&mut w.dirty).then(|| c.clone()))
            .collect()
    }

    fn publish(&self, code: &str, state: Arc<Update>) {
        if let Some(w) = self.rooms.lock().expect("live lock").get(code) {
            w.tx.send_replace(state);
        }
    }
}

/// Starts this process's listener on `pool`, and the task that rebuilds the rooms `live` streams
/// with `reader`.
pub fn start(pool: sqlx::PgPool, live: Arc<Live>, reader: Reader) {
    tokio::spawn(listen(pool, live.clone()));
    tokio::spawn(async move {
        loop {
            // Woken by a change, or once a second in any case.
            let _ = tokio::time::timeout(Duration::from_secs(1), live.wake.notified()).await;
            let began = tokio::time::Instant::now();
            let dirty = live.take_dirty();
            let built = join_all(dirty.iter().map(|code| reader.build(code))).await;
            let mut failed = false;
            for (code, state) in dirty.iter().zip(built) {
                match state {
                    Ok(state) => live.publish(code, Update::state(&state)),
                    // The database is out of reach: say so, and try again.
                    Err(RoomError::Database(e)) if Fault::of(&e).is_some() => {
                        tracing::debug!(error = %e, %code, "a room's state was not rebuilt");
                        live.reconnecting(Some(code));
                        failed = true;
                    }
                    Err(e) => tracing::debug!(error = %e, %code, "a room's state was not rebuilt"),
                }
            }
            // At most one rebuild every `COALESCE`, counted from the start of this one.
            tokio::time::sleep_until(began + if failed { RETRY } else { COALESCE }).await;
        }
    });
}

async fn listen(pool: sqlx::PgPool, live: Arc<Live>) {
    loop {
        let mut listener = match PgListener::connect_with(&pool).await {
            Ok(l) => l,
            Err(e) => {
                tracing::debug!(error = %e, "the rooms' listener cannot connect yet");
                tokio::time::sleep(Duration::from_millis(500)).await;
                continue;
            }
        };
        if let Err(e) = listener.listen(CHANNEL).await {
            tracing::debug!(error = %e, "the rooms' listener cannot listen yet");
            tokio::time::sleep(Duration::from_millis(500)).await;
            continue;
        }
        // Whatever happened while it was not listening.
        live.mark(None);
        loop {
            match listener.try_recv().await {
                Ok(Some(n)) => live.mark(Some(n.payload())),
                // The connection was lost and is made again on the next call: some
                // notifications may be gone.
                Ok(None) => live.reconnecting(None),
                Err(e) => {
                    tracing::debug!(error = %e, "the rooms' listener lost its connection");
                    live.reconnecting(None);
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    break;
                }
            }
        }
    }
}
