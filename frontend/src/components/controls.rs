//! Time travel: reset, step back and forward, play and pause at a chosen speed, a scrubber, and
//! "fork from here", and the presenter mode's switch. Plus the keyboard: arrows step, Home/End
//! jump, `p` plays, `[`/`]` move the selected step.

use leptos::ev;
use leptos::prelude::*;
use std::time::Duration;

use crate::state::use_lab;

#[component]
pub fn Controls() -> impl IntoView {
    let lab = use_lab();
    let entries = move || lab.entries();
    let generation = StoredValue::new(0u64);

    // While playing, each step schedules the next; pausing or any other change cancels it.
    Effect::new(move |_| {
        let playing = lab.playing.get();
        let step = lab.step.get();
        let speed = lab.speed.get();
        let n = lab.entries();
        generation.update_value(|g| *g += 1);
        if !playing {
            return;
        }
        if step >= n {
            lab.playing.set(false);
            return;
        }
        let mine = generation.get_value();
        set_timeout(
            move || {
                if generation.get_value() == mine && lab.playing.get_untracked() {
                    lab.forward();
                }
            },
            Duration::from_millis(speed.into()),
        );
    });

    let handle = window_event_listener(ev::keydown, move |ev| {
        if ev.default_prevented() || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        if typing_target(&ev) {
            return;
        }
        let handled = match ev.key().as_str() {
            "ArrowRight" => {
                lab.forward();
                true
            }
            "ArrowLeft" => {
                lab.back();
                true
            }
            "Home" => {
                lab.seek(0);
                true
            }
            "End" => {
                lab.seek(usize::MAX);
                true
            }
            "p" | "P" => {
                toggle_play(lab);
                true
            }
            "[" => {
                lab.nudge(-1);
                super::timeline::focus_event(lab.selected.get_untracked());
                true
            }
            "]" => {
                lab.nudge(1);
                super::timeline::focus_event(lab.selected.get_untracked());
                true
            }
            "Escape" => {
                lab.selected.set(None);
                false
            }
            _ => false,
        };
        if handled {
            ev.prevent_default();
        }
    });
    on_cleanup(move || handle.remove());

    view! {
        <div class="controls" role="toolbar" aria-label="Time travel">
            <button class="icon" on:click=move |_| lab.seek(0) aria-label="Back to the start" title="Back to the start (Home)" data-testid="reset"><Icon path=START /></button>
            <button class="icon" on:click=move |_| lab.back() aria-label="Previous step" title="Previous step (←)" data-testid="step-prev"><Icon path=PREV /></button>
            <button
                class="icon play"
                on:click=move |_| toggle_play(lab)
                aria-label=move || if lab.playing.get() { "Pause" } else { "Play" }
                title="Play or pause (p)"
                data-testid="play"
            >
                {move || if lab.playing.get() { view! { <Icon path=PAUSE /> } } else { view! { <Icon path=PLAY /> } }}
            </button>
            <button class="icon" on:click=move |_| lab.forward() aria-label="Next step" title="Next step (→)" data-testid="step-next"><Icon path=NEXT /></button>
            <button class="icon" on:click=move |_| lab.seek(usize::MAX) aria-label="To the end" title="To the end (End)" data-testid="to-end"><Icon path=END /></button>
            <label class="scrubber">
                <span class="visually-hidden">"Playhead"</span>
                <input
                    type="range"
                    min="0"
                    max=move || entries().to_string()
                    prop:value=move || lab.step.get().to_string()
                    on:input=move |ev| {
                        if let Ok(step) = event_target_value(&ev).parse::<usize>() {
                            lab.seek(step);
                        }
                    }
                    aria-valuetext=move || format!("after step {} of {}", lab.step.get(), entries())
                    data-testid="scrubber"
                />
            </label>
            <span class="step-count" data-testid="step-count">
                {move || format!("{} / {}", lab.step.get(), entries())}
            </span>
            <label class="speed">
                <span>"Speed"</span>
                <select
                    on:change=move |ev| {
                        if let Ok(ms) = event_target_value(&ev).parse::<u32>() {
                            lab.speed.set(ms);
                        }
                    }
                    data-testid="speed"
                >
                    <option value="1400">"slow"</option>
                    <option value="700" selected>"normal"</option>
                    <option value="250">"fast"</option>
                </select>
            </label>
            <button
                class="fork"
                on:click=move |_| lab.fork()
                disabled=move || { lab.step.get() >= entries() }
                title="Keep the order up to the playhead, drop the rest, and choose what happens next"
                data-testid="fork"
            >
                "Fork from here"
            </button>
            <button
                class="presenter-toggle"
                aria-pressed=move || lab.presenter.get().to_string()
                on:click=move |_| lab.presenter.update(|p| *p = !*p)
                title="Large type and high contrast for a projector: the map, the phones, the step line, the timeline and the verdict"
                data-testid="presenter"
            >
                {move || if lab.presenter.get() { "Leave presenter mode" } else { "Presenter mode" }}
            </button>
        </div>
    }
}

fn toggle_play(lab: crate::state::Lab) {
    if lab.playing.get_untracked() {
        lab.playing.set(false);
    } else {
        if lab.step.get_untracked() >= lab.entries() {
            lab.seek(0);
        }
        lab.playing.set(true);
    }
}

/// Whether the key went to a text field or a select, which keep their own keys.
fn typing_target(ev: &web_sys::KeyboardEvent) -> bool {
    use wasm_bindgen::JsCast;
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|e| {
            let tag = e.tag_name().to_ascii_lowercase();
            matches!(tag.as_str(), "input" | "textarea" | "select")
        })
}

const START: &str = "M3 4h2v12H3z M11 4 5 10l6 6z M18 4l-6 6 6 6z";
const PREV: &str = "M5 4h2v12H5z M15 4 8 10l7 6z";
const PLAY: &str = "M6 3.5l11 6.5-11 6.5z";
const PAUSE: &str = "M5 4h3.5v12H5z M11.5 4H15v12h-3.5z";
const NEXT: &str = "M5 4l7 6-7 6z M13 4h2v12h-2z";
const END: &str = "M2 4l6 6-6 6z M9 4l6 6-6 6z M15 4h2v12h-2z";

/// A control's glyph, drawn rather than taken from a font that may lack it.
#[component]
fn Icon(path: &'static str) -> impl IntoView {
    view! {
        <svg class="glyph" viewBox="0 0 20 20" width="18" height="18" aria-hidden="true">
            <path d=path fill="currentColor"></path>
        </svg>
    }
}
