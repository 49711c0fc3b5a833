//! The title and the one-paragraph pitch.

use leptos::prelude::*;

/// What Last Seat is, in a few sentences.
#[component]
pub fn Intro() -> impl IntoView {
    view! {
        <header class="intro">
            <p class="eyebrow">"The race for one seat"</p>
            <h1>"Last Seat"</h1>
            <p class="lede">{crate::chapters::INTRO}</p>
        </header>
    }
}
