//! One line saying whether real runs on PostgreSQL are available from this page.

use leptos::prelude::*;

use crate::api::{self, Health};

/// Asks the server once, and says plainly what the reader can do either way.
#[component]
pub fn HealthLine() -> impl IntoView {
    let health = LocalResource::new(api::health);
    let checking = || {
        view! { <p class="health health-checking" data-testid="health">"Looking for the server\u{2026}"</p> }
    };
    view! {
        <section class="health-section" aria-live="polite">
            <Suspense fallback=checking>
                {move || health.get().map(|health| view! { <Status health /> })}
            </Suspense>
        </section>
    }
}

#[component]
fn Status(health: Health) -> impl IntoView {
    let (class, text) = match health {
        Health::Connected => ("health health-ok", "Real PostgreSQL: connected."),
        Health::DatabaseDown => (
            "health health-warn",
            "The server is up but cannot reach PostgreSQL, so runs on the real database are \
             unavailable for now.",
        ),
        Health::NoServer => (
            "health health-off",
            "Simulation only: running a schedule on a real PostgreSQL needs the Last Seat \
             server (start it with scripts/run).",
        ),
    };
    view! { <p class=class data-testid="health">{text}</p> }
}
