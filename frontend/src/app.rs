//! The page: a short introduction, the defences the chapters will let the reader try, and
//! whether a real PostgreSQL is there to check the simulator against.

use leptos::prelude::*;

use crate::components::{DefenceList, HealthLine, Intro};

/// The whole page. Chapters will hang off this; for now it is one static view.
#[component]
pub fn App() -> impl IntoView {
    view! {
        <main class="page">
            <Intro />
            <DefenceList />
            <HealthLine />
            <footer class="footer">
                <p>
                    "Every outcome on this page is computed in your browser by the same Rust "
                    "model that the server checks against PostgreSQL."
                </p>
            </footer>
        </main>
    }
}
