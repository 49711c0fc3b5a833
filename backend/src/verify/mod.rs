//! Every order on the real server: runs the orders of a `Plan` (every feasible interleaving of
//! a schedule's programs, or an even sample) on PostgreSQL, several at once, each a replay of
//! its own (`replay.rs`: the model's outcome against PostgreSQL's, in a schema of its own), and
//! tallies them by the model's verdict. `backend verify` and `POST /api/verify` both come here.
//!
//! A difference in an order where the model names a race (`Trace::races`: sessions that one
//! commit or rollback woke together, which PostgreSQL runs in whichever order the machine
//! picks) is counted apart, never as a disagreement: the model said in advance that the real
//! server may go either way there.

pub mod cli;
mod plan;
mod tally;
pub mod words;

use std::future::Future;
use std::time::Duration;

use futures::stream::{self, StreamExt};
use shared::Schedule;
use sqlx::PgPool;

pub use plan::{Coverage, Plan, COUNT_LIMIT};
pub use tally::{Difference, Summary, Tally, VerdictCount};

use crate::replay::{self, ReplayError};

/// What one order came to.
#[derive(Debug)]
pub enum Finding {
    /// The model and PostgreSQL agree entry by entry, on the tables and the verdict.
    Agreed,
    /// They differ, in an order where the model named a race (the differences say it first).
    RaceTaken(Vec<String>),
    /// They differ where the model named no race: a bug in the model or the executor.
    Disagreed(Vec<String>),
}

/// One order run, by its place in the plan.
#[derive(Debug)]
pub struct Run {
    pub index: usize,
    /// The order, as actor indices.
    pub order: Vec<usize>,
    /// The model's verdict on the order.
    pub verdict: shared::outcome::Verdict,
    pub finding: Finding,
}

/// Why a verification stopped before its last order: the database failed (a restart, a lost
/// connection, a run past its bound), or the server would not give it a turn. Never a
/// disagreement: it says nothing of the schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stopped(pub String);

/// Runs `order`, the plan's order `index`: the model and PostgreSQL, compared.
async fn run_one(
    pool: &PgPool,
    order: &Schedule,
    index: usize,
    limit: Duration,
) -> Result<Run, Stopped> {
    let report = match replay::replay_within(pool, order, limit).await {
        Ok(report) => report,
        // The walk only yields orders the model can run: this one it could not is a bug.
        Err(ReplayError::Invalid(e)) => {
            return Err(Stopped(format!(
                "the model could not run an order it found: {e}"
            )))
        }
        Err(e @ (ReplayError::Exec(_) | ReplayError::NoMariaDb(_))) => {
            return Err(Stopped(e.to_string()))
        }
    };
    let finding = if report.agree {
        Finding::Agreed
    } else if !report.simulated.races.is_empty() {
        Finding::RaceTaken(report.differences)
    } else {
        Finding::Disagreed(report.differences)
    };
    Ok(Run {
        index,
        order: order.order().to_vec(),
        verdict: report.simulated.verdict,
        finding,
    })
}

/// Runs every order of `plan`, `jobs` at once, each after `turn` has granted it a slot (the
/// server's admission; the command's is free), each bounded by `limit`; tells `seen` after
/// every run. Stops at the first run that fails for a reason other than the schedule (what
/// ran is tallied, and the reason kept).
pub async fn verify<T, F, Fut>(
    pool: &PgPool,
    schedule: &Schedule,
    plan: &Plan,
    jobs: usize,
    limit: Duration,
    turn: F,
    mut seen: impl FnMut(&Tally),
) -> Tally
where
    F: Fn(&Schedule) -> Fut,
    Fut: Future<Output = Result<T, Stopped>>,
{
    // Each order is a schedule of its own: the file's `expect` was for the file's order.
    let mut schedule = schedule.clone();
    schedule.set_expect(None);
    let schedule = &schedule;
    let mut tally = Tally::new(schedule, plan);
    let turn = &turn;
    let mut runs = stream::iter(0..plan.orders.len())
        .map(|index| async move {
            let order = schedule.with_order(plan.orders[index].clone());
            let _slot = turn(&order).await?;
            run_one(pool, &order, index, limit).await
        })
        .buffer_unordered(jobs.max(1));
    while let Some(run) = runs.next().await {
        match run {
            Ok(run) => tally.add(run),
            Err(stopped) => {
                // Dropping the stream ends the runs in flight (their schemas are dropped).
                tally.stop(stopped);
                break;
            }
        }
        seen(&tally);
    }
    tally.finish();
    tally
}
