//! One step on the timeline: a button in its buyer's lane and its entry's column, drawn by its
//! shape and state (not sent yet, waiting, answered), that selects on a tap or a click, moves
//! with `[` / `]` or Shift+arrows, and drags with any pointer.

use leptos::prelude::*;

use super::drag::{self, Drag};
use super::timeline::{focus_event, Cell};
use crate::model::{self, EntryState};
use crate::state::use_lab;

#[component]
pub fn Event(cell: Cell, drag: RwSignal<Option<Drag>>) -> impl IntoView {
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
    let result = cell.result.clone();
    let shown = move || match state() {
        EntryState::Future => String::new(),
        EntryState::Waiting(_) => "waits".to_string(),
        EntryState::Done => result.clone(),
    };
    // The name a screen reader says holds the visible words in the order they are drawn (the
    // mark, the label, the result so far), so speech input can use what it sees.
    let (mark, label) = (cell.mark.clone().unwrap_or_default(), cell.label.clone());
    let spoken = shown.clone();
    let aria = move || {
        let parts: Vec<String> = [mark.clone(), label.clone(), spoken()]
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect();
        format!(
            "Step {}, {who}: {}. Select it to move it earlier or later.",
            index + 1,
            parts.join(" ")
        )
    };
    let mine = move || drag.get().filter(|d| d.from == index && d.moved);
    // A press that became a drag ends in a click too: that click must not toggle the selection.
    let dragged = StoredValue::new(false);
    view! {
        <button
            class=class
            class:tl-future=move || state() == EntryState::Future
            class:tl-waiting=move || matches!(state(), EntryState::Waiting(_))
            class:tl-current=move || lab.step.get() == index + 1
            class:tl-lifted=move || mine().is_some()
            style=style
            style:translate=move || mine().map(|d| format!("{}px 0", d.dx))
            aria-pressed=move || (lab.selected.get() == Some(index)).to_string()
            aria-label=aria
            title=cell.label.clone()
            data-testid=format!("event-{index}")
            data-actor=cell.actor.clone()
            data-label=cell.label.clone()
            on:click=move |_| {
                if dragged.get_value() {
                    dragged.set_value(false);
                    return;
                }
                let selected = lab.selected.get_untracked() == Some(index);
                lab.selected.set(if selected { None } else { Some(index) });
            }
            on:keydown=move |ev| {
                let delta = match ev.key().as_str() {
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
            on:pointerdown=move |ev| {
                if ev.button() != 0 || !ev.is_primary() {
                    return;
                }
                dragged.set_value(false);
                drag::capture(&ev);
                drag.set(Some(Drag::start(index, &ev)));
            }
            on:pointermove=move |ev| {
                let Some(d) = drag.get_untracked().filter(|d| d.pointer == ev.pointer_id()) else {
                    return;
                };
                let next = d.moved_to(&ev);
                if next != d {
                    drag.set(Some(next));
                }
            }
            on:pointerup=move |ev| {
                let Some(d) = drag.get_untracked().filter(|d| d.pointer == ev.pointer_id()) else {
                    return;
                };
                drag.set(None);
                if !d.moved {
                    return;
                }
                dragged.set_value(true);
                if let Some(to) = d.moved_to(&ev).over.filter(|&to| to != d.from) {
                    lab.move_entry(d.from, to);
                }
                // A touch ends without a click; a mouse's click comes next and is swallowed.
                if ev.pointer_type() != "mouse" {
                    dragged.set_value(false);
                }
            }
            on:pointercancel=move |_| drag.set(None)
        >
            {cell.mark.clone().map(|m| view! { <span class="tl-mark" data-testid=format!("mark-{index}")>{m}</span> " " })}
            <span class="tl-glyph" aria-hidden="true"></span>
            <span class="tl-label">{cell.label.clone()}</span>
            // A space between the label and the result, so that the words a reader sees are the
            // name's words (axe's label-content-name-mismatch once a result is shown).
            " "
            <span class="tl-result">{shown}</span>
        </button>
    }
}
