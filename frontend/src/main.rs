//! Entry point of the page: mounts the app and marks the moment of the first render.

mod api;
mod app;
mod components;
mod handover;
mod link;
mod model;
mod state;
mod words;

/// The chapters' text is pure data in `shared`, so the server can put it in the HTML too.
use shared::chapters;

fn main() {
    // The server put the chapter's words in the HTML so they read before the wasm ran; the app
    // draws them itself from here on.
    if let Some(words) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("prerendered"))
    {
        words.remove();
    }
    leptos::mount::mount_to_body(app::App);
    // The first render is synchronous in CSR: by now the page is on screen. The browser tests
    // read this mark to report navigation → first render.
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let _ = performance.mark("last-seat:first-render");
    }
}
