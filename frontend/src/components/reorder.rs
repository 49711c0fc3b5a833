//! The reordering bar above the timeline: with a step selected, on-screen Earlier / Later
//! buttons (for a touch screen, or anyone without `[` and `]`); with none, how to move one.

use leptos::prelude::*;

use super::timeline::focus_event;
use crate::model;
use crate::state::use_lab;

#[component]
pub fn ReorderBar() -> impl IntoView {
    let lab = use_lab();
    let selected = Memo::new(move |_| {
        let index = lab.selected.get()?;
        lab.schedule.with(|s| {
            let &(actor, op) = model::entry_ops(s).get(index)?;
            let a = &s.actors()[actor];
            Some((
                index,
                model::display_name(&a.name),
                model::op_label_in(&a.program[op], s.scenario()),
            ))
        })
    });
    let nudge = move |delta: isize| {
        lab.nudge(delta);
        focus_event(lab.selected.get_untracked());
    };
    view! {
        {move || match selected.get() {
            Some((index, who, label)) => view! {
                <div class="reorder-bar" role="group" aria-label="Move the selected step" data-testid="reorder-bar">
                    <span class="reorder-what" data-testid="selected-step">
                        {format!("Step {} · {who} · {label}", index + 1)}
                    </span>
                    <button
                        on:click=move |_| nudge(-1)
                        disabled=index == 0
                        title="Move it one place earlier ([ or Shift+←)"
                        data-testid="earlier"
                    >
                        "◀ Earlier"
                    </button>
                    <button
                        on:click=move |_| nudge(1)
                        disabled=move || { index + 1 >= lab.entries() }
                        title="Move it one place later (] or Shift+→)"
                        data-testid="later"
                    >
                        "Later ▶"
                    </button>
                    <button class="link" on:click=move |_| lab.selected.set(None) data-testid="deselect">
                        "Done"
                    </button>
                </div>
            }
            .into_any(),
            None => view! {
                <p class="hint" data-testid="reorder-hint">
                    "Drag a step to another column, or tap it and use Earlier / Later. Keys: "
                    <kbd>"["</kbd> " " <kbd>"]"</kbd> " move it, "
                    <kbd>"←"</kbd> " " <kbd>"→"</kbd> " step through time."
                </p>
            }
            .into_any(),
        }}
    }
}
