//! A request's Redis operation, sent to the real Redis: the hold (`SET NX` with the hold's
//! length, all of the seats or none) or the release of the participant's hold, on the keys of
//! the round's seats, answered as the simulator's Redis answers.

use shared::outcome::Answer;
use shared::schedule::Op;
use shared::sql;

use crate::room::redis::{self, Redis};
use crate::room::request::Planned;
use crate::room::store::Room;

/// Sends operation `i` of `actor`'s `program`, `op` (a Redis hold or release); `held`: the hold
/// id the participant's client holds, if any. The command as redis-cli takes it and Redis's
/// answer, or why Redis is unavailable.
pub(super) async fn send(
    redis: &Redis,
    room: &Room,
    actor: &str,
    (i, op): (usize, &Op),
    program: &[Planned],
    held: Option<String>,
) -> Result<(String, Answer), String> {
    let hold = match op {
        Op::RedisHold { .. } => sql::hold_id(actor, i, op),
        _ => held.unwrap_or_else(|| sql::no_hold(actor)),
    };
    let mut seats: Vec<String> = match op {
        Op::RedisHold { seats } => seats.clone(),
        _ => (program.iter())
            .filter(|(o, _)| o.is_redis())
            .flat_map(|(o, _)| o.seats().to_vec())
            .collect(),
    };
    seats.sort();
    seats.dedup();
    let keys: Vec<String> = (seats.iter())
        .map(|s| redis::key(&room.code, room.round, s))
        .collect();
    match op {
        Op::RedisHold { .. } => {
            let ms = room.settings.hold_seconds as i64 * 1000;
            let (ok, cmd) = redis.hold(&keys, &hold, ms).await?;
            Ok((
                cmd,
                if ok {
                    Answer::Held
                } else {
                    Answer::Unavailable
                },
            ))
        }
        _ => {
            let (n, cmd) = redis.release(&keys, &hold).await?;
            Ok((
                cmd,
                if n > 0 {
                    Answer::Released
                } else {
                    Answer::Expired
                },
            ))
        }
    }
}
