//! The title and the one-paragraph pitch.

use leptos::prelude::*;

/// What Last Seat is, in a few sentences.
#[component]
pub fn Intro() -> impl IntoView {
    view! {
        <header class="intro">
            <p class="eyebrow">"The race for one seat"</p>
            <h1>"Last Seat"</h1>
            <p class="lede">
                "Two people tap the same seat in the same second. Both screens said it was "
                "free, and only one of them can sit in it. Last Seat slows that second down: "
                "you choose the order in which each buyer\u{2019}s reads and writes reach the "
                "database, pick the defence the booking code relies on, and watch who is told "
                "they got the seat. Then the very same schedule runs on a real PostgreSQL, one "
                "connection per buyer, and the two outcomes are laid side by side."
            </p>
        </header>
    }
}
