//! The simulated Redis of the SET NX hold: a key per seat, whose hold id it stores and the
//! last minute it lives, the seats whose key still holds a buyer's hold, and the command
//! redis-cli would take for a Redis op.

use super::Clients;
use crate::schedule::{Op, Schedule};
use crate::sql;

/// A key of the simulated Redis: a seat's hold, whose hold id it stores, and the last minute it
/// lives (its `PX` runs out after that minute; a key past it is gone as far as Redis is
/// concerned, and is kept here only until something replaces it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RedisKey {
    pub actor: usize,
    pub hold_id: String,
    pub until: i64,
}

impl RedisKey {
    pub fn alive(&self, clock: i64) -> bool {
        clock <= self.until
    }
}

impl Clients {
    /// The seats whose Redis key is alive and holds `actor`'s current hold id.
    pub(super) fn redis_seats(&self, actor: usize) -> impl Iterator<Item = &String> {
        let hold = self.actors[actor].current_hold.as_ref();
        self.redis
            .iter()
            .filter(move |(_, k)| Some(&k.hold_id) == hold && k.alive(self.clock))
            .map(|(seat, _)| seat)
    }

    /// The Redis command of `actor`'s next operation, as redis-cli takes it; `None` if it is
    /// not a Redis op. Call it before `prepare`.
    pub fn redis_command(&self, schedule: &Schedule, actor: usize) -> Option<String> {
        let a = &self.actors[actor];
        let name = &schedule.actors()[actor].name;
        let op = schedule.actors()[actor].program.get(a.next)?;
        match op {
            Op::RedisHold { seats } => Some(sql::redis_hold_command(
                self.show,
                seats,
                &sql::hold_id(name, a.next, op),
                self.hold_minutes,
            )),
            Op::RedisRelease => {
                // The keys of every seat it ever asks Redis to hold; each is deleted only if
                // it still holds this hold id.
                let mut seats: Vec<String> = schedule.actors()[actor]
                    .program
                    .iter()
                    .filter(|op| op.is_redis())
                    .flat_map(|op| op.seats().iter().cloned())
                    .collect();
                seats.sort();
                seats.dedup();
                let hold = a.current_hold.clone().unwrap_or_else(|| sql::no_hold(name));
                Some(sql::redis_release_command(self.show, &seats, &hold))
            }
            _ => None,
        }
    }
}
