//! The client side of a run: what each buyer's application remembers between round trips
//! (seats it saw as available, its current hold, whether its transaction is open or failed),
//! the virtual clock, the payment provider, and the simulated Redis that the Redis hold keeps
//! its keys in. The simulator and the real executor drive the
//! very same `Clients`, so the two can differ only in what the database answers.

use std::collections::BTreeMap;

use crate::outcome::{Answer, SeenRow, StepResult};
use crate::schedule::{Op, PayOutcome, Schedule, SeatStatus};
use crate::sql::{self, Context, Statement};

/// What one actor's application knows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ActorState {
    /// The index of the next operation in its program.
    pub next: usize,
    /// An operation that was sent and has not answered yet (it waits for a lock).
    pub in_flight: Option<InFlight>,
    /// Inside `begin` … `commit`/`rollback`.
    pub in_tx: bool,
    /// An error aborted the open transaction: its `commit` answers ROLLBACK.
    pub failed: bool,
    /// The clock when its open transaction began.
    pub tx_clock: i64,
    /// seat → whether it was last seen available.
    pub remembered: BTreeMap<String, bool>,
    /// Its current hold id (from a claim, write or hold that took every seat).
    pub current_hold: Option<String>,
}

/// An operation in flight.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InFlight {
    pub entry: usize,
    pub op_index: usize,
}

/// How an entry is carried out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Send this statement to the database.
    Send(Statement),
    /// Finished without a round trip (a skipped write, a payment).
    Done(StepResult),
}

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

/// The client side of every actor, the clock, the payment provider and Redis.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Clients {
    pub actors: Vec<ActorState>,
    pub clock: i64,
    /// Payment decisions by idempotency key (hold id): a retry gets the first one.
    pub provider: BTreeMap<String, PayOutcome>,
    /// The Redis hold keys by seat.
    pub redis: BTreeMap<String, RedisKey>,
    show: i64,
    hold_minutes: i64,
}

impl Clients {
    pub fn new(schedule: &Schedule) -> Clients {
        let mut actors = vec![ActorState::default(); schedule.actors().len()];
        for seat in &schedule.scenario().seats {
            if let (Some(holder), SeatStatus::Held | SeatStatus::Booked) =
                (&seat.holder, seat.status)
            {
                if let Some(i) = schedule.actor_index(holder) {
                    actors[i].current_hold = Some(sql::initial_hold(holder));
                }
            }
        }
        Clients {
            actors,
            clock: schedule.scenario().clock,
            provider: BTreeMap::new(),
            redis: BTreeMap::new(),
            show: schedule.scenario().show,
            hold_minutes: schedule.scenario().hold_minutes,
        }
    }

    /// The SQL context of `actor`'s next operation.
    pub fn context<'a>(&self, schedule: &'a Schedule, actor: usize) -> Context<'a> {
        let a = &self.actors[actor];
        let name = schedule.actors()[actor].name.as_str();
        let op = &schedule.actors()[actor].program[a.next];
        Context {
            show: self.show,
            actor: name,
            hold_minutes: self.hold_minutes,
            new_hold_id: sql::hold_id(name, a.next, op),
            current_hold: a.current_hold.clone().unwrap_or_else(|| sql::no_hold(name)),
            tx_clock: if a.in_tx { a.tx_clock } else { self.clock },
            clock: self.clock,
        }
    }

    /// Decides how `actor`'s next operation is carried out. The caller must have checked that
    /// the actor has a next operation and nothing in flight.
    pub fn prepare(&mut self, schedule: &Schedule, actor: usize) -> Action {
        let a = &self.actors[actor];
        let op = &schedule.actors()[actor].program[a.next];
        match op {
            Op::Write { seats, .. } | Op::Book { seats } if remembers_taken(a, seats) => {
                Action::Done(StepResult::Skipped)
            }
            Op::Pay { outcome } => {
                let key = a
                    .current_hold
                    .clone()
                    .unwrap_or_else(|| sql::no_hold(&schedule.actors()[actor].name));
                self.provider.entry(key).or_insert(*outcome);
                Action::Done(StepResult::Ok { rows: None })
            }
            Op::RedisHold { seats } => {
                let free = seats
                    .iter()
                    .all(|s| self.redis.get(s).is_none_or(|k| !k.alive(self.clock)));
                let answer = if free {
                    Answer::Held
                } else {
                    Answer::Unavailable
                };
                Action::Done(StepResult::Answer { answer })
            }
            Op::RedisRelease => {
                let answer = if self.redis_seats(actor).next().is_some() {
                    Answer::Released
                } else {
                    Answer::Expired
                };
                Action::Done(StepResult::Answer { answer })
            }
            _ => Action::Send(
                sql::statement(op, &self.context(schedule, actor))
                    .expect("every op but pay and the Redis ops has SQL"),
            ),
        }
    }

    /// The seats whose Redis key is alive and holds `actor`'s current hold id.
    fn redis_seats(&self, actor: usize) -> impl Iterator<Item = &String> {
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

    /// Marks `actor`'s next operation as sent in `entry` (before its answer is known).
    pub fn sent(&mut self, schedule: &Schedule, actor: usize, entry: usize) {
        let a = &mut self.actors[actor];
        if let Op::Begin { .. } = schedule.actors()[actor].program[a.next] {
            a.tx_clock = self.clock;
        }
        a.in_flight = Some(InFlight {
            entry,
            op_index: a.next,
        });
        a.next += 1;
    }

    /// Takes in the answer of `actor`'s operation at `op_index`.
    pub fn answered(
        &mut self,
        schedule: &Schedule,
        actor: usize,
        op_index: usize,
        result: &StepResult,
        seen: &[SeenRow],
    ) {
        let name = &schedule.actors()[actor].name;
        let op = &schedule.actors()[actor].program[op_index];
        let new_hold = sql::hold_id(name, op_index, op);
        let a = &mut self.actors[actor];
        a.in_flight = None;
        match op {
            Op::Begin { .. } if !result.is_error() => {
                a.in_tx = true;
                a.failed = false;
            }
            Op::Commit | Op::Rollback => {
                a.in_tx = false;
                a.failed = false;
            }
            Op::Read { seats } | Op::Lock { seats, .. } if !result.is_error() => {
                for seat in seats {
                    let available = seen.iter().any(|r| &r.seat == seat && r.available);
                    a.remembered.insert(seat.clone(), available);
                }
            }
            Op::Claim { seats, .. } | Op::Write { seats, .. } => {
                if let StepResult::Ok { rows: Some(n) } = result {
                    if *n as usize == seats.len() {
                        a.current_hold = Some(new_hold);
                    }
                }
            }
            Op::Hold { .. }
                if *result
                    == (StepResult::Answer {
                        answer: Answer::Held,
                    }) =>
            {
                a.current_hold = Some(new_hold);
            }
            Op::RedisHold { seats } => {
                let held = *result
                    == (StepResult::Answer {
                        answer: Answer::Held,
                    });
                for seat in seats {
                    a.remembered.insert(seat.clone(), held);
                    if held {
                        let key = RedisKey {
                            actor,
                            hold_id: new_hold.clone(),
                            until: self.clock + self.hold_minutes,
                        };
                        self.redis.insert(seat.clone(), key);
                    }
                }
                if held {
                    a.current_hold = Some(new_hold);
                }
            }
            Op::RedisRelease
                if *result
                    == (StepResult::Answer {
                        answer: Answer::Released,
                    }) =>
            {
                let hold = a.current_hold.as_ref();
                self.redis.retain(|_, k| Some(&k.hold_id) != hold);
            }
            Op::Advance { minutes } if !result.is_error() => self.clock += minutes,
            _ => {}
        }
        if result.is_error() && a.in_tx {
            a.failed = true;
        }
    }

    /// The result of a `commit` whose transaction had failed, as PostgreSQL reports it.
    pub fn commit_of_failed(&self, actor: usize) -> bool {
        self.actors[actor].failed
    }

    /// Whether the provider took this hold's money (a timeout counts: the money moved).
    pub fn paid(&self, hold_id: &str) -> bool {
        matches!(
            self.provider.get(hold_id),
            Some(PayOutcome::Succeeds | PayOutcome::Unknown)
        )
    }
}

fn remembers_taken(a: &ActorState, seats: &[String]) -> bool {
    seats.iter().any(|s| a.remembered.get(s) == Some(&false))
}

/// A returned row as the actor judges it: available if AVAILABLE, or HELD with a hold that has
/// run out by the clock when the answer arrived.
pub fn seen_row(
    seat: &str,
    status: SeatStatus,
    holder: Option<String>,
    until: Option<i64>,
    clock: i64,
) -> SeenRow {
    let available = match status {
        SeatStatus::Available => true,
        SeatStatus::Held => until.is_some_and(|u| u < clock),
        SeatStatus::Booked => false,
    };
    SeenRow {
        seat: seat.to_string(),
        status,
        holder,
        until,
        available,
    }
}
