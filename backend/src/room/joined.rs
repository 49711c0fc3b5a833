//! Who joined each room, as this process last read it: the people and bots counted, the first
//! names and every participant's name by actor, with the room's highest participant number when
//! they were read. Participants are only ever added, numbered one after another under the
//! room's row lock (`participants::join`), so the highest number says whether anyone joined since: a
//! rebuild of the state (`state/`) reads that number, one entry of an index, and counts and
//! lists the participants again only when it changed. Counting them at every rebuild read every participant of the room twice, the largest
//! part of a rebuild with a few thousand bots.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use shared::protocol::room::Named;

/// The participants of one room as counted when its highest number was `last_n`.
#[derive(Debug)]
pub struct Joined {
    pub last_n: i32,
    pub people: u64,
    pub bots: u64,
    /// The first people's numbers and names, in order.
    pub names: Vec<Named>,
    /// Every participant's name, by actor name.
    pub actors: HashMap<String, String>,
}

/// What this process last counted, by room code.
#[derive(Default)]
pub struct Cache(Mutex<HashMap<String, Arc<Joined>>>);

impl Cache {
    /// The highest participant number counted for `code` (none if never counted here).
    pub fn last_n(&self, code: &str) -> Option<i32> {
        self.0.lock().expect("joined").get(code).map(|j| j.last_n)
    }

    /// Keeps `joined` for `code` (a later rebuild that finds another number counts again).
    pub fn keep(&self, code: &str, joined: Arc<Joined>) {
        self.0
            .lock()
            .expect("joined")
            .insert(code.to_string(), joined);
    }

    /// The count kept for `code` if it was made at `last_n`.
    pub fn at(&self, code: &str, last_n: i32) -> Option<Arc<Joined>> {
        self.0
            .lock()
            .expect("joined")
            .get(code)
            .filter(|j| j.last_n == last_n)
            .cloned()
    }

    /// Forgets `code` (a room deleted).
    pub fn forget(&self, code: &str) {
        self.0.lock().expect("joined").remove(code);
    }
}
