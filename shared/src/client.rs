//! The client side of a run: what each buyer's application remembers between round trips
//! (seats it saw as available, its current hold, whether its transaction is open or failed,
//! whether it holds its seats and whether its last attempt failed), the virtual clock, the
//! payment provider, and the simulated Redis that the Redis hold keeps its keys in. The
//! simulator and the real executor drive the very same `Clients`, so the two can differ only
//! in what the database answers; in particular they decide alike whether an operation's
//! condition (`"if"`) holds.
//!
//! The rules of a condition, decided when the operation is due to be sent (every earlier
//! operation of the buyer has answered by then):
//!
//! - `held` holds while the buyer's application was told it has its seats: its last `hold` or
//!   `redis_hold` answered `held`, or its `claim`, `write` or `book` took every seat it named
//!   and its transaction committed (at once outside a transaction; inside one, every such
//!   statement of the transaction took all its seats and the `commit` succeeded), or its
//!   `confirm` answered `issued` or `duplicate`; and it has not since been refused (a hold
//!   answering anything else, a claim, write or book that took fewer seats, was skipped or
//!   failed, a transaction of them that did not commit, a confirm answering `refund_due`) or
//!   released them (`release`, `redis_release`). A buyer holding a seat at the start holds.
//! - `failed` holds if the buyer's last attempt failed in a way worth retrying. An attempt is
//!   a transaction (it ends with its `commit` or `rollback`), a statement sent outside one, or
//!   a `hold`; it failed so if the transaction or statement met 40001, 40P01 or 55P03, or the
//!   hold answered `busy`.
//! - Inside a transaction every operation carries its `begin`'s condition and shares its
//!   decision: a skipped `begin` skips everything up to its `commit` or `rollback`.
//!
//! An operation whose condition does not hold is not sent and answers `skipped`; it changes
//! nothing the buyer knows.
//!
//! How an answer changes what the application knows is `answered`'s; the simulated Redis's
//! keys and commands are `redis`'s.

mod answered;
mod redis;

use std::collections::BTreeMap;

use crate::outcome::{Answer, SeenRow, StepResult};
use crate::schedule::{Condition, Op, PayOutcome, Schedule, SeatStatus};
use crate::sql::{self, Context, Statement};

pub use redis::RedisKey;

/// What one actor's application knows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ActorState {
    /// The index of the next operation in its program.
    pub next: usize,
    /// An operation that was sent and has not answered yet (it waits for a lock).
    pub in_flight: Option<InFlight>,
    /// Inside `begin` … `commit`/`rollback`.
    pub in_tx: bool,
    /// An error aborted the open transaction: its `commit` answers ROLLBACK. On InnoDB only a
    /// deadlock does (its transaction is rolled back at once, and the connection is in
    /// autocommit until the next `begin`; `commit` then answers OK with nothing to commit); any
    /// other error undoes its statement alone, and `commit` commits the rest.
    pub failed: bool,
    /// The clock when its open transaction began.
    pub tx_clock: i64,
    /// seat → whether it was last seen available.
    pub remembered: BTreeMap<String, bool>,
    /// Its current hold id (from a claim, write or hold that took every seat).
    pub current_hold: Option<String>,
    /// Its application was told it has its seats (the `held` condition).
    pub holding: bool,
    /// Its last attempt failed with 40001, 40P01 or 55P03, or its hold was busy (`failed`).
    pub retry: bool,
    /// In the open transaction: whether every claim, write and book took all its seats
    /// (`None`: there was none).
    pub tx_took: Option<bool>,
    /// In the open transaction: a statement met 40001, 40P01 or 55P03.
    pub tx_retryable: bool,
    /// Inside a transaction whose `begin` was skipped by its condition.
    pub skipping: bool,
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
    /// The database is InnoDB: an error other than a deadlock undoes only its statement.
    innodb: bool,
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
                    actors[i].holding = true;
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
            innodb: schedule.database() == crate::schedule::Database::Innodb,
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

    /// Whether operation `op_index` of `actor`'s program runs, when it is the next one: its
    /// condition holds (see the module's rules). False means it answers `skipped`.
    pub fn runs(&self, schedule: &Schedule, actor: usize, op_index: usize) -> bool {
        self.unmet(schedule, actor, op_index).is_none()
    }

    /// The condition of operation `op_index` of `actor`'s program, when it is the next one, if
    /// it does not hold; `None` if the operation runs.
    pub fn unmet(&self, schedule: &Schedule, actor: usize, op_index: usize) -> Option<Condition> {
        let a = &self.actors[actor];
        let condition = schedule.actors()[actor].condition(op_index);
        if a.skipping {
            return Some(condition);
        }
        if a.in_tx {
            // Decided at its begin.
            return None;
        }
        let holds = match condition {
            Condition::Always => true,
            Condition::Held => a.holding,
            Condition::Failed => a.retry,
        };
        (!holds).then_some(condition)
    }

    /// Decides how `actor`'s next operation is carried out. The caller must have checked that
    /// the actor has a next operation and nothing in flight.
    pub fn prepare(&mut self, schedule: &Schedule, actor: usize) -> Action {
        let a = &self.actors[actor];
        if !self.runs(schedule, actor, a.next) {
            return Action::Done(StepResult::Skipped);
        }
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
                sql::statement_of(schedule, op, &self.context(schedule, actor))
                    .expect("every op but pay and the Redis ops has SQL"),
            ),
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

/// An error worth retrying the attempt for: a serialization failure (40001), a deadlock
/// (40P01), a lock not available (55P03).
pub fn is_retryable(result: &StepResult) -> bool {
    matches!(result, StepResult::Error { code, .. } if code.retryable())
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
        value: None,
        available,
    }
}

/// A returned counter row as the actor judges it: enough left if its value covers what one
/// request takes (a coupon's is 1 while unused).
pub fn seen_counter(row: &str, value: i64, take: i64) -> SeenRow {
    SeenRow {
        seat: row.to_string(),
        status: SeatStatus::Available,
        holder: None,
        until: None,
        value: Some(value),
        available: value >= take,
    }
}

/// An account that a username's `read` or `lock` returned: the name is taken.
pub fn seen_taken(name: &str) -> SeenRow {
    SeenRow {
        seat: name.to_string(),
        status: SeatStatus::Booked,
        holder: None,
        until: None,
        value: None,
        available: false,
    }
}
