//! "Prove it on PostgreSQL": every order of the lab's programs run on the server's PostgreSQL
//! against the model (`POST /api/verify`), the progress as the server reports it, then what it
//! found in the server's words, with a button that loads the first order that differed. One
//! line whose words change, rather than a view per state, which keeps the page small.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::postgres::ServerHealth;
use crate::api::{self, Health, Proof};
use crate::state::use_lab;

/// A proof's state (`None` before one is asked for), and which attempt may still write it: a
/// new schedule drops the old proof, and its answer, when it comes, is ignored.
#[derive(Clone, Copy)]
pub struct Prover {
    state: RwSignal<Option<Proof>>,
    attempt: StoredValue<u64>,
}

impl Prover {
    pub fn new() -> Prover {
        Prover {
            state: RwSignal::new(None),
            attempt: StoredValue::new(0),
        }
    }

    /// Forgets the proof (the programs changed); an answer still on its way is ignored.
    pub fn reset(&self) {
        self.attempt.update_value(|a| *a += 1);
        self.state.set(None);
    }

    /// Says where the proof stands, if `attempt` is still the current one.
    fn say(&self, attempt: u64, agree: Option<bool>, words: String, order: Option<Vec<String>>) {
        if self.attempt.get_value() == attempt {
            self.state.set(Some(Proof {
                agree,
                words,
                order,
            }));
        }
    }

    fn running(&self) -> bool {
        self.state
            .read()
            .as_ref()
            .is_some_and(|p| p.agree.is_none())
    }
}

#[component]
pub fn ProveButton(prover: Prover) -> impl IntoView {
    let lab = use_lab();
    let health = use_context::<ServerHealth>();
    let health = move || health.and_then(|h| h.get());
    let server = move || lab.schedule.with(|s| s.database().product());
    let prove = move |_| {
        let file = lab.schedule.with_untracked(|s| s.to_file());
        let server = lab.schedule.with_untracked(|s| s.database().product());
        prover.reset();
        let attempt = prover.attempt.get_value();
        prover.say(
            attempt,
            None,
            format!("Running every order on {server}…"),
            None,
        );
        spawn_local(async move {
            let result = api::verify(&file, move |run, orders| {
                let words = format!("Running every order on {server}: {run} of {orders}…");
                prover.say(attempt, None, words, None)
            })
            .await;
            match result {
                Ok(p) => prover.say(attempt, p.agree, p.words, p.order),
                Err(why) => prover.say(attempt, Some(false), why, None),
            }
        });
    };
    view! {
        <button
            on:click=prove
            disabled=move || prover.running() || health() != Some(Health::Connected)
            data-testid="prove"
        >
            {move || match health() {
                Some(Health::DatabaseDown) => format!("Prove it on {}: the server cannot reach its database now", server()),
                Some(Health::NoServer) => format!("Prove it on {}: needs the Last Seat server", server()),
                _ => format!("Prove it on {}", server()),
            }}
        </button>
    }
}

/// The proof's line, and the button that loads the first order that differed: built anew at
/// every change, from plain values (fewer reactive parts, a smaller page).
#[component]
pub fn ProofLine(prover: Prover) -> impl IntoView {
    let lab = use_lab();
    move || {
        prover.state.get().map(|p| {
            view! {
                <p class="proof" role="status" data-testid="proof" data-agree=p.agree.map(|a| a.to_string())>
                    {p.words}
                    {p.order.map(|order| view! {
                        " "
                        <button class="link" data-testid="load-difference" on:click=move |_| { lab.load_order(&order); super::lab::show_stage(); }>
                            "Load that order"
                        </button>
                    })}
                </p>
            }
        })
    }
}
