//! The timelines: one lane per buyer (and one for the clock, and one for each system outside the
//! database: the payment provider, Redis), one column per entry of the order.
//! Reads are circles, writes squares, transaction bounds ticks; a wait is a bar that ends where
//! the blocker let go; errors carry their SQLSTATE. A step is moved by dragging it (mouse or
//! finger) to any column of its lane, or selected and moved with Earlier / Later, `[` / `]` or
//! Shift+arrows (the step itself is drawn in `timeline_event.rs`, the drag in `drag.rs`).

use leptos::prelude::*;
use shared::outcome::StepResult;

use super::drag::{self, Drag};
use super::reorder::ReorderBar;
use super::timeline_event::Event;
use crate::model::{self, moves, Shape};
use crate::state::use_lab;

/// One drawn entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub index: usize,
    pub actor: String,
    pub lane: usize,
    pub label: String,
    pub shape: Shape,
    pub result: String,
    pub error: bool,
    pub waited_for: Vec<String>,
    /// The entry during which it completed, if it waited.
    pub done_after: Option<usize>,
    /// "attempt 2" or "only if held" when the operation runs under a condition.
    pub mark: Option<String>,
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
                    .map(result_words)
                    .unwrap_or_else(|| "waits".to_string());
                Cell {
                    index,
                    mark: moves::condition_marks(&schedule.actors()[actor])
                        .get(op_index)
                        .cloned()
                        .flatten(),
                    actor: schedule.actors()[actor].name.clone(),
                    lane: lanes.iter().position(|&l| l == actor).unwrap_or(0),
                    label: model::op_label_in(op, schedule.scenario()),
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
    let drag = RwSignal::new(None::<Drag>);
    // Whether the step being dragged may go where it is now: drawn on the drop indicator.
    let target = Memo::new(move |_| {
        let d = drag.get().filter(|d| d.moved)?;
        let to = d.over?;
        let lane = cells.with(|c| c.get(d.from).map(|c| c.lane))?;
        let refusal = lab
            .schedule
            .with_untracked(|s| moves::move_entry(s, d.from, to).err());
        Some((lane, to, refusal))
    });
    Effect::new(move |_| {
        lab.step.track();
        columns();
        request_animation_frame(drag::reveal_playhead);
    });

    let grid_style = move || {
        format!(
            "--columns: {}; --lanes: {}",
            columns(),
            lane_names.with(Vec::len) + systems.with(|(s, _)| s.len())
        )
    };

    view! {
        <section class="timeline-section" aria-labelledby="timeline-title">
            <div class="section-head">
                <h3 id="timeline-title">"Timeline"</h3>
                <ReorderBar />
            </div>
            <div class="timeline-scroll">
                <div
                    class="timeline"
                    class:tl-dragging=move || drag.with(|d| d.is_some_and(|d| d.moved))
                    style=grid_style
                    data-testid="timeline"
                >
                    <div class="tl-corner" aria-hidden="true">"step"</div>
                    {move || {
                        (0..columns())
                            .map(|i| view! { <StepHeader index=i /> })
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
                        <Event cell drag />
                    </For>
                    {move || target.get().map(|(lane, to, refusal)| {
                        let style = format!("grid-row: {}; grid-column: {}", lane + 2, to + 2);
                        let ok = refusal.is_none();
                        view! {
                            <div
                                class="tl-drop"
                                class:tl-drop-refused=!ok
                                style=style
                                data-testid="drop-indicator"
                                data-column=to.to_string()
                                data-allowed=ok.to_string()
                                title=refusal.unwrap_or_default()
                                aria-hidden="true"
                            >
                                <span>{if ok { "drop here" } else { "not here" }}</span>
                            </div>
                        }
                    })}
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

/// The column header: the step's number; click to move the playhead after it.
#[component]
fn StepHeader(index: usize) -> impl IntoView {
    let lab = use_lab();
    let style = format!("grid-column: {}", index + 2);
    view! {
        <button
            class="tl-step"
            class:tl-step-past=move || { lab.step.get() > index }
            style=style
            data-index=index.to_string()
            aria-label=format!("Go to after step {}", index + 1)
            on:click=move |_| lab.seek(index + 1)
        >
            {index + 1}
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

/// A step's result in the few words its cell has room for: a code always with its gist.
fn result_words(result: &StepResult) -> String {
    match result {
        StepResult::Ok { rows: Some(1) } => "1 row".to_string(),
        StepResult::Ok { rows: Some(n) } => format!("{n} rows"),
        StepResult::Ok { rows: None } => "ok".to_string(),
        StepResult::Error { code, .. } => format!("{code} {}", code.gist()),
        other => other.short().replace('_', " "),
    }
}
