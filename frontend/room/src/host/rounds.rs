//! Each finished round, ready to open in the sandbox (chapter 5), where the model replays what
//! the server sent: the link is the server's (`/api/rooms/{code}/rounds/{n}/sandbox`), with
//! the statements that were in flight at once, said beside it, since there the model's order
//! is only one of the orders PostgreSQL could have taken.

use std::collections::BTreeMap;

use leptos::prelude::*;
use serde_json::Value;

use crate::api;
use crate::live::Live;

/// Where a round's statements overlapped, in the server's words (`shared::explain::overlap_line`).
fn overlap_words(round: &Value) -> Vec<String> {
    round["overlaps"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| o["words"].as_str().map(str::to_string))
        .collect()
}

#[component]
pub fn Rounds(live: Live) -> impl IntoView {
    let got: RwSignal<BTreeMap<i64, Result<Value, String>>> = RwSignal::new(BTreeMap::new());
    let finished = Memo::new(move |_| {
        live.state.with(|s| {
            let Some(s) = s else { return 0 };
            let round = s["round"].as_i64().unwrap_or(0);
            if s["phase"] == "results" || s["phase"] == "lobby" {
                round
            } else {
                round - 1
            }
        })
    });
    Effect::new(move |_| {
        let code = live.code.get_value();
        for n in 1..=finished.get() {
            if got.with_untracked(|g| g.contains_key(&n)) {
                continue;
            }
            got.update(|g| {
                g.insert(n, Err("reading the round…".into()));
            });
            let code = code.clone();
            leptos::task::spawn_local(async move {
                let answer = api::get(&format!("/api/rooms/{code}/rounds/{n}/sandbox")).await;
                got.update(|g| {
                    g.insert(n, answer);
                });
            });
        }
    });
    view! {
        <section class="rounds-card" aria-labelledby="rounds-h">
            <h2 id="rounds-h">"Finished rounds in the simulator"</h2>
            <Show when=move || { finished.get() > 0 } fallback=|| view! { <p class="muted">"When a round is over, it opens here in the simulator: the same statements, in the order the server sent them, replayed by the model step by step."</p> }>
                <ol class="round-list">
                    {move || got.get().into_iter().rev().map(|(n, r)| match r {
                        Ok(v) => {
                            let overlaps = overlap_words(&v);
                            let steps = v["entries"].as_u64().unwrap_or(0);
                            let none = overlaps.is_empty().then_some("No two statements overlapped: the model's outcome is what happened live.");
                            view! {
                                <li data-testid=format!("round-{n}")>
                                    <a class="open-sim" href=v["path"].as_str().unwrap_or("/chapter/5").to_string() data-testid=format!("open-round-{n}")>
                                        {format!("Open round {n} in the simulator")}</a>
                                    " " <span class="muted">{format!("{steps} steps. ")}{none}</span>
                                    <ul>{overlaps.into_iter().map(|w| view! { <li data-testid="overlap">{w}</li> }).collect_view()}</ul>
                                </li>
                            }.into_any()
                        }
                        Err(e) => view! { <li data-testid=format!("round-{n}")>{format!("Round {n}: {e}")}</li> }.into_any(),
                    }).collect_view()}
                </ol>
            </Show>
        </section>
    }
}
