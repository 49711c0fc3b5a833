//! One request's operations, one after another: the participant's client rebuilt from what
//! they did earlier in the round, the gap between a check and its write, a late payment's wait
//! for the hold to run out, each statement sent on a connection of the round's pool (or the
//! Redis command to the real Redis), each answer read as the executor reads it.

use std::time::{Duration, Instant, SystemTime};

use shared::client::{Action, Clients};
use shared::outcome::{Answer, StepResult};
use shared::schedule::{Op, MAX_OPS_PER_ACTOR};
use shared::sql;
use sqlx::pool::PoolConnection;
use sqlx::Postgres;

use super::begin::Recorded;
use super::{decode_op, plan, Done, Kind, Planned};
use crate::room::clock::{clock_now, wait_for_clock};
use crate::room::exec::{self, ExecFault};
use crate::room::schedule::one_actor;
use crate::room::store::{Participant, Room};
use crate::room::{phases, redis, RoomError, Rooms};

/// What a request carried out: every operation, whether the phone now holds its seats, the
/// payment left for later, and the fault that cut it short, if one did.
pub(super) struct Ran {
    pub done: Vec<Done>,
    pub holding: bool,
    pub left: Vec<Planned>,
    pub fault: Option<RoomError>,
}

pub(super) async fn run(
    rooms: &Rooms,
    room: &Room,
    who: &Participant,
    kind: &Kind,
    pending: Vec<Planned>,
    history: Vec<Recorded>,
) -> Result<Ran, RoomError> {
    let pool = rooms.pool();
    let (new, left) = plan(room, kind, pending.clone())?;
    let mut program: Vec<Planned> = history.iter().filter_map(|h| decode_op(&h.0)).collect();
    if program.len() != history.len() {
        return Err(RoomError::Internal(
            "a recorded operation does not read back".into(),
        ));
    }
    if program.len() + new.len() > MAX_OPS_PER_ACTOR {
        return Err(RoomError::Conflict(
            "you have used all your tries this round: wait for the next one".into(),
        ));
    }
    let first_new = program.len();
    program.extend(new);
    let schedule = one_actor(room, &who.actor, &program)
        .map_err(|e| RoomError::Internal(format!("a participant's program: {e}")))?;
    let mut clients = Clients::new(&schedule);
    for (i, (_, result, seen, clock)) in history.iter().enumerate() {
        clients.clock = *clock;
        let _ = clients.prepare(&schedule, 0);
        clients.sent(&schedule, 0, i);
        clients.answered(&schedule, 0, i, result, seen);
    }
    let hold_clock = history
        .iter()
        .rev()
        .zip((0..history.len()).rev())
        .find(|(_, i)| {
            matches!(
                program[*i].0,
                Op::Hold { .. } | Op::Claim { .. } | Op::RedisHold { .. } | Op::Write { .. }
            )
        })
        .map(|((_, _, _, c), _)| *c);
    let mut conn: Option<PoolConnection<Postgres>> = None;
    let mut done: Vec<Done> = Vec::new();
    let mut fault = None;
    for i in first_new..program.len() {
        let (op, condition) = program[i].clone();
        let after_payment = i > 0 && matches!(program[i - 1].0, Op::Pay { .. });
        if after_payment && room.settings.late_payments && clients.runs(&schedule, 0, i) {
            if let Some(at) = hold_clock {
                wait_for_clock(pool, &room.code, at + room.settings.hold_seconds as i64 + 1)
                    .await?;
            }
        }
        let checked =
            i > first_new && matches!(program[i - 1].0, Op::Read { .. } | Op::Lock { .. });
        if checked && matches!(op, Op::Write { .. } | Op::Book { .. }) && room.settings.gap_ms > 0 {
            tokio::time::sleep(Duration::from_millis(room.settings.gap_ms as u64)).await;
        }
        let clock = clock_now(room);
        clients.clock = clock;
        let mut sent_at = SystemTime::now();
        let mut started = Instant::now();
        let (sent, result, seen) = if op.is_redis() && clients.runs(&schedule, 0, i) {
            let hold = match &op {
                Op::RedisHold { .. } => sql::hold_id(&who.actor, i, &op),
                _ => clients.actors[0]
                    .current_hold
                    .clone()
                    .unwrap_or_else(|| sql::no_hold(&who.actor)),
            };
            let mut seats: Vec<String> = match &op {
                Op::RedisHold { seats } => seats.clone(),
                _ => program
                    .iter()
                    .filter(|(o, _)| o.is_redis())
                    .flat_map(|(o, _)| o.seats().to_vec())
                    .collect(),
            };
            seats.sort();
            seats.dedup();
            let keys: Vec<String> = seats
                .iter()
                .map(|s| redis::key(&room.code, room.round, s))
                .collect();
            let answer = match &op {
                Op::RedisHold { .. } => rooms
                    .inner()
                    .redis
                    .hold(&keys, &hold, room.settings.hold_seconds as i64 * 1000)
                    .await
                    .map(|(ok, cmd)| {
                        (
                            cmd,
                            if ok {
                                Answer::Held
                            } else {
                                Answer::Unavailable
                            },
                        )
                    }),
                _ => rooms
                    .inner()
                    .redis
                    .release(&keys, &hold)
                    .await
                    .map(|(n, cmd)| {
                        (
                            cmd,
                            if n > 0 {
                                Answer::Released
                            } else {
                                Answer::Expired
                            },
                        )
                    }),
            };
            match answer {
                Ok((cmd, answer)) => (Some(cmd), StepResult::Answer { answer }, vec![]),
                Err(why) => {
                    fault = Some(RoomError::Unavailable(why));
                    break;
                }
            }
        } else {
            match clients.prepare(&schedule, 0) {
                Action::Done(result) => (None, result, vec![]),
                Action::Send(statement) => {
                    if conn.is_none() {
                        let waited = Instant::now();
                        conn = Some(
                            rooms
                                .inner()
                                .pools
                                .of(&room.schema())
                                .acquire()
                                .await
                                .map_err(RoomError::Database)?,
                        );
                        phases::ACQUIRE.since(waited);
                        // Sent once there is a connection to send it on: the record says when
                        // the statement went, not when it began to wait for a connection.
                        sent_at = SystemTime::now();
                        started = Instant::now();
                    }
                    let c = conn.as_mut().expect("connection");
                    let failed = matches!(op, Op::Commit) && clients.actors[0].failed;
                    phases::ROUND_TRIPS.count(1);
                    let ran = exec::run(c, &op, &statement, failed, clock).await;
                    phases::STATEMENT.since(started);
                    match ran {
                        Ok((result, seen)) => {
                            if may_show(&op, &result) {
                                // The screens of this process show the seat as soon as its
                                // change is committed, before the request's record is in.
                                rooms.inner().live.changed(&room.code);
                            }
                            (Some(statement.to_psql()), result, seen)
                        }
                        Err(e) => {
                            if let Some(c) = conn.take() {
                                c.detach();
                            }
                            fault = Some(match e {
                                ExecFault::Lost(e) => {
                                    // A restart: the pool's other idle connections died too.
                                    let round = rooms.inner().pools.of(&room.schema());
                                    tokio::spawn(async move {
                                        crate::db::discard_dead(&round).await;
                                    });
                                    RoomError::Database(e)
                                }
                                ExecFault::Unexpected(w) => RoomError::Internal(w),
                            });
                            break;
                        }
                    }
                }
            }
        };
        clients.sent(&schedule, 0, i);
        clients.answered(&schedule, 0, i, &result, &seen);
        done.push(Done {
            op_index: i,
            name: op.name(),
            op,
            condition,
            sent,
            result,
            seen,
            clock,
            sent_at,
            took_ms: started.elapsed().as_secs_f64() * 1000.0,
        });
    }
    if clients.actors[0].in_tx {
        // Only after a fault: the program's transaction did not reach its end.
        if let Some(c) = conn.take() {
            c.detach();
        }
    }
    Ok(Ran {
        holding: clients.actors[0].holding,
        done,
        left,
        fault,
    })
}

/// Whether `result` of `op` may have changed what the seat map shows: a statement outside a
/// read, a lock or a transaction's start that changed rows (or committed), not one that
/// changed none, failed or was not sent.
fn may_show(op: &Op, result: &StepResult) -> bool {
    !matches!(
        (op, result),
        (
            Op::Read { .. } | Op::Lock { .. } | Op::Begin { .. } | Op::Rollback,
            _
        ) | (
            _,
            StepResult::Ok { rows: Some(0) } | StepResult::Error { .. } | StepResult::Skipped
        )
    )
}
