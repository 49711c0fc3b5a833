//! The live room's pages by address: `/room/new` (a facilitator opens a room), `/room/{code}`
//! (a phone), `/room/{code}/host` (the facilitator, their secret after the `#`) and
//! `/room/{code}/projector`. Each is a page load of its own: no client-side routing.

use leptos::prelude::*;

use crate::{host, new_room, phone, projector};

/// What the address asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    New,
    Phone(String),
    Host(String),
    Projector(String),
    NotFound,
}

impl Route {
    pub fn of(path: &str) -> Route {
        let parts: Vec<&str> = path.trim_end_matches('/').split('/').collect();
        let code = |c: &str| c.to_ascii_uppercase();
        match parts.as_slice() {
            ["", "room", "new"] => Route::New,
            ["", "room", c] if valid(c) => Route::Phone(code(c)),
            ["", "room", c, "host"] if valid(c) => Route::Host(code(c)),
            ["", "room", c, "projector"] if valid(c) => Route::Projector(code(c)),
            _ => Route::NotFound,
        }
    }
}

/// A join code as the server makes them: letters only.
fn valid(code: &str) -> bool {
    !code.is_empty() && code.len() <= 12 && code.chars().all(|c| c.is_ascii_alphabetic())
}

/// The document's title.
pub fn title(text: &str) {
    document().set_title(&format!("{text} · Last Seat"));
}

#[component]
pub fn App() -> impl IntoView {
    let path = window().location().pathname().unwrap_or_default();
    match Route::of(&path) {
        Route::New => view! { <new_room::NewRoom /> }.into_any(),
        Route::Phone(code) => view! { <phone::PhonePage code /> }.into_any(),
        Route::Host(code) => view! { <host::HostPage code /> }.into_any(),
        Route::Projector(code) => view! { <projector::ProjectorPage code /> }.into_any(),
        Route::NotFound => {
            title("Not found");
            view! {
                <main class="page">
                    <h1>"No such room page"</h1>
                    <p>"Room pages are " <code>"/room/new"</code> ", " <code>"/room/CODE"</code>
                       " for a phone, and " <code>"/room/CODE/projector"</code> " for the big screen."</p>
                    <p><a href="/room/new">"Open a new room"</a></p>
                </main>
            }
            .into_any()
        }
    }
}
