//! The projector's side of a load run: its event stream watched for each seat a winning tap
//! took, and the seats waiting to be shown.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::client::Client;

/// Watches the room's event stream as the projector does: each seat that a winning tap took,
/// and how long after the tap was sent the stream showed it taken.
pub(super) async fn watch(
    client: Arc<Client>,
    code: String,
    pending: Pending,
    seen: Arc<Mutex<Vec<Duration>>>,
) {
    let Ok(mut stream) = client
        .http
        .get(format!("{}/api/rooms/{code}/events", client.base))
        .send()
        .await
    else {
        return;
    };
    let mut buffer = String::new();
    while let Ok(Some(chunk)) = stream.chunk().await {
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            let Some(state) = event
                .lines()
                .find_map(|l| l.strip_prefix("data:"))
                .and_then(|d| serde_json::from_str::<Value>(d.trim_start()).ok())
            else {
                continue;
            };
            let now = Instant::now();
            let mut pending = pending.lock().expect("pending");
            for seat in state["seats"].as_array().into_iter().flatten() {
                let Some(id) = seat["id"].as_str() else {
                    continue;
                };
                if seat["status"] != "AVAILABLE" || seat["ticket"] == true {
                    match pending.sent.remove(id) {
                        Some(sent) => seen.lock().expect("seen").push(now - sent),
                        // Shown before its tap's answer came back: timed when that answer does.
                        None => {
                            pending.shown.entry(id.to_string()).or_insert(now);
                        }
                    }
                } else {
                    pending.shown.remove(id);
                }
            }
        }
    }
}

/// Seats taken by a winning tap whose change the projector has not shown yet, with when the tap
/// was sent; and seats the projector showed taken before their tap's answer came back, with when
/// it showed them (the stream can be quicker than the answer).
pub(super) type Pending = Arc<Mutex<Taken>>;

#[derive(Default)]
pub(super) struct Taken {
    pub(super) sent: std::collections::HashMap<String, Instant>,
    pub(super) shown: std::collections::HashMap<String, Instant>,
    /// Seats given back before the projector showed them (not timed).
    pub(super) unseen: u64,
}
