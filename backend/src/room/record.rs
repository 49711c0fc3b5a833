//! What a participant's request leaves behind, in one transaction: every operation it carried
//! out recorded (with when it was sent and answered), what the phone was told it has, the
//! participant free for their next request with the payment still to make. It goes with the
//! other requests' records of the moment in one statement (`recorder.rs`), all or nothing, and
//! it is idempotent (an operation already recorded is not recorded again: the unique index of
//! migration 0003), so that it can be sent again when the database restarted under it. The
//! room's change is notified in the same commit.
//!
//! It frees only the lease its request took (`Settlement::lease`): a record that lands late
//! (sent again after a restart, or after a new round freed every lease) leaves a later
//! request's lease and payment as they are. While a record is sent again its participant is
//! `Settling`, and their next request a 503 (`attempt/begin.rs`): it must not take over a lease
//! that predates the restart while the request that took it is still alive.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use shared::schedule::{op_value, Op};

use super::error::RoomError;
use super::participants::Participant;
use super::phases;
use super::recorder::{self, Entry, Recorder, Told};
use super::request::{Done, Kind, Planned};
use super::store::Room;
use crate::db::Fault;

/// How long a request waits for a restarting database to take its record.
const SETTLE_WAIT: Duration = Duration::from_secs(15);
/// How long a record is tried again in the background after that.
const SETTLE_BACKGROUND: Duration = Duration::from_secs(60);

/// What a request leaves behind: its operations, what the phone now holds, the payment left,
/// and the lease it took (`attempt/begin.rs`), the only one its record frees.
pub struct Settlement {
    pub done: Vec<Done>,
    pub kind: Kind,
    pub holding: bool,
    pub left: Vec<Planned>,
    pub lease: i64,
}

impl Settlement {
    /// What a request that ran nothing leaves: its lease freed, the payment left as it was.
    pub fn untouched(left: Vec<Planned>, lease: i64) -> Settlement {
        Settlement {
            done: vec![],
            kind: Kind::Tap(vec![]),
            holding: false,
            left,
            lease,
        }
    }
}

/// What a request's record needs: the main pool, the recorder that batches the records, and the
/// participants settling.
#[derive(Clone)]
pub struct Records {
    pub pool: sqlx::PgPool,
    pub recorder: Recorder,
    pub settling: Arc<Settling>,
}

/// The participants (room code, round, number) whose request's record this process is sending
/// again because the database went away, each until that record lands or is given up. A start
/// reads them before its statement and leaves their lease alone (`attempt/begin.rs`): a lease
/// taken before the database last started would otherwise count as free, and a request begun
/// on it would run without the operations that record carries, and have its payment
/// overwritten when it lands.
#[derive(Default)]
pub struct Settling(Mutex<HashMap<(String, i32, i32), usize>>);

impl Settling {
    /// Marks participant `n` of `room` as settling until the mark is dropped.
    fn mark(self: &Arc<Self>, room: &Room, n: i32) -> Marked {
        let key = (room.code.clone(), room.round, n);
        *self.lock().entry(key.clone()).or_default() += 1;
        Marked {
            settling: self.clone(),
            key,
        }
    }

    /// The participants settling now: their rooms, rounds and numbers, as three arrays.
    pub(crate) fn now(&self) -> (Vec<String>, Vec<i32>, Vec<i32>) {
        let settling = self.lock();
        let mut now = (Vec::new(), Vec::new(), Vec::new());
        for (code, round, n) in settling.keys() {
            now.0.push(code.clone());
            now.1.push(*round);
            now.2.push(*n);
        }
        now
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, i32, i32), usize>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A participant marked as settling (`Settling::mark`), until dropped.
struct Marked {
    settling: Arc<Settling>,
    key: (String, i32, i32),
}

impl Drop for Marked {
    fn drop(&mut self) {
        let mut settling = self.settling.lock();
        if let Some(count) = settling.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                settling.remove(&self.key);
            }
        }
    }
}

/// Sends the settlement; when the database is restarting, again until it takes it (for at
/// most `SETTLE_WAIT` if `wait`, then in the background), the participant settling meanwhile.
/// The phone's answer is true only once its record is in: a request whose statements ran
/// waits; one that ran nothing need not.
pub async fn settle(
    records: &Records,
    room: &Room,
    who: &Participant,
    settlement: Settlement,
    wait: bool,
) -> Result<(), RoomError> {
    let pool = &records.pool;
    let give_up = Instant::now() + if wait { SETTLE_WAIT } else { Duration::ZERO };
    // Marked at the first fault, before the phone can hear of it, and dropped only once the
    // record is in (or given up): a start that no longer sees the mark sees the lease freed.
    let mut marked = None;
    loop {
        match send(records, room, who, &settlement).await {
            Ok(()) => return Ok(()),
            Err(e) if Fault::of(&e).is_some() => {
                if marked.is_none() {
                    marked = Some(records.settling.mark(room, who.n));
                }
                if Fault::is_lost(&e) {
                    crate::db::discard_dead(pool).await;
                }
                if Instant::now() >= give_up {
                    let (records, room, who) = (records.clone(), room.clone(), who.clone());
                    let marked = marked.take();
                    tokio::spawn(async move {
                        in_background(&records, &room, &who, settlement).await;
                        drop(marked);
                    });
                    return Err(RoomError::Database(e));
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => return Err(RoomError::Database(e)),
        }
    }
}

async fn in_background(records: &Records, room: &Room, who: &Participant, settlement: Settlement) {
    let give_up = Instant::now() + SETTLE_BACKGROUND;
    while Instant::now() < give_up {
        tokio::time::sleep(Duration::from_millis(200)).await;
        match send(records, room, who, &settlement).await {
            Ok(()) => return,
            Err(e) if Fault::is_lost(&e) => {
                crate::db::discard_dead(&records.pool).await;
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
    records: &Records,
    room: &Room,
    who: &Participant,
    s: &Settlement,
) -> Result<(), sqlx::Error> {
    let started = Instant::now();
    let recorded = records.recorder.record(entry(room, who, s)).await;
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
    let told = told(room, &s.kind, s.holding, &s.done);
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
        told,
        pending: json(serde_json::Value::Array(left)),
        lease: s.lease,
    }
}

/// How the phone's told seats change (in a general-admission round, the section: one ticket).
fn told(room: &Room, kind: &Kind, holding: bool, done: &[Done]) -> Told {
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
            // A general-admission ticket is sold on the tap: there is no hold to pay for.
            let booked = room.played.kind.is_counter()
                || matches!(
                    took.map(|d| &d.op),
                    Some(Op::Book { .. })
                        | Some(Op::Write {
                            status: shared::schedule::SeatStatus::Booked,
                            ..
                        })
                );
            let until =
                (!booked).then(|| took.map_or(0, |d| d.clock) + room.settings.hold_seconds as i64);
            Told::Hold {
                seats: seats.clone(),
                booked,
                until,
            }
        }
        (Kind::Pay, true) => Told::Paid,
        (Kind::Tap(_), false) => Told::Unchanged,
        (_, false) | (Kind::Cancel, true) => Told::Forget,
    }
}
