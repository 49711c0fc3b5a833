//! The list of defences, straight from `shared`, so the page never disagrees with the model.

use leptos::prelude::*;
use shared::Defence;

/// The defences a reader will be able to switch between.
#[component]
pub fn DefenceList() -> impl IntoView {
    view! {
        <section class="defences" aria-labelledby="defences-title">
            <h2 id="defences-title">"The defences"</h2>
            <p class="section-lede">
                "Each is a different way for the booking code to say \u{201c}this seat is "
                "mine\u{201d}. Some hold up under every order of events; some only look as if "
                "they do."
            </p>
            <ol class="defence-list" data-testid="defences">
                <For each=|| Defence::ALL key=|defence| *defence let:defence>
                    <li class="defence">
                        <span class="defence-title">{defence.title()}</span>
                        <code class="defence-name">{defence.id()}</code>
                        <span class="defence-summary">{defence.summary()}</span>
                    </li>
                </For>
            </ol>
        </section>
    }
}
