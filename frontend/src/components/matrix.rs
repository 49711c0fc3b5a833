//! The defence × scenario matrix: every order of every cell explored in the model, and how the
//! second buyer was stopped in each (waited, an error and which, no rows, or not at all).

use leptos::prelude::*;
use shared::explorer;

use super::explorer::{now_ms, tenths_since, whole_ms};

#[component]
pub fn Matrix() -> impl IntoView {
    let built = RwSignal::new(None::<(Vec<explorer::MatrixCell>, u64)>);
    let build = move |_| {
        let started = now_ms();
        let cells = explorer::matrix_defences()
            .iter()
            .flat_map(|d| {
                explorer::matrix_scenarios()
                    .iter()
                    .filter_map(move |s| explorer::matrix_cell(d, s.id))
            })
            .collect::<Vec<_>>();
        built.set(Some((cells, tenths_since(started))));
    };
    view! {
        <section class="matrix" aria-labelledby="matrix-title">
            <div class="section-head">
                <h3 id="matrix-title">"Every defence, every order"</h3>
                <button on:click=build data-testid="build-matrix">"Build the matrix"</button>
            </div>
            {move || built.get().map(|(cells, tenths)| {
                let scenarios = explorer::matrix_scenarios();
                view! {
                    <div class="table-scroll">
                        <table class="data matrix-table" data-testid="matrix">
                            <caption class="muted">{format!("Each cell ran every feasible order in the model ({} ms in all).", whole_ms(tenths))}</caption>
                            <thead>
                                <tr>
                                    <th scope="col">"defence"</th>
                                    {scenarios.iter().map(|s| view! { <th scope="col">{s.title}</th> }).collect_view()}
                                </tr>
                            </thead>
                            <tbody>
                                {explorer::matrix_defences().iter().map(|d| {
                                    let row = cells.iter().filter(|c| c.defence == *d).cloned().collect::<Vec<_>>();
                                    view! {
                                        <tr>
                                            <th scope="row"><code>{*d}</code></th>
                                            {row.into_iter().map(|c| {
                                                let bad = c.exploration.double_booked() > 0;
                                                view! { <td class:bad=bad class:good=!bad>{c.summary}</td> }
                                            }).collect_view()}
                                        </tr>
                                    }
                                }).collect_view()}
                            </tbody>
                        </table>
                    </div>
                }
            })}
        </section>
    }
}
