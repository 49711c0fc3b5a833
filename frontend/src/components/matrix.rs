//! The defence × scenario matrix as a picture: one coloured cell per defence and scenario, an
//! icon for each way the buyers who missed out were stopped (waited, an error and which, no
//! rows, skipped, refused, or not at all: a double booking), the count, and a click (or Enter)
//! that loads an example order of the cell into the lab. The icons and their legend are
//! `icons`'s.

mod icons;

use std::time::Duration;

use leptos::prelude::*;
use shared::chapters::MatrixTable;
use shared::explorer::{self, MatrixCell, MatrixScenario};
use shared::link::{self, View, SANDBOX};
use shared::schedule::{Database, Schedule, SHOWS_SEATS};
use shared::Defence;

use super::explorer::{now_ms, tenths_since, whole_ms};
use crate::state::{use_lab, variant_schedule, Lab};
use icons::{Legend, Mark};

/// The built matrix, and the model's time for all its cells in tenths of a millisecond.
type Built = Option<(Vec<MatrixCell>, u64)>;

/// Builds cell `next` of `pairs` (defence, scenario), then hands the page back to the browser
/// before the next one: a cell takes milliseconds, the whole matrix a few hundred, which would
/// freeze the page if done at once.
fn build_from(
    pairs: Vec<(Defence, &'static str, Database)>,
    next: usize,
    mut cells: Vec<MatrixCell>,
    tenths: u64,
    built: RwSignal<Built>,
    progress: RwSignal<Option<usize>>,
) {
    let started = now_ms();
    let (defence, scenario, database) = pairs[next];
    cells.extend(explorer::matrix_cell_on(defence, scenario, database));
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

/// The matrix's columns: buyers racing for a seat, or a seat and each counter shape.
fn columns(table: MatrixTable) -> &'static [MatrixScenario] {
    match table {
        MatrixTable::Seats => explorer::matrix_scenarios(),
        MatrixTable::Shapes => explorer::matrix_shape_columns(),
        MatrixTable::None => &[],
    }
}

#[component]
pub fn Matrix(table: MatrixTable) -> impl IntoView {
    let lab = use_lab();
    let built = RwSignal::<Built>::new(None);
    let progress = RwSignal::new(None::<usize>);
    let database = Memo::new(move |_| lab.schedule.with(|s| s.database()));
    // A matrix built on one database says nothing about the other: switching drops it.
    Effect::new(move |_| {
        database.track();
        built.set(None);
    });
    // The cells that exist: a defence that does not fit a shape has none (it does not apply).
    let pairs = move |db: Database| -> Vec<(Defence, &'static str, Database)> {
        explorer::matrix_defences()
            .iter()
            .flat_map(|d| {
                columns(table)
                    .iter()
                    .filter(move |s| d.fits(s.kind))
                    .map(move |s| (*d, s.id, db))
            })
            .collect()
    };
    let total = pairs(Database::Postgresql).len();
    let build = move |_| {
        if progress.get_untracked().is_none() {
            let pairs = pairs(database.get_untracked());
            progress.set(Some(0));
            build_from(pairs, 0, Vec::new(), 0, built, progress);
        }
    };
    view! {
        <section class="matrix" aria-labelledby="matrix-title">
            <div class="section-head">
                <h3 id="matrix-title">{move || format!("Every defence, every order, on {}", database.get().title())}</h3>
                <button on:click=build data-testid="build-matrix" disabled=move || progress.get().is_some()>
                    {move || match progress.get() {
                        Some(done) => format!("Building… {done} of {total} cells"),
                        None => "Build the matrix".to_string(),
                    }}
                </button>
            </div>
            <p class="muted">
                "Each cell runs every order in which its buyers' steps can reach the database, \
                 and shows how the buyers who missed the seat were stopped. Pick a cell to load \
                 one of its orders into the lab above."
                {(!SHOWS_SEATS).then_some(" A seat's example opens in the sandbox, chapter 5.")}
            </p>
            {move || built.get().map(|(cells, tenths)| view! { <Grid cells tenths table /> })}
        </section>
    }
}

#[component]
fn Grid(cells: Vec<MatrixCell>, tenths: u64, table: MatrixTable) -> impl IntoView {
    let scenarios = columns(table);
    view! {
        <div class="table-scroll">
            <table class="matrix-grid" data-testid="matrix">
                <caption>{format!("Every feasible order of each cell, run in the model ({} ms in all).", whole_ms(tenths))}</caption>
                <thead>
                    <tr>
                        <th scope="col">"Defence"</th>
                        {scenarios.iter().map(|s| view! { <th scope="col">{s.title}</th> }).collect_view()}
                    </tr>
                </thead>
                <tbody>
                    {explorer::matrix_defences().iter().map(|d| {
                        let row = scenarios
                            .iter()
                            .map(|s| cells.iter().find(|c| c.defence == *d && c.scenario == s.id).cloned())
                            .collect::<Vec<_>>();
                        view! {
                            <tr>
                                <th scope="row">{d.title()}</th>
                                {row.into_iter().zip(scenarios).map(|(c, s)| match c {
                                    Some(c) => view! { <td><Cell cell=c /></td> }.into_any(),
                                    None => view! {
                                        <td class="matrix-na" data-testid="matrix-na" data-defence=d.id() data-scenario=s.id>
                                            "does not apply"
                                            <span class="visually-hidden">{format!(": {} needs what {} does not have.", d.title(), s.title.to_lowercase())}</span>
                                        </td>
                                    }.into_any(),
                                }).collect_view()}
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
        <Legend />
    }
}

/// One cell: a button whose colour says whether any order sold the seat twice.
#[component]
fn Cell(cell: MatrixCell) -> impl IntoView {
    let lab = use_lab();
    let e = &cell.exploration;
    let bad = e.double_booked() > 0;
    let twice = match explorer::matrix_column(&cell.scenario).map(|c| c.kind) {
        Some(kind) if kind.is_counter() => "oversell",
        _ => "sell twice",
    };
    let count = format!("{} of {} orders {twice}", e.double_booked(), e.orders);
    let defence = cell.defence.title();
    let scenario = title_of_scenario(&cell.scenario);
    // The name is the cell's own words, then what a sighted reader gets from the row, the
    // column and the colour (so the visible words are always part of the name).
    let opens = if elsewhere(&cell) {
        "Press to open an example in the sandbox."
    } else {
        "Press to load an example."
    };
    let spoken = format!(". {defence}, {scenario}. {} {opens}", cell.summary);
    let marks = cell
        .ways
        .iter()
        .map(|w| view! { <Mark way=w.clone() /> })
        .collect_view();
    let picked = cell.clone();
    view! {
        <button
            class="matrix-cell"
            class:bad=bad
            class:good=!bad
            title=cell.summary.clone()
            data-testid="matrix-cell"
            data-defence=cell.defence.id()
            data-scenario=cell.scenario.clone()
            data-double=e.double_booked().to_string()
            on:click=move |_| load(lab, &picked)
        >
            <span class="marks">{marks}</span>
            <span class="cell-count">{count}</span>
            <span class="visually-hidden">{spoken}</span>
        </button>
    }
}

fn title_of_scenario(id: &str) -> &'static str {
    explorer::matrix_column(id).map_or("", |s| s.title)
}

/// Whether the cell's example opens on another page: a race for a seat in a bundle that shows
/// none (chapter 6's).
fn elsewhere(cell: &MatrixCell) -> bool {
    !SHOWS_SEATS && explorer::matrix_column(&cell.scenario).is_some_and(|c| c.kind.is_seats())
}

/// The sandbox's address with `schedule` in the order `example` (the buyers' names), for a
/// bundle that shows no race for seats: the page is loaded anew, and the server sends the
/// bundle that has them.
fn sandbox_address(schedule: &Schedule, example: &[String]) -> Option<String> {
    let order = example
        .iter()
        .map(|n| schedule.actor_index(n))
        .collect::<Option<Vec<usize>>>()?;
    let view = View::of(
        SANDBOX,
        "ch5-three-buyers",
        None,
        &schedule.with_order(order),
        0,
    );
    Some(format!("/chapter/{SANDBOX}?s={}", link::encode(&view)))
}

/// Loads the cell's example into the lab: through the chapter's own variant when one runs the
/// very same programs (so the chooser says the right defence), else as a schedule of its own.
/// A seat's example in chapter 6's bundle opens in the sandbox instead.
fn load(lab: Lab, cell: &MatrixCell) {
    let Some(schedule) = explorer::matrix_schedule_on(cell.defence, &cell.scenario, cell.database)
    else {
        return;
    };
    let example = cell.example().to_vec();
    if elsewhere(cell) {
        if let Some(to) = sandbox_address(&schedule, &example) {
            let _ = window().location().assign(&to);
        }
        return;
    }
    let same_programs = |other: &shared::Schedule| {
        other.scenario() == schedule.scenario()
            && other.actors().len() == schedule.actors().len()
            && other
                .actors()
                .iter()
                .zip(schedule.actors())
                .all(|(a, b)| a.name == b.name && a.program == b.program)
    };
    let variant = lab.chapter.parts.iter().enumerate().find_map(|(p, part)| {
        part.variants
            .iter()
            .position(|v| same_programs(&variant_schedule(v)))
            .map(|v| (p, v))
    });
    match variant {
        Some((part, v)) => {
            lab.choose(part, v);
            lab.load_order(&example);
        }
        None => {
            let order = example
                .iter()
                .map(|n| schedule.actor_index(n))
                .collect::<Option<Vec<usize>>>();
            if let Some(order) = order {
                lab.replace(schedule.with_order(order));
            }
        }
    }
    let way = match cell.ways.first() {
        Some(w) if w.stop.is_some() => format!("the buyer who missed out {}", w.words),
        Some(w) => w.words.clone(),
        None => "nobody missed out".to_string(),
    };
    super::lab::show_stage();
    lab.notice.set(Some(format!(
        "Loaded from the matrix: {}, {}. In this order, {way}. Press play or step through it.",
        cell.defence.title(),
        title_of_scenario(&cell.scenario).to_lowercase(),
    )));
    if let Some(stage) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector(".lab").ok().flatten())
    {
        stage.scroll_into_view();
    }
}
