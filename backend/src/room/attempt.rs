//! A participant's request: a tap (the defence's program up to its payment), a payment (the
//! rest: pay, then confirm or book) or a cancel (release the hold). Each runs operation by
//! operation through a `shared::client::Clients` rebuilt from what the participant did earlier
//! in the round, so that every condition, hold id and remembered seat is decided exactly as the
//! simulator decides it, and every statement is `shared::sql`'s. Everything is recorded.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use shared::client::{Action, Clients};
use shared::outcome::{Answer, SeenRow, StepResult};
use shared::schedule::{Condition, Op, MAX_OPS_PER_ACTOR};
use shared::{defences, sql};
use sqlx::pool::PoolConnection;
use sqlx::Postgres;

use super::exec::{self, ExecFault};
use super::record::{self, Settlement};
use super::schedule::one_actor;
use super::store::{Participant, Room};
use super::{redis, RoomError, Rooms};

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

/// An operation as recorded: the op with its `"if"`, its result, the rows it saw, the clock.
type Recorded = (
    sqlx::types::Json<serde_json::Value>,
    sqlx::types::Json<StepResult>,
    sqlx::types::Json<Vec<SeenRow>>,
    i64,
);

/// An operation still to do, with its condition.
pub type Planned = (Op, Condition);

/// Carries out `kind` for `who` in `room` (whose round must be racing).
pub async fn act(
    rooms: &Rooms,
    room: &Room,
    who: &Participant,
    kind: Kind,
) -> Result<Reply, RoomError> {
    if !room.racing() {
        return Err(RoomError::Conflict(match room.phase.as_str() {
            "race" => "the countdown is still running: tap when it reaches zero".to_string(),
            "results" => "this round is over: wait for the next one".to_string(),
            _ => "the round has not started yet: wait for the countdown".to_string(),
        }));
    }
    let pool = rooms.pool();
    let pending: Option<sqlx::types::Json<Vec<serde_json::Value>>> = sqlx::query_scalar(
        "update lastseat_rooms.participants set busy_until = now() + interval '60 seconds'
          where room = $1 and n = $2 and (busy_until is null or busy_until < now()) returning pending",
    )
    .bind(&room.code)
    .bind(who.n)
    .fetch_optional(pool)
    .await?;
    let Some(pending) = pending else {
        return Err(RoomError::Conflict(
            "your last request is still being answered: wait for it".into(),
        ));
    };
    let pending: Vec<Planned> = pending.0.iter().filter_map(decode_op).collect();
    let (settlement, outcome) = match run(rooms, room, who, &kind, pending.clone()).await {
        Ok(ran) => {
            let left = if ran.fault.is_some() {
                // A request that failed leaves the last hold's payment as it was.
                pending
            } else if ran.holding {
                ran.left
            } else {
                vec![]
            };
            let message = message(room, &kind, ran.holding, &ran.done);
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
            };
            (settlement, outcome)
        }
        Err(e) => {
            let settlement = Settlement {
                done: vec![],
                kind: Kind::Tap(vec![]),
                holding: false,
                left: pending,
            };
            (settlement, Err(e))
        }
    };
    // The phone's answer waits for the record of what ran; a request that ran nothing does
    // not keep its phone waiting for a restarting database.
    let ran_something = !settlement.done.is_empty();
    record::settle(pool, room, who, settlement, ran_something).await?;
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
fn plan(
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

/// What a request carried out: every operation, whether the phone now holds its seats, the
/// payment left for later, and the fault that cut it short, if one did.
struct Ran {
    done: Vec<Done>,
    holding: bool,
    left: Vec<Planned>,
    fault: Option<RoomError>,
}

async fn run(
    rooms: &Rooms,
    room: &Room,
    who: &Participant,
    kind: &Kind,
    pending: Vec<Planned>,
) -> Result<Ran, RoomError> {
    let pool = rooms.pool();
    let history: Vec<Recorded> = sqlx::query_as(
        "select op, result, seen, clock from lastseat_rooms.requests
              where room = $1 and round = $2 and actor = $3 order by op_index",
    )
    .bind(&room.code)
    .bind(room.round)
    .bind(&who.actor)
    .fetch_all(pool)
    .await?;
    let (new, left) = plan(room, kind, pending.clone())?;
    let mut program: Vec<Planned> = history.iter().filter_map(|h| decode_op(&h.0 .0)).collect();
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
        clients.answered(&schedule, 0, i, &result.0, &seen.0);
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
        let sent_at = SystemTime::now();
        let started = Instant::now();
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
                        conn = Some(
                            rooms
                                .inner()
                                .pools
                                .of(&room.schema())
                                .acquire()
                                .await
                                .map_err(RoomError::Database)?,
                        );
                    }
                    let c = conn.as_mut().expect("connection");
                    let failed = matches!(op, Op::Commit) && clients.actors[0].failed;
                    match exec::run(c, &op, &statement, failed, clock).await {
                        Ok((result, seen)) => (Some(statement.to_psql()), result, seen),
                        Err(e) => {
                            if let Some(c) = conn.take() {
                                c.detach();
                            }
                            fault = Some(match e {
                                ExecFault::Lost(e) => RoomError::Database(e),
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

/// The round's clock now: whole seconds since its race opened, on this machine's clock (the
/// database's, for a server on the same machine or one kept in time).
pub fn clock_now(room: &Room) -> i64 {
    room.race_at_ms
        .map_or(0, |at| ((local_ms() - at) / 1000).max(0))
}

/// Milliseconds since the epoch, now.
pub fn local_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Waits (at most a minute past the hold) until the round's clock has reached `target`.
async fn wait_for_clock(pool: &sqlx::PgPool, code: &str, target: i64) -> Result<(), RoomError> {
    let give_up = Instant::now() + Duration::from_secs(3600 + 60);
    loop {
        let clock: i64 =
            sqlx::query_scalar("select clock from lastseat_rooms.rooms where code = $1")
                .bind(code)
                .fetch_one(pool)
                .await?;
        if clock >= target || Instant::now() > give_up {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// What the phone says, in words.
fn message(room: &Room, kind: &Kind, holding: bool, done: &[Done]) -> String {
    let last = done
        .iter()
        .rev()
        .find(|d| d.result != StepResult::Skipped)
        .map(|d| &d.result);
    let code = |c: &str| {
        matches!(last, Some(StepResult::Error { code, .. }) if code == c)
            || done
                .iter()
                .any(|d| matches!(&d.result, StepResult::Error { code, .. } if code == c))
    };
    let hold = room.settings.hold_seconds;
    match kind {
        Kind::Tap(seats) => {
            let seats = seats.join(", ");
            if holding {
                if room.settings.pays() {
                    format!("you hold {seats}: {hold} s left, pay now")
                } else if matches!(
                    room.settings.defence.as_str(),
                    "atomic_update" | "lock_nowait"
                ) {
                    format!("you hold {seats} for {hold} s")
                } else {
                    format!("{seats} is yours")
                }
            } else if code("55P03")
                || matches!(
                    last,
                    Some(StepResult::Answer {
                        answer: Answer::Busy
                    })
                )
            {
                "those seats are busy, pick again".to_string()
            } else if code("23505") {
                format!("someone else got {seats} first: the unique key refused your ticket")
            } else if code("40001") || code("40P01") {
                "PostgreSQL cancelled your transaction to keep the race fair: tap again".to_string()
            } else {
                format!("{seats} is taken: pick another seat")
            }
        }
        Kind::Pay => match last {
            Some(StepResult::Answer {
                answer: Answer::Issued,
            }) => "paid: your ticket is issued".to_string(),
            Some(StepResult::Answer {
                answer: Answer::Duplicate,
            }) => "paid: your ticket is issued (the payment arrived twice; it counted once)"
                .to_string(),
            Some(StepResult::Answer {
                answer: Answer::RefundDue,
            }) => "paid too late: refund on its way".to_string(),
            _ if code("23505") && holding => {
                "paid: your ticket is issued (a second delivery was refused by the unique key)"
                    .to_string()
            }
            _ if code("23505") => {
                "paid, but the seat was sold to someone else: refund on its way".to_string()
            }
            _ if holding => "paid: your ticket is issued".to_string(),
            _ => "your hold was gone before the payment landed".to_string(),
        },
        Kind::Cancel => match last {
            Some(StepResult::Answer {
                answer: Answer::Released,
            }) => "released: the seat is free again".to_string(),
            Some(StepResult::Skipped) | None => "you hold nothing to cancel".to_string(),
            _ => "your hold had already run out".to_string(),
        },
    }
}
