//! Each buyer's phone at the playhead: what the application shows, what it remembers, and the
//! seats it was told are its own.

use leptos::prelude::*;

use crate::model;
use crate::state::use_lab;

/// Each buyer's phone: what the application is showing them right now, what it remembers of
/// the seats it looked at, and the seats it has been told are its own.
#[component]
pub fn Phones() -> impl IntoView {
    let lab = use_lab();
    let phones = Memo::new(move |_| {
        let step = lab.step.get();
        let outcome = lab.outcome.get();
        lab.schedule.with(|s| {
            let mut memories = outcome
                .as_ref()
                .ok()
                .map(|o| model::memories(s, o, step))
                .unwrap_or_default();
            let buyers = model::buyers(s);
            model::lanes(s)
                .into_iter()
                .map(|a| s.actors()[a].name.clone())
                .enumerate()
                .filter(|(_, name)| buyers.contains(name))
                .map(|(lane, name)| {
                    let phone = outcome
                        .as_ref()
                        .ok()
                        .map(|o| model::phone(s, o, &name, step));
                    let memory = memories.remove(&name).unwrap_or_default();
                    let memory = memory.lines(s.scenario());
                    (lane, name, phone, memory)
                })
                .collect::<Vec<_>>()
        })
    });
    view! {
        <ul class="phones" aria-label="What each buyer's phone shows">
            {move || {
                phones
                    .get()
                    .into_iter()
                    .map(|(lane, name, phone, memory)| {
                        let (text, tone, tone_name, yours, until) = phone
                            .map(|p| (p.text, p.tone.class(), p.tone.name(), p.yours.join(" "), p.until))
                            .unwrap_or_default();
                        let (remembers, told) = memory;
                        view! {
                            <li
                                class=format!("phone buyer-{lane} {tone}")
                                data-testid=format!("phone-{name}")
                                data-tone=tone_name
                                data-yours=yours
                                data-until=until.map(|u| u.to_string())
                            >
                                <span class="phone-name">{model::display_name(&name)}</span>
                                <span class="phone-screen" data-testid=format!("phone-text-{name}")>{text}</span>
                                <dl class="phone-memory">
                                    <dt>"remembers"</dt><dd data-testid=format!("remembers-{name}")>{remembers}</dd>
                                    <dt>"told"</dt><dd data-testid=format!("told-{name}")>{told}</dd>
                                </dl>
                            </li>
                        }
                    })
                    .collect_view()
            }}
        </ul>
    }
}
