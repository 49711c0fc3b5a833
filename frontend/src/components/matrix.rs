//! The defence × scenario matrix: every order of every cell explored in the model, and how the
//! second buyer was stopped in each (waited, an error and which, no rows, or not at all).

use std::time::Duration;

use leptos::prelude::*;
use shared::explorer::{self, MatrixCell};

use super::explorer::{now_ms, tenths_since, whole_ms};

/// The built matrix, and the model's time for all its cells in tenths of a millisecond.
type Built = Option<(Vec<MatrixCell>, u64)>;

/// Builds cell `next` of `pairs` (defence, scenario), then hands the page back to the browser
/// before the next one: a cell takes milliseconds, the whole matrix a few hundred, which would
/// freeze the page if done at once.
fn build_from(
    pairs: Vec<(&'static str, &'static str)>,
    next: usize,
    mut cells: Vec<MatrixCell>,
    tenths: u64,
    built: RwSignal<Built>,
    progress: RwSignal<Option<usize>>,
) {
    let started = now_ms();
    let (defence, scenario) = pairs[next];
    cells.extend(explorer::matrix_cell(defence, scenario));
    let tenths = tenths + tenths_since(started);
    if next + 1 < pairs.len() {
        progress.set(Some(next + 1));
        set_timeout(
            move || build_from(pairs, next + 1, cells, tenths, built, progress),
            Duration::ZERO,
        );
    } else {
        progress.set(None);
        built.set(Some((cells, tenths)));
    }
}

#[component]
pub fn Matrix() -> impl IntoView {
    let built = RwSignal::<Built>::new(None);
    let progress = RwSignal::new(None::<usize>);
    let pairs: Vec<(&'static str, &'static str)> = explorer::matrix_defences()
        .iter()
        .flat_map(|d| explorer::matrix_scenarios().iter().map(move |s| (*d, s.id)))
        .collect();
    let total = pairs.len();
    let build = move |_| {
        if progress.get_untracked().is_none() {
            progress.set(Some(0));
            build_from(pairs.clone(), 0, Vec::new(), 0, built, progress);
        }
    };
    view! {
        <section class="matrix" aria-labelledby="matrix-title">
            <div class="section-head">
                <h3 id="matrix-title">"Every defence, every order"</h3>
                <button on:click=build data-testid="build-matrix" disabled=move || progress.get().is_some()>
                    {move || match progress.get() {
                        Some(done) => format!("Building… {done} of {total} cells"),
                        None => "Build the matrix".to_string(),
                    }}
                </button>
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
