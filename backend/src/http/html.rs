//! The page's HTML as it goes out: rendered for its address (`page.rs`) from Trunk's
//! `index.html`, compressed once (brotli, gzip) and kept until `index.html` changes, sent in
//! the best encoding the client accepts, with the Content-Security-Policy that allows the
//! inline script and style sheets it carries by their hashes. The live room's pages are a
//! bundle of their own (`dist/room-page/`), whose one `index.html` is served the same way.

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

/// The rendered pages, one per `Prerender` (the home page, each chapter, any other address):
/// a handful, whatever addresses are asked for.
#[derive(Default)]
pub struct HtmlCache {
    pages: Mutex<HashMap<Option<u8>, Arc<Rendered>>>,
}

fn key(page: Prerender) -> Option<u8> {
    match page {
        Prerender::Home => Some(0),
        Prerender::Chapter(c) => Some(c.number),
        Prerender::Nothing => None,
    }
}

/// The cache's key of the live room's pages (one HTML for all of them).
const ROOM_KEY: Option<u8> = Some(u8::MAX);

/// The live room's pages: a bundle of their own (`frontend/room/`), built into this folder of
/// `dist/` so that the chapters' first visit never carries them.
pub const ROOM_DIR: &str = "room-page";

impl HtmlCache {
    /// `page` rendered from `index`, compressed: from the cache while `index` is the same.
    async fn get(&self, key: Option<u8>, page: Prerender, index: String) -> Arc<Rendered> {
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

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Option<u8>, Arc<Rendered>>> {
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

/// The page's HTML for any address the app routes, with that page's words in it.
pub async fn index(State(state): State<Pages>, request: Request) -> Response {
    let page = Prerender::of(request.uri().path());
    send(&state, request, "index.html", key(page), page).await
}

/// The live room's HTML (`/room/new`, `/room/{code}`, its `/host` and `/projector`): the room
/// bundle's own `index.html`, which draws the page it finds in the address.
pub async fn room(State(state): State<Pages>, request: Request) -> Response {
    let file = format!("{ROOM_DIR}/index.html");
    send(&state, request, &file, ROOM_KEY, Prerender::Nothing).await
}

async fn send(
    state: &Pages,
    request: Request,
    file: &str,
    key: Option<u8>,
    page: Prerender,
) -> Response {
    let Some(dist) = state.dist.as_ref() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let index = match tokio::fs::read_to_string(dist.join(file)).await {
        Ok(index) => index,
        Err(e) => {
            tracing::error!("cannot read {}/{file}: {e}", dist.display());
            return (
                StatusCode::NOT_FOUND,
                [(CONTENT_TYPE, "text/plain; charset=utf-8")],
                "The page is not built: run `trunk build --release` (scripts/run does it).",
            )
                .into_response();
        }
    };
    let rendered = state.html.get(key, page, index).await;
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
