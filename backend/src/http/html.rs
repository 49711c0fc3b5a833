//! The page's HTML as it goes out: rendered for its address (`page.rs`) from Trunk's
//! `index.html`, compressed once (brotli, gzip) and kept until `index.html` changes, sent in
//! the best encoding the client accepts, with the Content-Security-Policy that allows the
//! inline script and style sheets it carries by their hashes. The chapters come in three
//! bundles (`shared::link::bundle`): Trunk's `dist/index.html`, the races for seats on
//! PostgreSQL (chapters 1–5 and the home page); `dist/shapes-page/`, chapter 6 alone (the
//! shapes beyond seats); and `dist/innodb-page/`, the whole page (InnoDB's model, the shapes and
//! the seats), for an address whose state races on InnoDB, whose query asks for it, or that
//! needs both the seats and the shapes. The live room's pages are a bundle of their own
//! (`dist/room-page/`), whose one `index.html` is served the same way.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::header::{CONTENT_ENCODING, CONTENT_SECURITY_POLICY, CONTENT_TYPE, VARY};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::assets::{self, Encoding};
use super::headers;
use super::page::Prerender;

/// One page's HTML, ready to send in any encoding.
struct Rendered {
    /// The `index.html` it was rendered from.
    index: String,
    policy: HeaderValue,
    raw: Bytes,
    brotli: Option<Bytes>,
    gzip: Option<Bytes>,
}

/// What the page's routes take from the app's state (`state.rs`).
#[derive(Clone)]
pub struct Pages {
    /// The built frontend, if any.
    pub dist: Option<std::path::PathBuf>,
    pub html: Arc<HtmlCache>,
}

/// The rendered pages, one per bundle and `Prerender` (the home page, each chapter, any other
/// address): a handful, whatever addresses are asked for.
#[derive(Default)]
pub struct HtmlCache {
    pages: Mutex<HashMap<Key, Arc<Rendered>>>,
}

/// A rendered page's bundle, and its words: the home page (0), a chapter, or none.
type Key = (Bundle, Option<u8>);

/// The HTML files the server sends, each the start of a bundle of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Bundle {
    /// The chapters with PostgreSQL's model of seats only: every first visit to chapters 1–5.
    Chapters,
    /// Chapter 6 alone: the shapes beyond seats (counters, usernames).
    Shapes,
    /// The whole page: InnoDB's model, the shapes and the seats.
    Whole,
    /// The live room's pages.
    Room,
}

impl Bundle {
    fn file(self) -> String {
        match self {
            Bundle::Chapters => "index.html".to_string(),
            Bundle::Shapes => format!("{SHAPES_DIR}/index.html"),
            Bundle::Whole => format!("{INNODB_DIR}/index.html"),
            Bundle::Room => format!("{ROOM_DIR}/index.html"),
        }
    }
}

fn key(bundle: Bundle, page: Prerender) -> Key {
    let words = match page {
        Prerender::Home => Some(0),
        Prerender::Chapter(c) => Some(c.number),
        Prerender::Nothing => None,
    };
    (bundle, words)
}

/// The live room's pages: a bundle of their own (`frontend/room/`), built into this folder of
/// `dist/` so that the chapters' first visit never carries them.
pub const ROOM_DIR: &str = "room-page";

/// The whole page, built with InnoDB's model (`--features innodb`, the shapes and the seats with
/// it), into this folder of `dist/`.
pub const INNODB_DIR: &str = "innodb-page";

/// Chapter 6 alone, built with the shapes beyond seats and without the seats' pages
/// (`--no-default-features --features shapes`), into this folder.
pub const SHAPES_DIR: &str = "shapes-page";

impl HtmlCache {
    /// `page` rendered from `index`, compressed: from the cache while `index` is the same.
    async fn get(&self, key: Key, page: Prerender, index: String) -> Arc<Rendered> {
        let cached = self.lock().get(&key).cloned();
        if let Some(rendered) = cached.filter(|r| r.index == index) {
            return rendered;
        }
        // Brotli at quality 11 takes a few milliseconds per page: off the async threads.
        let rendered = tokio::task::spawn_blocking(move || Arc::new(render(page, index)))
            .await
            .expect("rendering a page does not panic");
        self.lock().insert(key, rendered.clone());
        rendered
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Arc<Rendered>>> {
        // A poisoned lock only means a panic elsewhere: the map itself is always whole.
        self.pages.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn render(page: Prerender, index: String) -> Rendered {
    let html = page.render(&index);
    let policy = headers::page_policy(
        &headers::inline_script_hashes(&html),
        &headers::inline_style_hashes(&html),
    );
    let policy = HeaderValue::from_str(&policy).expect("hashes are base64");
    Rendered {
        index,
        policy,
        brotli: assets::brotli(html.as_bytes()).ok().map(Bytes::from),
        gzip: assets::gzip(html.as_bytes()).ok().map(Bytes::from),
        raw: Bytes::from(html),
    }
}

/// The page's HTML for any address the app routes, with that page's words in it: from the
/// bundle with the models the address needs.
pub async fn index(State(state): State<Pages>, request: Request) -> Response {
    let page = Prerender::of(request.uri().path());
    let query = request.uri().query().unwrap_or_default();
    let bundle = match shared::link::bundle::pick(request.uri().path(), query) {
        shared::link::bundle::Bundle::First => Bundle::Chapters,
        shared::link::bundle::Bundle::Shapes => Bundle::Shapes,
        shared::link::bundle::Bundle::Whole => Bundle::Whole,
    };
    send(&state, request, bundle, page).await
}

/// The live room's HTML (`/room/new`, `/room/{code}`, its `/host` and `/projector`): the room
/// bundle's own `index.html`, which draws the page it finds in the address.
pub async fn room(State(state): State<Pages>, request: Request) -> Response {
    send(&state, request, Bundle::Room, Prerender::Nothing).await
}

async fn send(state: &Pages, request: Request, bundle: Bundle, page: Prerender) -> Response {
    let file = bundle.file();
    let Some(dist) = state.dist.as_ref() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let index = match tokio::fs::read_to_string(dist.join(&file)).await {
        Ok(index) => index,
        Err(e) => {
            tracing::error!("cannot read {}/{file}: {e}", dist.display());
            return (
                StatusCode::NOT_FOUND,
                [(CONTENT_TYPE, "text/plain; charset=utf-8")],
                "The page is not built: run scripts/run, which builds its four bundles (the \
                 chapters, the chapters with the shapes, the chapters with InnoDB's model, the \
                 live room's pages).",
            )
                .into_response();
        }
    };
    let rendered = state.html.get(key(bundle, page), page, index).await;
    let (encoding, body) = match Encoding::accepted(request.headers()) {
        Encoding::Brotli if rendered.brotli.is_some() => (Encoding::Brotli, &rendered.brotli),
        Encoding::Brotli | Encoding::Gzip if rendered.gzip.is_some() => {
            (Encoding::Gzip, &rendered.gzip)
        }
        _ => (Encoding::Identity, &None),
    };
    let body = body.clone().unwrap_or_else(|| rendered.raw.clone());
    let mut response = (
        [
            (
                CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (CONTENT_SECURITY_POLICY, rendered.policy.clone()),
            (VARY, HeaderValue::from_static("accept-encoding")),
        ],
        body,
    )
        .into_response();
    if let Some(coding) = encoding.header() {
        response
            .headers_mut()
            .insert(CONTENT_ENCODING, HeaderValue::from_static(coding));
    }
    response
}
