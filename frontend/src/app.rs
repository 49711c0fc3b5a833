//! The app: a small router over the home page and the chapters.
//!
//! The address is a signal. A click on a link to this site changes it with
//! `history.pushState` (no reload), the back and forward buttons with `popstate`. The lab writes
//! its own state through `Router::record` (a new history entry when the reader changes the
//! order, the part or the defence, the same entry while stepping; see `link.rs`), so the
//! address signal always says what the bar shows and Back returns to the previous state.

use leptos::ev;
use leptos::prelude::*;
use shared::schedule::SHOWS_SEATS;
use wasm_bindgen::{JsCast, JsValue};

use crate::chapters;
use crate::components::{ChapterPage, Home, Nav, NotFound};
use crate::handover;

/// The address the page shows: its path and its query (with the `?`, or empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    pub path: String,
    pub search: String,
}

impl Url {
    fn current() -> Url {
        let location = window().location();
        Url {
            path: location.pathname().unwrap_or_default(),
            search: location.search().unwrap_or_default(),
        }
    }

    /// The value of `name` in the query, decoded.
    pub fn query(&self, name: &str) -> Option<String> {
        web_sys::UrlSearchParams::new_with_str(&self.search)
            .ok()?
            .get(name)
    }
}

/// The address as the pages see it; provided by `App`.
pub fn use_url() -> Memo<Url> {
    expect_context()
}

/// Writes the address from inside the page; provided by `App`.
#[derive(Clone, Copy)]
pub struct Router {
    raw: RwSignal<Url>,
}

impl Router {
    /// Shows `path` in the address bar: as a new history entry (`push`), or in place of the
    /// current one.
    pub fn record(&self, path: &str, push: bool) {
        if let Ok(history) = window().history() {
            let _ = if push {
                history.push_state_with_url(&JsValue::NULL, "", Some(path))
            } else {
                history.replace_state_with_url(&JsValue::NULL, "", Some(path))
            };
        }
        self.raw.set(Url::current());
    }
}

pub fn use_router() -> Router {
    expect_context()
}

/// Which page an address leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    Home,
    /// `/chapter/:n`, a chapter that exists.
    Chapter(u8),
    NotFound,
}

fn route(path: &str) -> Route {
    let path = path
        .strip_suffix('/')
        .filter(|p| !p.is_empty())
        .unwrap_or(path);
    if path == "/" {
        return Route::Home;
    }
    path.strip_prefix("/chapter/")
        .and_then(|n| n.parse::<u8>().ok())
        .filter(|&n| chapters::chapter(n).is_some())
        .map_or(Route::NotFound, Route::Chapter)
}

/// Whether a link to `href` leads to the page shown now (for `aria-current`).
pub fn is_current(url: Memo<Url>, href: &str) -> bool {
    url.with(|u| {
        u.path
            .strip_prefix(href)
            .is_some_and(|rest| rest.is_empty() || (href != "/" && rest.starts_with('/')))
    })
}

#[component]
pub fn App() -> impl IntoView {
    let raw = RwSignal::new(Url::current());
    let url = Memo::new(move |_| raw.get());
    provide_context(url);
    provide_context(Router { raw });
    let page = Memo::new(move |_| url.with(|u| route(&u.path)));

    let popstate = window_event_listener(ev::popstate, move |_| raw.set(Url::current()));
    let click = window_event_listener(ev::click, move |ev| {
        if let Some(to) = internal_link(&ev) {
            ev.prevent_default();
            if let Ok(history) = window().history() {
                let _ = history.push_state_with_url(&JsValue::NULL, "", Some(&to));
            }
            raw.set(Url::current());
            window().scroll_to_with_x_and_y(0.0, 0.0);
        }
    });
    on_cleanup(move || {
        popstate.remove();
        click.remove();
    });

    view! {
        <a class="skip-link" href="#content">"Skip to the content"</a>
        <Nav />
        <div id="content">
            {move || match page.get() {
                Route::Home if !SHOWS_SEATS => {
                    // Chapter 6's bundle has not the home page (its chapters of seats): a link
                    // to it loads the page anew (`handover`), and so does Back to it.
                    let _ = window().location().reload();
                    ().into_any()
                }
                Route::Home => {
                    document().set_title("Last Seat");
                    view! { <Home /> }.into_any()
                }
                Route::Chapter(n) => view! { <ChapterPage n /> }.into_any(),
                Route::NotFound => {
                    document().set_title("Nothing here · Last Seat");
                    view! { <NotFound /> }.into_any()
                }
            }}
        </div>
    }
}

/// The path and query of the page a plain click on a link of this site opens, if it should be
/// opened without reloading: not a new tab, a download, another site or a jump within the page.
fn internal_link(ev: &web_sys::MouseEvent) -> Option<String> {
    if ev.default_prevented()
        || ev.button() != 0
        || ev.meta_key()
        || ev.alt_key()
        || ev.ctrl_key()
        || ev.shift_key()
    {
        return None;
    }
    let a = ev
        .target()?
        .dyn_into::<web_sys::Element>()
        .ok()?
        .closest("a[href]")
        .ok()??
        .dyn_into::<web_sys::HtmlAnchorElement>()
        .ok()?;
    if !a.target().is_empty() || a.has_attribute("download") {
        return None;
    }
    let location = window().location();
    if a.origin() != location.origin().ok()? {
        return None;
    }
    let (path, search) = (a.pathname(), a.search());
    if !handover::has_models_for(&path, &search) {
        // Chapter 6 from the first bundle, say: the server sends the bundle with its models.
        return None;
    }
    let here = path == location.pathname().ok()? && search == location.search().ok()?;
    if here && !a.hash().is_empty() {
        // `#content` and the like: the browser scrolls to it.
        return None;
    }
    Some(format!("{path}{search}{}", a.hash()))
}
