//! The list of defences, straight from `shared`, so the page never disagrees with the model.

use leptos::prelude::*;
use shared::defences;

/// One defence: its name as the schedules spell it, and its one-line summary.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Defence {
    name: &'static str,
    summary: &'static str,
}

fn all_defences() -> Vec<Defence> {
    defences::NAMES
        .iter()
        .map(|&name| Defence {
            name,
            summary: defences::summary(name).unwrap_or_default(),
        })
        .collect()
}

/// `check_then_act` → "Check then act".
fn title(name: &str) -> String {
    let words = name.replace('_', " ");
    let mut chars = words.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

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
                <For each=all_defences key=|defence| defence.name let:defence>
                    <li class="defence">
                        <span class="defence-title">{title(defence.name)}</span>
                        <code class="defence-name">{defence.name}</code>
                        <span class="defence-summary">{defence.summary}</span>
                    </li>
                </For>
            </ol>
        </section>
    }
}
