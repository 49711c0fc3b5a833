//! A participant's request: a tap (the defence's program up to its payment), a payment (the
//! rest: pay, then confirm or book) or a cancel (release the hold). Each runs operation by
//! operation through a `shared::client::Clients` rebuilt from what the participant did earlier
//! in the round (`run.rs`), so that every condition, hold id and remembered seat is decided
//! exactly as the simulator decides it, and every statement is `shared::sql`'s. Everything is
//! recorded (`record.rs`); the phone's words are `words.rs`'s.

mod begin;
mod run;
mod words;

pub use begin::{start as start_starts, starts, Starts, StartsWaiting};

use std::time::{Instant, SystemTime};

use serde::Serialize;
use shared::defences;
use shared::outcome::{SeenRow, StepResult};
use shared::schedule::{Condition, Op};

use super::record::{self, Settlement};
use super::store::{Participant, Room};
use super::{phases, RoomError, Rooms};

/// What a participant asks for.
#[derive(Clone, Debug)]
pub enum Kind {
    Tap(Vec<String>),
    Pay,
    Cancel,
}

/// One operation as carried out, for the reply and the record.
#[derive(Clone, Debug, Serialize)]
pub struct Done {
    pub op_index: usize,
    #[serde(skip)]
    pub op: Op,
    #[serde(skip)]
    pub condition: Condition,
    pub name: &'static str,
    /// The SQL (parameters written in) or the Redis command; none when nothing was sent.
    pub sent: Option<String>,
    pub result: StepResult,
    #[serde(skip)]
    pub seen: Vec<SeenRow>,
    #[serde(skip)]
    pub clock: i64,
    #[serde(skip)]
    pub sent_at: SystemTime,
    pub took_ms: f64,
}

/// The answer to a participant: what their phone says, and every step.
#[derive(Clone, Debug, Serialize)]
pub struct Reply {
    pub holding: bool,
    pub message: String,
    pub steps: Vec<Done>,
}

/// An operation still to do, with its condition.
pub type Planned = (Op, Condition);

/// Carries out the request of the participant whose token is `token` in room `code`: `kind`
/// says what it is, from the room (it may refuse, with a message naming the field).
pub async fn act_by_token(
    rooms: &Rooms,
    code: &str,
    token: &str,
    kind: impl FnOnce(&Room) -> Result<Kind, RoomError>,
) -> Result<Reply, RoomError> {
    timed(act_by_token_now(rooms, code, token, kind)).await
}

async fn act_by_token_now(
    rooms: &Rooms,
    code: &str,
    token: &str,
    kind: impl FnOnce(&Room) -> Result<Kind, RoomError>,
) -> Result<Reply, RoomError> {
    let mut begun = begin::by_token(rooms, code, token).await?;
    let kind = match kind(&begun.room) {
        Ok(kind) => kind,
        Err(e) => {
            give_back(rooms, &mut begun).await?;
            return Err(e);
        }
    };
    proceed(rooms, begun, kind).await
}

/// Carries out `kind` for `who` in `room` (a bot's request).
pub async fn act(
    rooms: &Rooms,
    room: &Room,
    who: &Participant,
    kind: Kind,
) -> Result<Reply, RoomError> {
    timed(act_now(rooms, room, who, kind)).await
}

/// `request`'s answer, its time counted as a whole request's (`phases::REQUEST`).
async fn timed<T>(request: impl std::future::Future<Output = T>) -> T {
    let started = Instant::now();
    let answer = request.await;
    phases::REQUEST.since(started);
    answer
}

/// Gives back the lease `begun` took (if it took one) as it was: a request refused before it
/// ran anything.
async fn give_back(rooms: &Rooms, begun: &mut begin::Begun) -> Result<(), RoomError> {
    if let Some(lease) = begun.lease.take() {
        let untouched = Settlement {
            done: vec![],
            kind: Kind::Tap(vec![]),
            holding: false,
            left: lease.pending,
            lease: lease.id,
        };
        record::settle(rooms, &begun.room, &begun.who, untouched, false).await?;
    }
    Ok(())
}

async fn act_now(
    rooms: &Rooms,
    room: &Room,
    who: &Participant,
    kind: Kind,
) -> Result<Reply, RoomError> {
    let mut begun = begin::by_number(rooms, &room.code, who.n).await?;
    // A bot races in the round it was released into.
    if begun.room.round != room.round {
        give_back(rooms, &mut begun).await?;
        return Err(RoomError::Conflict(
            "this round is over: wait for the next one".into(),
        ));
    }
    proceed(rooms, begun, kind).await
}

async fn proceed(rooms: &Rooms, begun: begin::Begun, kind: Kind) -> Result<Reply, RoomError> {
    let begin::Begun {
        room,
        who,
        lease,
        settling,
        history,
    } = begun;
    if !room.racing() {
        return Err(RoomError::Conflict(match room.phase.as_str() {
            "race" => "the countdown is still running: tap when it reaches zero".to_string(),
            "results" => "this round is over: wait for the next one".to_string(),
            _ => "the round has not started yet: wait for the countdown".to_string(),
        }));
    }
    let Some(begin::Lease { id: lease, pending }) = lease else {
        if settling {
            // Their last request met the database restarting; its record (which frees them)
            // is still being sent (in the background, if that request was answered 503).
            return Err(RoomError::Unavailable(
                "the database is restarting: your last request is still being saved; try \
                 again in a moment"
                    .into(),
            ));
        }
        return Err(RoomError::Conflict(
            "your last request is still being answered: wait for it".into(),
        ));
    };
    let (room, who) = (&room, &who);
    let (settlement, outcome) =
        match run::run(rooms, room, who, &kind, pending.clone(), history).await {
            Ok(ran) => {
                let left = if ran.fault.is_some() {
                    // A request that failed leaves the last hold's payment as it was.
                    pending
                } else if ran.holding {
                    ran.left
                } else {
                    vec![]
                };
                // Checked when set: a tap under an unknown defence never ran (`plan`), and the
                // words of a payment or a cancel do not depend on it.
                let defence = shared::Defence::parse(&room.settings.defence)
                    .unwrap_or(shared::Defence::AtomicUpdate);
                let hold = room.settings.hold_seconds;
                let message = words::message(defence, hold, &kind, ran.holding, &ran.done);
                let outcome = match ran.fault {
                    Some(e) => Err(e),
                    None => Ok(Reply {
                        holding: ran.holding,
                        message,
                        steps: ran.done.clone(),
                    }),
                };
                let settlement = Settlement {
                    done: ran.done,
                    kind,
                    holding: ran.holding,
                    left,
                    lease,
                };
                (settlement, outcome)
            }
            Err(e) => {
                let settlement = Settlement {
                    done: vec![],
                    kind: Kind::Tap(vec![]),
                    holding: false,
                    left: pending,
                    lease,
                };
                (settlement, Err(e))
            }
        };
    // The phone's answer waits for the record of what ran; a request that ran nothing does
    // not keep its phone waiting for a restarting database.
    let ran_something = !settlement.done.is_empty();
    record::settle(rooms, room, who, settlement, ran_something).await?;
    outcome
}

/// An op as recorded (`op_value`: the op with its `"if"`).
pub fn decode_op(value: &serde_json::Value) -> Option<Planned> {
    let mut value = value.clone();
    let condition = value
        .as_object_mut()?
        .remove("if")
        .map(serde_json::from_value)
        .transpose()
        .ok()?
        .unwrap_or_default();
    Some((serde_json::from_value(value).ok()?, condition))
}

/// The operations `kind` adds, and those left for a later payment.
pub(super) fn plan(
    room: &Room,
    kind: &Kind,
    pending: Vec<Planned>,
) -> Result<(Vec<Planned>, Vec<Planned>), RoomError> {
    let s = &room.settings;
    Ok(match kind {
        Kind::Tap(seats) => {
            let (ops, conditions) = defences::program(&s.defence, seats)
                .ok_or_else(|| RoomError::Internal(format!("unknown defence {}", s.defence)))?;
            let all: Vec<Planned> = ops.into_iter().zip(conditions).collect();
            let pay = all
                .iter()
                .position(|(op, _)| matches!(op, Op::Pay { .. }))
                .unwrap_or(all.len());
            (all[..pay].to_vec(), all[pay..].to_vec())
        }
        Kind::Pay => {
            if pending.is_empty() {
                return Err(RoomError::Conflict(if s.pays() {
                    "there is nothing to pay: tap a seat first".into()
                } else {
                    "this round's defence books on the tap: there is nothing to pay".into()
                }));
            }
            let mut ops = pending;
            if s.duplicate_payments {
                // The payment provider delivers its webhook twice.
                if let Some(last) = ops.last().cloned() {
                    ops.push(last);
                }
            }
            (ops, vec![])
        }
        Kind::Cancel => {
            let release = if s.defence.starts_with("redis") {
                Op::RedisRelease
            } else {
                Op::Release
            };
            (vec![(release, Condition::Held)], vec![])
        }
    })
}
