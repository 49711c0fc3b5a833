//! The defence × scenario matrix as a picture: one coloured cell per defence and scenario, an
//! icon for each way the buyers who missed out were stopped (waited, an error and which, no
//! rows, skipped, refused, or not at all: a double booking), the count, and a click (or Enter)
//! that loads an example order of the cell into the lab.

use std::time::Duration;

use leptos::prelude::*;
use shared::explorer::{self, MatrixCell, StopHow, Way};
use shared::{Defence, SqlState};

use super::explorer::{now_ms, tenths_since, whole_ms};
use crate::state::{use_lab, variant_schedule, Lab};

/// The built matrix, and the model's time for all its cells in tenths of a millisecond.
type Built = Option<(Vec<MatrixCell>, u64)>;

/// Builds cell `next` of `pairs` (defence, scenario), then hands the page back to the browser
/// before the next one: a cell takes milliseconds, the whole matrix a few hundred, which would
/// freeze the page if done at once.
fn build_from(
    pairs: Vec<(Defence, &'static str)>,
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
    let pairs: Vec<(Defence, &'static str)> = explorer::matrix_defences()
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
            <p class="muted">
                "Each cell runs every order in which its buyers' steps can reach the database, \
                 and shows how the buyers who missed the seat were stopped. Pick a cell to load \
                 one of its orders into the lab above."
            </p>
            {move || built.get().map(|(cells, tenths)| view! { <Grid cells tenths /> })}
        </section>
    }
}

#[component]
fn Grid(cells: Vec<MatrixCell>, tenths: u64) -> impl IntoView {
    let scenarios = explorer::matrix_scenarios();
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
                        let row = cells.iter().filter(|c| c.defence == *d).cloned().collect::<Vec<_>>();
                        view! {
                            <tr>
                                <th scope="row">{d.title()}</th>
                                {row.into_iter().map(|c| view! { <td><Cell cell=c /></td> }).collect_view()}
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
    let count = if bad {
        format!("{} of {} orders sell twice", e.double_booked(), e.orders)
    } else {
        format!("0 of {} orders sell twice", e.orders)
    };
    let defence = cell.defence.title();
    let scenario = title_of_scenario(&cell.scenario);
    // The name is the cell's own words, then what a sighted reader gets from the row, the
    // column and the colour (so the visible words are always part of the name).
    let spoken = format!(
        ". {defence}, {scenario}. {} Press to load an example.",
        cell.summary
    );
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

/// One way's icon, with the error code beside an error.
#[component]
fn Mark(way: Way) -> impl IntoView {
    let (kind, code) = match &way.stop {
        None => ("twice", None),
        Some(s) => match &s.how {
            StopHow::Error { code } => ("error", Some(code.to_string())),
            StopHow::Skipped => ("skipped", None),
            StopHow::Refused {
                answer: shared::outcome::Answer::RefundDue,
            } => ("refund", None),
            StopHow::Refused { .. } => ("refused", None),
            StopHow::UpdatedNoRows => ("norows", None),
            StopHow::LockedFewerRows => ("locked", None),
        },
    };
    let waited = way.stop.as_ref().is_some_and(|s| s.waited);
    view! {
        <span class="mark" title=way.words.clone()>
            {waited.then(|| view! { <Icon kind="waited" /> })}
            <Icon kind />
            {code.map(|c| view! { <span class="mark-code">{c}</span> })}
        </span>
    }
}

/// A small drawn icon (SVG, so it looks the same wherever the page runs).
#[component]
fn Icon(kind: &'static str) -> impl IntoView {
    let shape = match kind {
        // A clock: it waited for another buyer's lock.
        "waited" => view! { <circle cx="8" cy="8" r="6.5" /><path d="M8 4.5V8l2.5 1.8" /> }.into_any(),
        // A warning triangle: PostgreSQL answered with an error.
        "error" => view! { <path d="M8 1.8L14.7 14H1.3Z" /><path d="M8 6.2v3.8M8 11.6v.4" /> }.into_any(),
        // A skip arrow: it read the seat as taken and never wrote.
        "skipped" => view! { <path d="M2 11c1.5-5 8-6.5 11-2" /><path d="M13.5 4.8v4.4H9.1" /> }.into_any(),
        // A no-entry sign: the hold was refused.
        "refused" => view! { <circle cx="8" cy="8" r="6.5" /><path d="M4.5 8h7" /> }.into_any(),
        // Money going back: it paid after its hold was lost, and is owed a refund.
        "refund" => view! { <circle cx="8" cy="8" r="6.5" /><path d="M5 6.5h4.5a2 2 0 0 1 0 4H6.5" /><path d="M6.8 4.6L5 6.5l1.8 1.9" /> }.into_any(),
        // An empty set: the conditional UPDATE changed no row.
        "norows" => view! { <circle cx="8" cy="8" r="5" /><path d="M3 13L13 3" /> }.into_any(),
        // A padlock: SKIP LOCKED passed the locked seat over.
        "locked" => view! { <rect x="3" y="7.5" width="10" height="7" rx="1.5" /><path d="M5.5 7.5V5a2.5 2.5 0 0 1 5 0v2.5" /> }.into_any(),
        // Two tickets: nobody was stopped.
        _ => view! { <rect x="1.5" y="3" width="9" height="7" rx="1.5" /><rect x="5.5" y="6" width="9" height="7" rx="1.5" /> }.into_any(),
    };
    view! {
        <svg class=format!("icon icon-{kind}") viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
            {shape}
        </svg>
    }
}

#[component]
fn Legend() -> impl IntoView {
    let codes: Vec<String> = [
        SqlState::SerializationFailure,
        SqlState::LockNotAvailable,
        SqlState::UniqueViolation,
    ]
    .iter()
    .map(|c| format!("{c} {}", c.name()))
    .collect();
    let error = format!(
        "PostgreSQL answered with an error, its code beside it: {}",
        codes.join("; ")
    );
    let items: [(&str, &str); 8] = [
        (
            "twice",
            "nobody was stopped: the seat was sold twice (a red cell)",
        ),
        ("waited", "waited for another buyer's row lock first"),
        ("error", &error),
        ("skipped", "saw the seat taken and did not write"),
        ("norows", "the conditional UPDATE changed no row"),
        ("locked", "SKIP LOCKED passed the locked seat over"),
        ("refused", "the hold was refused: the seat is taken"),
        ("refund", "paid after its hold was lost: owed a refund"),
    ];
    view! {
        <ul class="matrix-legend" aria-label="What the icons mean" data-testid="matrix-legend">
            {items.into_iter().map(|(kind, words)| view! { <li><Icon kind />" "{words.to_string()}</li> }).collect_view()}
            <li><span class="swatch good"></span>" no order sold the seat twice"</li>
        </ul>
    }
}

fn title_of_scenario(id: &str) -> &'static str {
    explorer::matrix_scenarios()
        .iter()
        .find(|s| s.id == id)
        .map_or("", |s| s.title)
}

/// Loads the cell's example into the lab: through the chapter's own variant when one runs the
/// very same programs (so the chooser says the right defence), else as a schedule of its own.
fn load(lab: Lab, cell: &MatrixCell) {
    let Some(schedule) = explorer::matrix_schedule(cell.defence, &cell.scenario) else {
        return;
    };
    let example = cell.example().to_vec();
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
