//! How the answer of an operation changes what the buyer's application knows: whether its
//! transaction is open or failed, the seats it saw, its current hold, whether it holds its
//! seats and whether its last attempt failed (the rules are the module's), the clock and the
//! simulated Redis's keys.

use super::{is_retryable, Clients, RedisKey};
use crate::outcome::{Answer, SeenRow, StepResult};
use crate::schedule::{Op, Schedule};
use crate::sql;

impl Clients {
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
        if *result == StepResult::Skipped && !self.runs(schedule, actor, op_index) {
            // Its condition did not hold: nothing was sent, nothing is learnt.
            let a = &mut self.actors[actor];
            a.in_flight = None;
            match op {
                Op::Begin { .. } => a.skipping = true,
                Op::Commit | Op::Rollback => a.skipping = false,
                _ => {}
            }
            return;
        }
        let new_hold = sql::hold_id(name, op_index, op);
        let a = &mut self.actors[actor];
        a.in_flight = None;
        let retryable = is_retryable(result);
        if a.in_tx {
            a.tx_retryable |= retryable;
        }
        match op {
            Op::Begin { .. } if !result.is_error() => {
                a.in_tx = true;
                a.failed = false;
                a.tx_took = None;
                a.tx_retryable = false;
            }
            Op::Commit | Op::Rollback => {
                let committed = matches!(op, Op::Commit) && matches!(result, StepResult::Ok { .. });
                if let Some(took) = a.tx_took.take() {
                    a.holding = committed && took;
                }
                a.retry = std::mem::take(&mut a.tx_retryable);
                a.in_tx = false;
                a.failed = false;
            }
            Op::Read { seats } | Op::Lock { seats, .. } if !result.is_error() => {
                // A name is free where no account was found; a seat or a counter is
                // available only where its row was returned so.
                let username = schedule.scenario().kind.is_username();
                for seat in seats {
                    let available = if username {
                        !seen.iter().any(|r| &r.seat == seat)
                    } else {
                        seen.iter().any(|r| &r.seat == seat && r.available)
                    };
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
            Op::Hold { .. } => {
                let held = *result
                    == (StepResult::Answer {
                        answer: Answer::Held,
                    });
                if held {
                    a.current_hold = Some(new_hold);
                }
                a.holding = held;
                a.retry = retryable
                    || *result
                        == (StepResult::Answer {
                            answer: Answer::Busy,
                        });
            }
            Op::Confirm { .. } => match result {
                StepResult::Answer {
                    answer: Answer::Issued | Answer::Duplicate,
                } => a.holding = true,
                StepResult::Answer {
                    answer: Answer::RefundDue,
                } => a.holding = false,
                _ => {}
            },
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
                a.holding = held;
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
        if matches!(op, Op::Release | Op::RedisRelease) {
            a.holding = false;
        }
        if op.takes_seats() && !op.is_one_call() {
            // A claim, write or book: it took every seat it named, or it was refused.
            let took = match (op, result) {
                (Op::Book { .. }, StepResult::Ok { .. }) => true,
                (_, StepResult::Ok { rows: Some(n) }) => *n as usize == op.seats().len(),
                _ => false,
            };
            if a.in_tx {
                a.tx_took = Some(a.tx_took.unwrap_or(true) && took);
            } else {
                a.holding = took;
            }
        }
        if op.is_statement() && !a.in_tx {
            // A statement of its own is an attempt of its own.
            a.retry = retryable;
        }
        if result.is_error() && a.in_tx {
            let deadlock = matches!(result, StepResult::Error { code, .. } if code.is_deadlock());
            if !(cfg!(feature = "innodb") && self.innodb) {
                a.failed = true;
            } else if deadlock {
                // InnoDB rolled the whole transaction back: nothing it took is kept.
                a.failed = true;
                a.tx_took = Some(false);
            }
        }
    }
}
