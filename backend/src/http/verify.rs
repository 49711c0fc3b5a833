//! `POST /api/verify`: a schedule file in, every feasible order of its programs run on
//! PostgreSQL against the model (`verify`), and the answer streamed as it goes, one JSON object
//! per line (`application/x-ndjson`): `{"start": coverage}`, then `{"progress": …}` a few times
//! a second, then `{"summary": …}` (per verdict, the agreement, the first difference with its
//! loadable schedule, the runs per second).
//!
//! Bounded before it starts: at most `VerifyRules::max_orders` orders (more is a 422 that says
//! how to verify them on one's own database), their estimated time on PostgreSQL together
//! within `max_cost`, and `at_once` verifications at a time (one more is a 503 with
//! `Retry-After`). Each order then takes its turn under the same admission as `POST /api/runs`
//! (`admission.rs`), so a verification shares the database fairly with everyone's runs. A
//! client that goes away ends its verification: the runs in flight are dropped with their
//! schemas.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use futures::channel::mpsc;
use futures::SinkExt;
use serde::Serialize;
use serde_json::json;
use shared::Schedule;
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;

use super::admission::{Admission, Refusal};
use super::client::ClientAddr;
use super::cost::Cost;
use super::routes::schedule_of;
use super::{ApiError, AppState};

mod rules;
use crate::verify::{verify as verify_all, Plan, Stopped};
pub use rules::VerifyRules;

/// How long one order may wait for its turn, again and again while the server is busy, before
/// the verification gives up.
const TURN_PATIENCE: Duration = Duration::from_secs(60);

/// How often a progress line goes out at most.
const PROGRESS_EVERY: Duration = Duration::from_millis(150);

/// `POST /api/verify`.
pub async fn verify(
    State(state): State<AppState>,
    ClientAddr(client): ClientAddr,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let schedule = schedule_of(&headers, body)?;
    state.readiness.check().map_err(ApiError::NotReady)?;
    let rules = state.verify_rules.clone();
    let Ok(permit) = state.verifications.clone().try_acquire_owned() else {
        return Err(ApiError::Verifying {
            at_once: rules.at_once,
            retry_after: 10,
        });
    };
    let max_run = state.admission.rules().max_cost;
    let (schedule, plan) = tokio::task::spawn_blocking(move || planned(schedule, &rules, max_run))
        .await
        .map_err(|e| ApiError::Internal(format!("planning a verification: {e}")))??;
    let (lines, receiver) = mpsc::channel::<Bytes>(16);
    let task = tokio::spawn(stream(state, client, schedule, plan, lines, permit));
    let body = futures::stream::unfold((receiver, Abort(task)), |(mut receiver, abort)| async {
        let line = futures::StreamExt::next(&mut receiver).await?;
        Some((Ok::<_, std::convert::Infallible>(line), (receiver, abort)))
    });
    Ok((
        [
            (CONTENT_TYPE, "application/x-ndjson"),
            (CACHE_CONTROL, "no-store"),
        ],
        Body::from_stream(body),
    )
        .into_response())
}

/// Ends the verification's task when its answer is dropped (the client went away).
struct Abort(tokio::task::JoinHandle<()>);

impl Drop for Abort {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The orders of `schedule`, if the rules allow them all.
fn planned(
    schedule: Schedule,
    rules: &VerifyRules,
    max_run: Duration,
) -> Result<(Schedule, Plan), ApiError> {
    let Some(plan) = Plan::every_order(&schedule, rules.max_orders) else {
        return Err(ApiError::TooCostly(format!(
            "this schedule has more than {} feasible orders, and the server proves at most {} \
             at a time: shorten the programs, or prove them all on your own database with \
             `cargo run -p backend -- verify FILE`",
            rules.max_orders, rules.max_orders
        )));
    };
    let mut total = Duration::ZERO;
    for order in &plan.orders {
        let order = schedule.with_order(order.clone());
        let cost = Cost::of(&shared::engine::simulate(&order).map_err(ApiError::CannotRun)?);
        if cost.estimate > max_run {
            return Err(ApiError::TooCostly(cost.refusal(max_run)));
        }
        total += cost.estimate;
    }
    if total > rules.max_cost {
        return Err(ApiError::TooCostly(format!(
            "its {} orders would keep PostgreSQL busy for about {} minutes together, and the \
             server proves up to {} minutes' worth at a time: shorten the programs, or prove \
             them on your own database with `cargo run -p backend -- verify FILE`",
            plan.orders.len(),
            total.as_secs().div_ceil(60),
            rules.max_cost.as_secs() / 60
        )));
    }
    Ok((schedule, plan))
}

/// Runs the verification, writing its lines to `lines` until the last (or until nobody reads).
async fn stream(
    state: AppState,
    client: std::net::IpAddr,
    schedule: Schedule,
    plan: Plan,
    mut lines: mpsc::Sender<Bytes>,
    _permit: OwnedSemaphorePermit,
) {
    if lines.send(line("start", &plan.coverage())).await.is_err() {
        return;
    }
    let rules = state.admission.rules();
    let jobs = rules.slots.min(rules.max_waiting_per_client).max(1);
    let admission = state.admission.clone();
    let mut last = Instant::now();
    let tally = verify_all(
        &state.pool,
        &schedule,
        &plan,
        jobs,
        state.run_limit,
        |order| turn(admission.clone(), client, order),
        |tally| {
            let (run, orders) = tally.progress();
            if run < orders && last.elapsed() < PROGRESS_EVERY {
                return;
            }
            last = Instant::now();
            let progress = json!({ "run": run, "orders": orders, "disagreed": tally.disagreed() });
            // Progress that finds the channel full is skipped: the next one says more.
            let _ = lines.try_send(line("progress", &progress));
        },
    )
    .await;
    let _ = lines.send(line("summary", &tally.summary())).await;
}

/// A turn for `order` under the server's admission, asked again while the server is busy.
fn turn(
    admission: Arc<Admission>,
    client: std::net::IpAddr,
    order: &Schedule,
) -> impl std::future::Future<Output = Result<super::admission::Permit, Stopped>> {
    let cost = shared::engine::simulate(order).map(|trace| Cost::of(&trace));
    async move {
        let cost = cost.map_err(|e| Stopped(format!("the model could not run an order: {e}")))?;
        let deadline = Instant::now() + TURN_PATIENCE;
        loop {
            match admission.admit(client, cost).await {
                Ok(permit) => return Ok(permit),
                Err(Refusal::Busy { .. }) if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(100)).await
                }
                Err(Refusal::Busy { .. }) => {
                    return Err(Stopped(format!(
                        "the server stayed busy with other runs for {} s: try again later",
                        TURN_PATIENCE.as_secs()
                    )))
                }
                Err(Refusal::TooCostly { cost, limit }) => {
                    return Err(Stopped(cost.refusal(limit)))
                }
            }
        }
    }
}

/// One line of the stream: `{"<kind>": value}` and a newline.
fn line(kind: &str, value: &impl Serialize) -> Bytes {
    let mut text = serde_json::to_string(&json!({ kind: value })).unwrap_or_default();
    text.push('\n');
    Bytes::from(text)
}
