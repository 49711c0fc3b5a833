//! One request's operations, one after another: the participant's client rebuilt from what
//! they did earlier in the round, the gap between a check and its write, a late payment's wait
//! for the hold to run out, each statement sent on a connection of the round's pool (or the
//! Redis command to the real Redis), each answer read as the executor reads it.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use shared::client::{Action, Clients};
use shared::outcome::{SeenRow, StepResult};
use shared::schedule::{Op, MAX_OPS_PER_ACTOR};
use shared::{sql, Schedule};
use sqlx::pool::PoolConnection;
use sqlx::Postgres;

use super::plan::plan;
use super::redis_op;
use crate::room::booking::Pools;
use crate::room::clock::{clock_now, wait_for_clock};
use crate::room::error::RoomError;
use crate::room::exec::{self, ExecFault};
use crate::room::live::Live;
use crate::room::participants::Participant;
use crate::room::phases;
use crate::room::redis::Redis;
use crate::room::request::{decode_op, Done, Kind, Planned, Recorded};
use crate::room::schedule::one_actor;
use crate::room::store::Room;

/// What carrying out operations needs: the main pool (the round's clock), the rounds' pools,
/// Redis, and this process's streams (told of a change as soon as it is committed).
#[derive(Clone)]
pub struct Runner {
    pub pool: sqlx::PgPool,
    pub pools: Pools,
    pub redis: Redis,
    pub live: Arc<Live>,
}

/// What a request carried out: every operation, whether the phone now holds its seats, the
/// payment left for later, and the fault that cut it short, if one did.
pub(super) struct Ran {
    pub done: Vec<Done>,
    pub holding: bool,
    pub left: Vec<Planned>,
    pub fault: Option<RoomError>,
}

/// An operation's answer, or the fault that stopped the request there.
enum Stepped {
    Answered(Option<String>, StepResult, Vec<SeenRow>),
    Fault(RoomError),
}

/// One request under way: its participant's program this round (earlier operations first),
/// their client, and the round's connection once it has one.
struct Request<'a> {
    runner: &'a Runner,
    room: &'a Room,
    who: &'a Participant,
    program: Vec<Planned>,
    schedule: Schedule,
    clients: Clients,
    conn: Option<PoolConnection<Postgres>>,
    /// The clock of the participant's last hold or write, if any.
    hold_clock: Option<i64>,
    /// When the operation under way was sent, and the instant its time counts from.
    sent_at: SystemTime,
    started: Instant,
}

impl Runner {
    /// Carries out `kind` for `who`, after `history` (their operations earlier in the round),
    /// with `pending` the payment a tap left.
    pub(super) async fn run(
        &self,
        room: &Room,
        who: &Participant,
        kind: &Kind,
        pending: Vec<Planned>,
        history: Vec<Recorded>,
    ) -> Result<Ran, RoomError> {
        let (new, left) = plan(room, kind, pending)?;
        let first_new = history.len();
        let mut request = Request::rebuilt(self, room, who, &history, new)?;
        if room.played.kind.is_counter()
            && matches!(kind, Kind::Tap(_))
            && request.clients.actors[0].holding
        {
            // The round counts the buyers told yes against its tickets: one each.
            return Err(RoomError::Conflict(
                "you have a ticket already: one per phone".into(),
            ));
        }
        let mut done: Vec<Done> = Vec::new();
        let mut fault = None;
        for i in first_new..request.program.len() {
            request.pause(i, first_new).await?;
            let clock = clock_now(room);
            request.clients.clock = clock;
            let (sent, result, seen) = match request.step(i, clock).await? {
                Stepped::Answered(sent, result, seen) => (sent, result, seen),
                Stepped::Fault(e) => {
                    fault = Some(e);
                    break;
                }
            };
            request.clients.sent(&request.schedule, 0, i);
            request
                .clients
                .answered(&request.schedule, 0, i, &result, &seen);
            let (op, condition) = request.program[i].clone();
            done.push(Done {
                op_index: i,
                op,
                condition,
                sent,
                result,
                seen,
                clock,
                sent_at: request.sent_at,
                took_ms: request.started.elapsed().as_secs_f64() * 1000.0,
            });
        }
        let me = &request.clients.actors[0];
        if me.in_tx {
            // Only after a fault: the program's transaction did not reach its end.
            if let Some(c) = request.conn.take() {
                c.detach();
            }
        }
        Ok(Ran {
            holding: me.holding,
            done,
            left,
            fault,
        })
    }
}

impl<'a> Request<'a> {
    /// The request with `new` operations after `history`, its client replayed through every
    /// earlier answer.
    fn rebuilt(
        runner: &'a Runner,
        room: &'a Room,
        who: &'a Participant,
        history: &[Recorded],
        new: Vec<Planned>,
    ) -> Result<Request<'a>, RoomError> {
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
        let hold_clock = (0..history.len()).rev().find_map(|i| {
            matches!(
                program[i].0,
                Op::Hold { .. } | Op::Claim { .. } | Op::RedisHold { .. } | Op::Write { .. }
            )
            .then_some(history[i].3)
        });
        Ok(Request {
            runner,
            room,
            who,
            program,
            schedule,
            clients,
            conn: None,
            hold_clock,
            sent_at: SystemTime::now(),
            started: Instant::now(),
        })
    }

    /// Waits as the room says before operation `i`: a late payment lands after the hold ran
    /// out; a write after its check waits the gap.
    async fn pause(&self, i: usize, first_new: usize) -> Result<(), RoomError> {
        let settings = &self.room.settings;
        let before = |i: usize| i.checked_sub(1).map(|p| &self.program[p].0);
        let after_payment = matches!(before(i), Some(Op::Pay { .. }));
        if after_payment && settings.late_payments && self.clients.runs(&self.schedule, 0, i) {
            if let Some(at) = self.hold_clock {
                let past = at + settings.hold_seconds as i64 + 1;
                wait_for_clock(&self.runner.pool, &self.room.code, past).await?;
            }
        }
        let checked = i > first_new && matches!(before(i), Some(Op::Read { .. } | Op::Lock { .. }));
        let writes = matches!(self.program[i].0, Op::Write { .. } | Op::Book { .. });
        if checked && writes && settings.gap_ms > 0 {
            tokio::time::sleep(Duration::from_millis(settings.gap_ms as u64)).await;
        }
        Ok(())
    }

    /// Carries out operation `i` at `clock`: Redis's or PostgreSQL's answer, or the client's own
    /// (a skipped operation).
    async fn step(&mut self, i: usize, clock: i64) -> Result<Stepped, RoomError> {
        (self.sent_at, self.started) = (SystemTime::now(), Instant::now());
        let op = self.program[i].0.clone();
        if op.is_redis() && self.clients.runs(&self.schedule, 0, i) {
            return Ok(self.redis_step(i, &op).await);
        }
        match self.clients.prepare(&self.schedule, 0) {
            Action::Done(result) => Ok(Stepped::Answered(None, result, vec![])),
            Action::Send(statement) => {
                if self.conn.is_none() {
                    self.connect().await?;
                }
                Ok(self.sql_step(&op, &statement, clock).await)
            }
        }
    }

    /// A connection of the round's pool, kept for the rest of the request.
    async fn connect(&mut self) -> Result<(), RoomError> {
        let waited = Instant::now();
        let pool = self.runner.pools.of(&self.room.schema());
        self.conn = Some(pool.acquire().await.map_err(RoomError::Database)?);
        phases::ACQUIRE.since(waited);
        // Sent once there is a connection to send it on: the record says when the statement
        // went, not when it began to wait for a connection.
        (self.sent_at, self.started) = (SystemTime::now(), Instant::now());
        Ok(())
    }

    /// Sends `statement` (the SQL of `op`) on the request's connection.
    async fn sql_step(&mut self, op: &Op, statement: &sql::Statement, clock: i64) -> Stepped {
        let c = self.conn.as_mut().expect("a connection");
        let failed = matches!(op, Op::Commit) && self.clients.actors[0].failed;
        phases::ROUND_TRIPS.count(1);
        let scenario = self.schedule.scenario();
        let ran = exec::run(c, op, statement, failed, clock, scenario).await;
        phases::STATEMENT.since(self.started);
        match ran {
            Ok((result, seen)) => {
                if may_show(op, &result) {
                    // The screens of this process show the seat as soon as its change is
                    // committed, before the request's record is in.
                    self.runner.live.changed(&self.room.code);
                }
                Stepped::Answered(Some(statement.to_psql()), result, seen)
            }
            Err(e) => {
                if let Some(c) = self.conn.take() {
                    c.detach();
                }
                Stepped::Fault(match e {
                    ExecFault::Lost(e) => {
                        // A restart: the pool's other idle connections died too.
                        let round = self.runner.pools.of(&self.room.schema());
                        tokio::spawn(async move { crate::db::discard_dead(&round).await });
                        RoomError::Database(e)
                    }
                    ExecFault::Unexpected(w) => RoomError::Internal(w),
                })
            }
        }
    }

    /// Sends Redis operation `op` (`redis_op.rs`).
    async fn redis_step(&self, i: usize, op: &Op) -> Stepped {
        let held = self.clients.actors[0].current_hold.clone();
        let (redis, room, actor) = (&self.runner.redis, self.room, &self.who.actor);
        match redis_op::send(redis, room, actor, (i, op), &self.program, held).await {
            Ok((cmd, answer)) => {
                Stepped::Answered(Some(cmd), StepResult::Answer { answer }, vec![])
            }
            Err(why) => Stepped::Fault(RoomError::Unavailable(why)),
        }
    }
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
