//! "Prove it on PostgreSQL": every order of the lab's programs run on the server's PostgreSQL
//! against the model (`POST /api/verify`), the progress as the server reports it, then one
//! sentence: every order agreed, or the first difference, with a button that loads it.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::explorer::verdict_words;
use super::postgres::ServerHealth;
use crate::api::{self, Health, Proof};
use crate::state::use_lab;

/// Where a proof stands.
#[derive(Clone, Debug, PartialEq)]
pub enum Proving {
    Idle,
    /// `orders` is 0 until the server has said how many.
    Running {
        run: u64,
        orders: u64,
    },
    Done(Box<Proof>),
    Failed(String),
}

/// A proof's state, and which attempt may still write it: a new schedule drops the old proof,
/// and its answer, when it comes, is ignored.
#[derive(Clone, Copy)]
pub struct Prover {
    state: RwSignal<Proving>,
    attempt: StoredValue<u32>,
}

impl Prover {
    pub fn new() -> Prover {
        Prover {
            state: RwSignal::new(Proving::Idle),
            attempt: StoredValue::new(0),
        }
    }

    /// Forgets the proof (the programs changed); an answer still on its way is ignored.
    pub fn reset(&self) {
        self.attempt.update_value(|a| *a += 1);
        self.state.set(Proving::Idle);
    }

    /// Sets the state, if `attempt` is still the current one.
    fn set(&self, attempt: u32, state: Proving) {
        if self.attempt.get_value() == attempt {
            self.state.set(state);
        }
    }
}

#[component]
pub fn ProveButton(prover: Prover) -> impl IntoView {
    let lab = use_lab();
    let health = use_context::<ServerHealth>().map(|h| h.0);
    let health = move || health.and_then(|h| h.get());
    let prove = move |_| {
        let file = lab.schedule.with_untracked(|s| s.to_file());
        prover.reset();
        let attempt = prover.attempt.get_value();
        prover.set(attempt, Proving::Running { run: 0, orders: 0 });
        spawn_local(async move {
            let result = api::verify(&file, move |run, orders| {
                prover.set(attempt, Proving::Running { run, orders })
            })
            .await;
            prover.set(
                attempt,
                match result {
                    Ok(proof) => Proving::Done(Box::new(proof)),
                    Err(why) => Proving::Failed(why),
                },
            );
        });
    };
    let running = move || matches!(prover.state.get(), Proving::Running { .. });
    view! {
        <button
            on:click=prove
            disabled=move || running() || health() != Some(Health::Connected)
            data-testid="prove"
        >
            {move || match health() {
                Some(Health::DatabaseDown) => "Prove it on PostgreSQL: the server cannot reach its database now",
                Some(Health::NoServer) => "Prove it on PostgreSQL: needs the Last Seat server",
                _ => "Prove it on PostgreSQL",
            }}
        </button>
    }
}

/// The proof's one line: its progress, then what it found (or why it could not run), with a
/// button that loads the first order that differed. One view whose text changes, rather than a
/// view per state, which keeps the page small.
#[component]
pub fn ProofLine(prover: Prover) -> impl IntoView {
    let lab = use_lab();
    let state = prover.state;
    let order = move || match &*state.read() {
        Proving::Done(p) => p
            .first_disagreement
            .as_ref()
            .or(p.first_race.as_ref())
            .map(|d| d.order.clone()),
        _ => None,
    };
    view! {
        <div
            class="proof"
            data-testid="proof"
            data-agree=move || match &*state.read() {
                Proving::Done(p) => Some((p.disagreed == 0 && p.stopped.is_none()).to_string()),
                Proving::Failed(_) => Some("false".to_string()),
                _ => None,
            }
            hidden=move || *state.read() == Proving::Idle
        >
            <p role="status">{move || words(&state.read())}</p>
            {move || order().map(|order| view! {
                <button class="link" data-testid="load-difference" on:click=move |_| { lab.load_order(&order); super::lab::show_stage(); }>
                    "Load that order"
                </button>
            })}
        </div>
    }
}

/// Where the proof stands, in words.
fn words(state: &Proving) -> String {
    let proof = match state {
        Proving::Idle => return String::new(),
        Proving::Running { orders: 0, .. } => return "Running every order on PostgreSQL…".to_string(),
        Proving::Running { run, orders } => {
            return format!("Running every order on PostgreSQL: {run} of {orders}…")
        }
        Proving::Failed(why) => return why.clone(),
        Proving::Done(proof) => proof,
    };
    let mut out = match (&proof.stopped, proof.disagreed, proof.run) {
        (_, n @ 1.., run) => format!(
            "{n} of {run} orders: PostgreSQL answered differently from the model. The first: {}.",
            proof
                .first_disagreement
                .as_ref()
                .and_then(|d| d.differences.first().cloned())
                .unwrap_or_default()
        ),
        (Some(why), _, run) => format!(
            "The model and PostgreSQL agree on the {run} orders that ran; then it stopped: {why}."
        ),
        (None, _, 1) => "The only order: the model and PostgreSQL agree.".to_string(),
        (None, _, run) => format!("All {run} orders: the model and PostgreSQL agree."),
    };
    if proof.races > 0 {
        out += &format!(
            " In {} of them the sessions that one commit or rollback woke ran in another order \
             than the model's: it names that race in advance, and PostgreSQL may go either way.",
            proof.races
        );
    }
    let counts = proof
        .verdicts
        .iter()
        .map(|(v, n)| format!("{}: {n}", verdict_words(v)))
        .collect::<Vec<_>>()
        .join("; ");
    out + &format!(
        " Orders by the model's verdict: {counts}. {} runs per second.",
        proof.runs_per_second
    )
}
