//! The claims a Redis key alone stands behind: a SET NX that answered `held` tells its buyer
//! the seat is theirs with nothing in the database behind it; the claim ends when another
//! buyer's SET NX takes the key, when its buyer deletes it, or when the database refuses it.

use std::collections::BTreeMap;

use super::told::{ActorBook, Told};
use crate::outcome::{Answer, StepResult};
use crate::schedule::{Op, Schedule};

/// Whose hold each seat's Redis key stores (the actor and the hold id), and until when, as the
/// trace tells it: Redis is simulated on the client side, so its answers are in the trace and
/// its keys follow from them, as `Clients` keeps them.
pub(super) type RedisKeys = BTreeMap<String, (usize, String, i64)>;

/// A Redis op's effect on the claims: a SET NX that answered `held` took every key it names
/// (any earlier key had run out or been deleted, so an earlier Redis-only claim on it ends),
/// and a delete removes the keys of its actor's current hold, ending its Redis-only claims on
/// them. `me` is the actor, the hold id the op would create and the minute its new keys would
/// run out after.
pub(super) fn apply_redis(
    books: &mut [ActorBook],
    told: &mut Told,
    keys: &mut RedisKeys,
    me: (usize, &str, i64),
    op: &Op,
    result: &StepResult,
    schedule: &Schedule,
) {
    let (actor, hold, until) = me;
    let name = &schedule.actors()[actor].name;
    let StepResult::Answer { answer } = result else {
        return;
    };
    match (op, answer) {
        (Op::RedisHold { seats }, Answer::Held) => {
            for seat in seats {
                let key = (actor, hold.to_string(), until);
                if let Some((before, _, _)) = keys.insert(seat.clone(), key) {
                    if before != actor && books[before].redis_only.remove(seat) {
                        if let Some(t) = told.get_mut(seat) {
                            t.remove(&schedule.actors()[before].name);
                        }
                    }
                }
                let t = told.entry(seat.clone()).or_default();
                if !t.contains(name) {
                    t.insert(name.clone());
                    books[actor].redis_only.insert(seat.clone());
                }
            }
        }
        (Op::RedisRelease, Answer::Released) => {
            let current = books[actor].current_hold.clone();
            keys.retain(|seat, (holder, id, _)| {
                if *holder != actor || current.as_ref() != Some(id) {
                    return true;
                }
                if books[actor].redis_only.remove(seat) {
                    if let Some(t) = told.get_mut(seat) {
                        t.remove(name);
                    }
                }
                false
            });
        }
        _ => {}
    }
}
