//! PostgreSQL's answer to an operation, read as a step result exactly as the model writes one.

use shared::client;
use shared::outcome::{Answer, SeenRow, StepResult};
use shared::schedule::{Op, SeatStatus};

use super::actor::TxEffect;
use super::statement::{Counting, Fetch, Raw};
use super::ExecError;

/// How the answer of `op` is fetched; `counting`: how a counter's rows are read, on one.
pub(crate) fn fetch_of(op: &Op, counting: Option<Counting>) -> Fetch {
    match op {
        Op::Read { .. } | Op::Lock { .. } => counting.map_or(Fetch::Rows, Fetch::Counters),
        Op::Hold { .. } | Op::Confirm { .. } => Fetch::Text,
        _ => Fetch::Affected,
    }
}

/// How `op` moves its connection in or out of a transaction.
pub(crate) fn tx_effect_of(op: &Op) -> TxEffect {
    match op {
        Op::Begin { .. } => TxEffect::Begins,
        Op::Commit | Op::Rollback => TxEffect::Ends,
        _ => TxEffect::Keeps,
    }
}

/// The step result of `op` and the rows it returned. `commit_of_failed`: the op is a `commit`
/// of a transaction that an error had aborted (PostgreSQL answers with the tag ROLLBACK, which
/// the driver does not report). `clock`: the client's clock as the answer arrives.
pub(crate) fn step(
    op: &Op,
    answer: Result<Raw, sqlx::Error>,
    commit_of_failed: bool,
    clock: i64,
) -> Result<(StepResult, Vec<SeenRow>), ExecError> {
    let raw = match answer {
        Ok(raw) => raw,
        // The session ended under the statement (a restart, `pg_terminate_backend`): that is
        // no answer of PostgreSQL's to the schedule, and never a step of the trace.
        Err(e) if crate::db::Fault::of(&e).is_some() => return Err(e.into()),
        Err(sqlx::Error::Database(e)) => {
            let code = e
                .code()
                .map(|c| c.into_owned())
                .unwrap_or_else(|| "XX000".to_string());
            return Ok((
                StepResult::Error {
                    code: code.into(),
                    message: e.message().to_string(),
                },
                Vec::new(),
            ));
        }
        Err(e) => return Err(e.into()),
    };
    read(op, raw, commit_of_failed, clock)
}

/// The step result of `op` from an answer that is not an error, and the rows it returned: the
/// part of `step` that every database shares (`crate::innodb` reads MySQL's errors itself).
pub(crate) fn read(
    op: &Op,
    raw: Raw,
    commit_of_failed: bool,
    clock: i64,
) -> Result<(StepResult, Vec<SeenRow>), ExecError> {
    let unexpected = |raw: &Raw| ExecError::Unexpected(format!("{} answered {raw:?}", op.name()));
    let result = match (op, &raw) {
        (Op::Commit, _) if commit_of_failed => StepResult::RolledBack,
        (Op::Begin { .. } | Op::Commit | Op::Rollback | Op::Advance { .. }, _) => {
            StepResult::Ok { rows: None }
        }
        (Op::Read { .. } | Op::Lock { .. }, Raw::Rows(rows)) => {
            let seen = rows
                .iter()
                .map(|r| {
                    let status = SeatStatus::from_sql(&r.status).ok_or_else(|| unexpected(&raw))?;
                    Ok(client::seen_row(
                        &r.seat,
                        status,
                        r.holder.clone(),
                        r.until,
                        clock,
                    ))
                })
                .collect::<Result<Vec<_>, ExecError>>()?;
            return Ok((
                StepResult::Ok {
                    rows: Some(seen.len() as u64),
                },
                seen,
            ));
        }
        (Op::Read { .. } | Op::Lock { .. }, Raw::Counters(rows, c)) => {
            let seen: Vec<SeenRow> = rows
                .iter()
                .map(|(row, value)| {
                    if c.taken {
                        client::seen_taken(row)
                    } else {
                        client::seen_counter(row, *value, c.take)
                    }
                })
                .collect();
            return Ok((
                StepResult::Ok {
                    rows: Some(seen.len() as u64),
                },
                seen,
            ));
        }
        (Op::Claim { .. } | Op::Write { .. } | Op::Book { .. } | Op::Sweep, Raw::Affected(n)) => {
            StepResult::Ok { rows: Some(*n) }
        }
        (Op::Hold { .. } | Op::Confirm { .. }, Raw::Text(text)) => StepResult::Answer {
            answer: Answer::parse(text).ok_or_else(|| unexpected(&raw))?,
        },
        (Op::Release, Raw::Affected(n)) => StepResult::Answer {
            answer: if *n >= 1 {
                Answer::Released
            } else {
                Answer::Expired
            },
        },
        _ => return Err(unexpected(&raw)),
    };
    Ok((result, Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commit_of_a_failed_transaction_is_rolled_back() {
        let (r, _) = step(&Op::Commit, Ok(Raw::Affected(0)), true, 0).unwrap();
        assert_eq!(r, StepResult::RolledBack);
    }

    #[test]
    fn a_release_that_updates_nothing_finds_the_hold_expired() {
        let (r, _) = step(&Op::Release, Ok(Raw::Affected(0)), false, 0).unwrap();
        assert_eq!(
            r,
            StepResult::Answer {
                answer: Answer::Expired
            }
        );
    }

    #[test]
    fn an_unknown_function_answer_is_unexpected() {
        let op = Op::Confirm { now: None };
        assert!(matches!(
            step(&op, Ok(Raw::Text("maybe".into())), false, 0),
            Err(ExecError::Unexpected(_))
        ));
    }
}
