//! After "fork from here" (or in the sandbox, when the order stops short of the programs): one
//! button per buyer to send their next operation. A buyer whose statement still waits for a
//! lock cannot send anything, so their button is greyed out and says whom they wait for.

use leptos::prelude::*;

use crate::model::moves;
use crate::state::use_lab;

#[component]
pub fn NextSteps() -> impl IntoView {
    let lab = use_lab();
    let remaining = Memo::new(move |_| lab.schedule.with(moves::next_steps));
    view! {
        <Show when=move || !remaining.with(Vec::is_empty)>
            <div class="next-steps" role="group" aria-labelledby="next-steps-title" data-testid="next-steps">
                <span id="next-steps-title">"Who goes next?"</span>
                {move || remaining.get().into_iter().map(|step| {
                    let waits = step.waits_for.clone();
                    let text = format!("{}: {}", step.who, step.label);
                    let why = waits.as_ref().map(|w| format!("waits for {w}"));
                    let title = waits.as_ref().map(|w| format!(
                        "{}'s last statement still waits for {w}: nothing can be sent until {w} commits or rolls back",
                        step.who
                    ));
                    let actor = step.actor;
                    view! {
                        <button
                            class="next-step"
                            disabled=waits.is_some()
                            title=title
                            on:click=move |_| lab.append(actor)
                            data-testid=format!("next-{}", step.who.to_lowercase())
                        >
                            <span>{text}</span>
                            {why.map(|w| view! { <small class="next-wait">{w}</small> })}
                        </button>
                    }
                }).collect_view()}
            </div>
        </Show>
    }
}
