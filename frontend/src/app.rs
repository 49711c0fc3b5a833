//! The app: a router over the home page and the chapters.

use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

use crate::components::{ChapterPage, Home, Nav, NotFound};

#[component]
pub fn App() -> impl IntoView {
    view! {
        <Router>
            <a class="skip-link" href="#content">"Skip to the content"</a>
            <Nav />
            <div id="content">
                <Routes fallback=NotFound>
                    <Route path=path!("/") view=Home />
                    <Route path=path!("/chapter/:n") view=ChapterPage />
                </Routes>
            </div>
        </Router>
    }
}
