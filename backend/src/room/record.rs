//! What a participant's request leaves behind, in one transaction: every operation it carried
//! out recorded (with when it was sent and answered), what the phone was told it has, the
//! participant free for their next request with the payment still to make. It goes with the
//! other requests' records of the moment in one statement (`recorder.rs`), all or nothing, and
//! it is idempotent (an operation already recorded is not recorded again: the unique index of
//! migration 0003), so that it can be sent again when the database restarted under it. The
//! room's change is notified in the same commit.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use shared::schedule::{op_value, Op};

use super::attempt::{Done, Kind, Planned};
use super::recorder::{self, Entry};
use super::store::{Participant, Room};
use super::{phases, RoomError, Rooms};
use crate::db::Fault;

/// How long a request waits for a restarting database to take its record.
const SETTLE_WAIT: Duration = Duration::from_secs(15);
/// How long a record is tried again in the background after that.
const SETTLE_BACKGROUND: Duration = Duration::from_secs(60);

/// What a request leaves behind: its operations, what the phone now holds, the payment left.
pub struct Settlement {
    pub done: Vec<Done>,
    pub kind: Kind,
    pub holding: bool,
    pub left: Vec<Planned>,
}

/// Sends the settlement; when the database is restarting, again until it takes it (for at
/// most `SETTLE_WAIT` if `wait`, then in the background). The phone's answer is true only once
/// its record is in: a request whose statements ran waits; one that ran nothing need not.
pub async fn settle(
    rooms: &Rooms,
    room: &Room,
    who: &Participant,
    settlement: Settlement,
    wait: bool,
) -> Result<(), RoomError> {
    let pool = rooms.pool();
    let give_up = Instant::now() + if wait { SETTLE_WAIT } else { Duration::ZERO };
    loop {
        match send(rooms, room, who, &settlement).await {
            Ok(()) => return Ok(()),
            Err(e) if Fault::of(&e).is_some() => {
                if Fault::is_lost(&e) {
                    crate::db::discard_dead(pool).await;
                }
                if Instant::now() >= give_up {
                    let (rooms, room, who) = (rooms.clone(), room.clone(), who.clone());
                    rooms.settling_begins(&room.code, who.n);
                    tokio::spawn(async move {
                        in_background(&rooms, &room, &who, settlement).await;
                        rooms.settling_ends(&room.code, who.n);
                    });
                    return Err(RoomError::Database(e));
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => return Err(RoomError::Database(e)),
        }
    }
}

async fn in_background(rooms: &Rooms, room: &Room, who: &Participant, settlement: Settlement) {
    let give_up = Instant::now() + SETTLE_BACKGROUND;
    while Instant::now() < give_up {
        tokio::time::sleep(Duration::from_millis(200)).await;
        match send(rooms, room, who, &settlement).await {
            Ok(()) => return,
            Err(e) if Fault::is_lost(&e) => {
                crate::db::discard_dead(rooms.pool()).await;
            }
            Err(e) if Fault::of(&e).is_some() => {}
            Err(e) => {
                tracing::warn!(error = %e, code = %room.code, "a request's record was not kept");
                return;
            }
        }
    }
    tracing::warn!(code = %room.code, "a request's record was not kept: the database stayed away");
}

async fn send(
    rooms: &Rooms,
    room: &Room,
    who: &Participant,
    s: &Settlement,
) -> Result<(), sqlx::Error> {
    let started = Instant::now();
    let recorded = rooms.inner().recorder.record(entry(room, who, s)).await;
    phases::RECORD.since(started);
    recorded
}

/// The record of settlement `s`, as the recorder sends it.
fn entry(room: &Room, who: &Participant, s: &Settlement) -> Entry {
    let secs = |t: SystemTime| {
        t.duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64())
    };
    let json = |v: serde_json::Value| v.to_string();
    let (mode, seats, booked, until) = told(room, &s.kind, s.holding, &s.done);
    let left: Vec<serde_json::Value> = s.left.iter().map(|(op, c)| op_value(op, *c)).collect();
    Entry {
        code: room.code.clone(),
        round: room.round,
        n: who.n,
        actor: who.actor.clone(),
        ops: s
            .done
            .iter()
            .map(|d| recorder::Op {
                index: d.op_index as i32,
                op: json(op_value(&d.op, d.condition)),
                sql: d.sent.clone(),
                result: json(serde_json::to_value(&d.result).unwrap_or_default()),
                seen: json(serde_json::to_value(&d.seen).unwrap_or_default()),
                clock: d.clock,
                sent: secs(d.sent_at),
                took_ms: d.took_ms,
            })
            .collect(),
        mode,
        seats,
        booked,
        until,
        pending: json(serde_json::Value::Array(left)),
    }
}

/// How the phone's told seats change: `hold` (these seats, booked or held until), `paid`,
/// `forget`, or `none`.
fn told(
    room: &Room,
    kind: &Kind,
    holding: bool,
    done: &[Done],
) -> (&'static str, Vec<String>, bool, Option<i64>) {
    match (kind, holding) {
        (Kind::Tap(seats), true) => {
            let took = done.iter().rev().find(|d| {
                matches!(
                    d.op,
                    Op::Write { .. }
                        | Op::Claim { .. }
                        | Op::Book { .. }
                        | Op::Hold { .. }
                        | Op::RedisHold { .. }
                )
            });
            let booked = matches!(
                took.map(|d| &d.op),
                Some(Op::Book { .. })
                    | Some(Op::Write {
                        status: shared::schedule::SeatStatus::Booked,
                        ..
                    })
            );
            let until =
                (!booked).then(|| took.map_or(0, |d| d.clock) + room.settings.hold_seconds as i64);
            ("hold", seats.clone(), booked, until)
        }
        (Kind::Pay, true) => ("paid", vec![], false, None),
        (Kind::Tap(_), false) => ("none", vec![], false, None),
        (_, false) | (Kind::Cancel, true) => ("forget", vec![], false, None),
    }
}
