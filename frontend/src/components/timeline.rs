//! The timelines: one lane per buyer (and one for the clock, and one for each system outside the
//! database: the payment provider, Redis), one column per entry of the order.
//! Reads are circles, writes squares, transaction bounds ticks; a wait is a bar that ends where
//! the blocker let go; errors carry their SQLSTATE. Steps can be dragged to another column, or
//! selected and moved with `[` and `]`.

use leptos::prelude::*;
use shared::outcome::StepResult;

use crate::model::{self, EntryState, Shape};
use crate::state::use_lab;

/// One drawn entry.
#[derive(Clone, Debug, PartialEq)]
struct Cell {
    index: usize,
    actor: String,
    lane: usize,
    label: String,
    shape: Shape,
    result: String,
    error: bool,
    waited_for: Vec<String>,
    /// The entry during which it completed, if it waited.
    done_after: Option<usize>,
}

fn cells(lab: &crate::state::Lab) -> Vec<Cell> {
    lab.schedule.with(|schedule| {
        let lanes = model::lanes(schedule);
        let outcome = lab.outcome.get();
        model::entry_ops(schedule)
            .into_iter()
            .enumerate()
            .map(|(index, (actor, op_index))| {
                let op = &schedule.actors()[actor].program[op_index];
                let entry = outcome.as_ref().ok().and_then(|o| o.entries.get(index));
                let result = entry
                    .and_then(|e| e.trace.result.as_ref())
                    .map(|r| match r {
                        StepResult::Error { code, .. } => code.clone(),
                        other => other.short(),
                    })
                    .unwrap_or_else(|| "waits".to_string());
                Cell {
                    index,
                    actor: schedule.actors()[actor].name.clone(),
                    lane: lanes.iter().position(|&l| l == actor).unwrap_or(0),
                    label: model::op_label(op),
                    shape: Shape::of(op),
                    error: entry
                        .and_then(|e| e.trace.result.as_ref())
                        .is_some_and(StepResult::is_error),
                    result,
                    waited_for: entry
                        .map(|e| e.trace.waited_for.clone())
                        .unwrap_or_default(),
                    done_after: entry.and_then(|e| {
                        if e.trace.waited_for.is_empty() {
                            None
                        } else {
                            Some(e.trace.completed_after.unwrap_or(usize::MAX))
                        }
                    }),
                }
            })
            .collect()
    })
}

#[component]
pub fn Timeline() -> impl IntoView {
    let lab = use_lab();
    let cells = Memo::new(move |_| cells(&lab));
    let lane_names = Memo::new(move |_| {
        lab.schedule.with(|s| {
            model::lanes(s)
                .into_iter()
                .map(|a| s.actors()[a].name.clone())
                .collect::<Vec<_>>()
        })
    });
    let systems = Memo::new(move |_| {
        let outcome = lab.outcome.get();
        match outcome {
            Ok(o) => lab.schedule.with(|s| model::system_lanes(s, &o)),
            Err(_) => Default::default(),
        }
    });
    let columns = move || lab.entries();
    let dragging = RwSignal::new(None::<usize>);

    let grid_style = move || {
        format!(
            "--columns: {}; --lanes: {}",
            columns() + 1,
            lane_names.with(Vec::len) + systems.with(|(s, _)| s.len())
        )
    };

    view! {
        <section class="timeline-section" aria-labelledby="timeline-title">
            <div class="section-head">
                <h3 id="timeline-title">"Timeline"</h3>
                <p class="hint">
                    "Drag a step to another column, or select it and press "
                    <kbd>"["</kbd> " / " <kbd>"]"</kbd> " to move it earlier or later. "
                    <kbd>"←"</kbd> " " <kbd>"→"</kbd> " step through time."
                </p>
            </div>
            <div class="timeline-scroll">
                <div class="timeline" style=grid_style data-testid="timeline">
                    <div class="tl-corner" aria-hidden="true">"step"</div>
                    {move || {
                        (0..columns())
                            .map(|i| view! { <StepHeader index=i dragging /> })
                            .collect_view()
                    }}
                    {move || {
                        lane_names
                            .get()
                            .into_iter()
                            .enumerate()
                            .map(|(lane, name)| {
                                let style = format!("grid-row: {}", lane + 2);
                                let class = format!("tl-lane-label buyer-{lane}");
                                view! {
                                    <div class=class style=style data-testid=format!("lane-{name}")>
                                        {model::display_name(&name)}
                                    </div>
                                }
                            })
                            .collect_view()
                    }}
                    {move || {
                        cells
                            .get()
                            .into_iter()
                            .filter_map(|c| {
                                let end = c.done_after?;
                                let last = if end == usize::MAX { columns() - 1 } else { end };
                                let style = format!(
                                    "grid-row: {}; grid-column: {} / {}",
                                    c.lane + 2,
                                    c.index + 2,
                                    last + 3,
                                );
                                let title = format!(
                                    "{} waits for {}",
                                    model::display_name(&c.actor),
                                    c.waited_for
                                        .iter()
                                        .map(|a| model::display_name(a))
                                        .collect::<Vec<_>>()
                                        .join(" and "),
                                );
                                let shown = move || lab.step.get() > c.index;
                                Some(view! {
                                    <div
                                        class="tl-wait"
                                        class:tl-hidden=move || !shown()
                                        style=style
                                        title=title
                                        aria-hidden="true"
                                    ></div>
                                })
                            })
                            .collect_view()
                    }}
                    {move || {
                        let first = lane_names.with(Vec::len) + 2;
                        let (names, marks) = systems.get();
                        let row = |system| first + names.iter().position(|s| *s == system).unwrap_or(0);
                        let labels = names.iter().map(|system| {
                            let style = format!("grid-row: {}", row(*system));
                            view! {
                                <div class="tl-lane-label tl-system-label" style=style data-testid=format!("lane-{}", system.name())>
                                    {system.name()}
                                </div>
                            }
                        }).collect_view();
                        let marks = marks.into_iter().map(|m| {
                            let style = format!("grid-row: {}; grid-column: {}", row(m.system), m.index + 2);
                            let index = m.index;
                            view! {
                                <div
                                    class="tl-system"
                                    class:tl-hidden=move || { lab.step.get() <= index }
                                    style=style
                                    data-testid=format!("system-{index}")
                                >
                                    {m.text}
                                </div>
                            }
                        }).collect_view();
                        (labels, marks)
                    }}
                    <For each=move || cells.get() key=|c| format!("{c:?}") let:cell>
                        <Event cell dragging />
                    </For>
                    <div
                        class="tl-playhead"
                        style=move || format!("grid-column: {}", lab.step.get() + 2)
                        aria-hidden="true"
                    ></div>
                </div>
            </div>
        </section>
    }
}

/// The column header: the step's number; click to move the playhead after it; a drop target.
#[component]
fn StepHeader(index: usize, dragging: RwSignal<Option<usize>>) -> impl IntoView {
    let lab = use_lab();
    let style = format!("grid-column: {}", index + 2);
    view! {
        <button
            class="tl-step"
            class:tl-step-past=move || { lab.step.get() > index }
            style=style
            aria-label=format!("Go to after step {}", index + 1)
            on:click=move |_| lab.seek(index + 1)
            on:dragover=move |ev| ev.prevent_default()
            on:drop=move |ev| {
                ev.prevent_default();
                if let Some(from) = dragging.get_untracked() {
                    lab.move_entry(from, index);
                }
                dragging.set(None);
            }
        >
            {index + 1}
        </button>
    }
}

#[component]
fn Event(cell: Cell, dragging: RwSignal<Option<usize>>) -> impl IntoView {
    let lab = use_lab();
    let index = cell.index;
    let style = format!("grid-row: {}; grid-column: {}", cell.lane + 2, index + 2);
    let state = move || {
        let outcome = lab.outcome.get();
        let Ok(outcome) = outcome else {
            return EntryState::Future;
        };
        outcome
            .entries
            .get(index)
            .map(|e| model::entry_state(e, index, lab.step.get()))
            .unwrap_or(EntryState::Future)
    };
    let class = format!(
        "tl-event {} buyer-{}{}",
        cell.shape.class(),
        cell.lane,
        if cell.error { " tl-error" } else { "" }
    );
    let who = model::display_name(&cell.actor);
    let aria = format!(
        "Step {}: {who}, {}, result {}. Press [ or ] to move it.",
        index + 1,
        cell.label,
        cell.result
    );
    let result = cell.result.clone();
    view! {
        <button
            class=class
            class:tl-future=move || state() == EntryState::Future
            class:tl-waiting=move || matches!(state(), EntryState::Waiting(_))
            class:tl-current=move || lab.step.get() == index + 1
            style=style
            draggable="true"
            aria-pressed=move || (lab.selected.get() == Some(index)).to_string()
            aria-label=aria
            data-testid=format!("event-{index}")
            data-actor=cell.actor.clone()
            data-label=cell.label.clone()
            on:click=move |_| {
                let selected = lab.selected.get_untracked() == Some(index);
                lab.selected.set(if selected { None } else { Some(index) });
            }
            on:keydown=move |ev| {
                let key = ev.key();
                let delta = match key.as_str() {
                    "[" => -1,
                    "]" => 1,
                    "ArrowLeft" if ev.shift_key() => -1,
                    "ArrowRight" if ev.shift_key() => 1,
                    _ => return,
                };
                ev.prevent_default();
                ev.stop_propagation();
                lab.selected.set(Some(index));
                lab.nudge(delta);
                focus_event(lab.selected.get_untracked());
            }
            on:dragstart=move |ev| {
                dragging.set(Some(index));
                if let Some(data) = ev.data_transfer() {
                    let _ = data.set_data("text/plain", &index.to_string());
                    data.set_effect_allowed("move");
                }
            }
            on:dragend=move |_| dragging.set(None)
            on:dragover=move |ev| ev.prevent_default()
            on:drop=move |ev| {
                ev.prevent_default();
                let from = dragging.get_untracked().or_else(|| {
                    ev.data_transfer()
                        .and_then(|d| d.get_data("text/plain").ok())
                        .and_then(|t| t.parse().ok())
                });
                if let Some(from) = from {
                    lab.move_entry(from, index);
                }
                dragging.set(None);
            }
        >
            <span class="tl-glyph" aria-hidden="true"></span>
            <span class="tl-label">{cell.label.clone()}</span>
            <span class="tl-result">{move || match state() {
                EntryState::Future => String::new(),
                EntryState::Waiting(_) => "waits".to_string(),
                EntryState::Done => result.clone(),
            }}</span>
        </button>
    }
}

/// Puts the keyboard focus back on the moved step, wherever it now is.
pub fn focus_event(index: Option<usize>) {
    let Some(index) = index else { return };
    request_animation_frame(move || {
        let element = document()
            .query_selector(&format!("[data-testid=\"event-{index}\"]"))
            .ok()
            .flatten();
        if let Some(element) = element {
            use wasm_bindgen::JsCast;
            if let Ok(element) = element.dyn_into::<web_sys::HtmlElement>() {
                let _ = element.focus();
            }
        }
    });
}
