//! Each finished round, ready to open in the sandbox (chapter 5), where the model replays what
//! the server sent: the link is the server's (`/api/rooms/{code}/rounds/{n}/sandbox`), with
//! the statements that were in flight at once, said beside it, since there the model's order
//! is only one of the orders PostgreSQL could have taken.

use std::collections::BTreeMap;

use leptos::prelude::*;
use shared::protocol::room::{Phase, RoundLink};

use crate::api;
use crate::live::Live;

#[component]
pub fn Rounds(live: Live) -> impl IntoView {
    let got: RwSignal<BTreeMap<i32, Result<RoundLink, String>>> = RwSignal::new(BTreeMap::new());
    let finished = Memo::new(move |_| {
        live.read(|s| match s.phase {
            Phase::Results | Phase::Lobby => s.round,
            Phase::Countdown | Phase::Race => s.round - 1,
        })
        .unwrap_or(0)
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
                let url = format!("/api/rooms/{code}/rounds/{n}/sandbox");
                let answer = api::get(&url)
                    .await
                    .and_then(|text| api::read::<RoundLink>(&text));
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
                            // Where the round's statements overlapped, in the server's words
                            // (`shared::explain::overlap_line`).
                            let overlaps: Vec<String> = v.overlaps.into_iter().filter_map(|o| o.words).collect();
                            let steps = v.entries;
                            let none = overlaps.is_empty().then_some("No two statements overlapped: the model's outcome is what happened live.");
                            view! {
                                <li data-testid=format!("round-{n}")>
                                    <a class="open-sim" href=v.path data-testid=format!("open-round-{n}")>
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
