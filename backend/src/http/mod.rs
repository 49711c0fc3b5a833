//! The HTTP API and the static page: `/api/health`, `/api/scenarios`, `/api/runs`,
//! `/api/verify` (every order of a schedule on PostgreSQL, streamed), the live rooms
//! (`/api/rooms…`, and their pages under `/room/…`, a bundle of their own), and the
//! built frontend for every other path (precompressed, cached by hash, its HTML with the
//! chapter's words already in it), served by an accept loop of our own (`listener.rs`) that
//! bounds what a client connection may take, with fair admission of runs (`admission.rs`).

pub mod admission;
pub mod assets;
pub mod client;
mod conns;
pub mod cost;
mod error;
pub mod headers;
mod html;
pub mod listener;
pub mod page;
mod rooms;
mod routes;
mod sockets;
mod stall;
mod state;
pub mod verify;

use axum::extract::DefaultBodyLimit;
use axum::middleware;
use axum::response::IntoResponse;
use axum::routing::{any, get, post};
use axum::Router;
use tokio::net::TcpListener;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::services::ServeDir;
use tower_http::trace::TraceLayer;

pub use error::{ApiError, RUN_BODY_LIMIT};
pub use listener::Limits;
pub use state::AppState;
pub use verify::VerifyRules;

/// The whole application.
pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/api/health", get(routes::health))
        .route("/api/scenarios", get(routes::scenarios))
        .route(
            "/api/runs",
            post(routes::create_run).layer(DefaultBodyLimit::max(RUN_BODY_LIMIT)),
        )
        .merge(rooms::routes())
        .route("/api/{*rest}", any(|| async { ApiError::NotFound }))
        // A run's report repeats the tables at every entry: gzip makes it a few percent of
        // its size (`Accept-Encoding: gzip`, which every browser sends).
        .layer(CompressionLayer::new())
        // Added after the compression: a gzip stream would hold the progress lines back until
        // its buffer fills.
        .route(
            "/api/verify",
            post(verify::verify).layer(DefaultBodyLimit::max(RUN_BODY_LIMIT)),
        );
    let app = match state.dist() {
        Some(dist) => {
            let files = ServeDir::new(dist)
                .precompressed_br()
                .precompressed_gzip()
                .append_index_html_on_directories(false)
                .fallback(get(html::index).with_state(state.clone()));
            // The HTML is rendered per address (the chapter's words in it), and compressed
            // once per build by `html.rs`.
            let page = Router::new()
                .route("/", get(html::index))
                .route("/index.html", get(html::index))
                .route("/chapter/{n}", get(html::index))
                // The live room's pages are a bundle of their own (`html::ROOM_DIR`).
                .route("/room/{code}", get(html::room))
                .route("/room/{code}/host", get(html::room))
                .route("/room/{code}/projector", get(html::room))
                .fallback_service(files)
                .layer(middleware::from_fn(assets::cache_headers));
            api.merge(page)
        }
        None => api,
    };
    app.with_state(state)
        .layer(middleware::from_fn(headers::bound_head))
        .layer(CatchPanicLayer::custom(|_| {
            ApiError::Internal("a handler panicked".to_string()).into_response()
        }))
        .layer(middleware::from_fn(headers::secure))
        .layer(TraceLayer::new_for_http())
}

/// Serves the application on `listener` until Ctrl-C, with the default `Limits`.
pub async fn serve(listener: TcpListener, state: AppState) -> std::io::Result<()> {
    serve_with(listener, state, Limits::default()).await
}

/// Serves the application on `listener` until Ctrl-C, with `limits` on client connections.
pub async fn serve_with(
    listener: TcpListener,
    state: AppState,
    limits: Limits,
) -> std::io::Result<()> {
    listener::serve(listener, router(state), limits).await
}
