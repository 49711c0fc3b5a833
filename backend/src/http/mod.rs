//! The HTTP API and the static page: `/api/health`, `/api/scenarios`, `/api/runs`, and the
//! built frontend for every other path (precompressed, cached by hash, its HTML with the
//! chapter's words already in it).

pub mod assets;
mod error;
pub mod page;
mod routes;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::StatusCode;
use axum::middleware;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::Router;
use sqlx::PgPool;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::services::ServeDir;
use tower_http::trace::TraceLayer;

pub use error::ApiError;

use crate::db;

/// The largest schedule file `POST /api/runs` takes.
pub const RUN_BODY_LIMIT: usize = 64 * 1024;

/// What the handlers share.
#[derive(Clone)]
pub struct AppState {
    pool: PgPool,
    dist: Option<PathBuf>,
    /// One permit per run that the pool can serve at once, so that concurrent runs never each
    /// hold half the connections they need.
    runs: Arc<Semaphore>,
    /// Whether the database is connected and migrated (`serve` starts before it is).
    readiness: db::Readiness,
    /// The bound on one run (`executor::RUN_TIMEOUT`; tests shorten it).
    run_limit: Duration,
}

impl AppState {
    /// `dist`: the built frontend to serve, if any.
    pub fn new(pool: PgPool, dist: Option<PathBuf>) -> AppState {
        let per_run = shared::schedule::MAX_ACTORS as u32 + 1;
        let permits = (pool.options().get_max_connections() / per_run).max(1) as usize;
        AppState {
            pool,
            dist,
            runs: Arc::new(Semaphore::new(permits)),
            readiness: db::Readiness::ready(),
            run_limit: crate::executor::RUN_TIMEOUT,
        }
    }

    /// The same, on a database that `readiness` says may not be up yet: until it is, health
    /// and runs answer 503 with the reason.
    pub fn with_readiness(mut self, readiness: db::Readiness) -> AppState {
        self.readiness = readiness;
        self
    }

    /// The same, with another bound on each run.
    pub fn with_run_limit(mut self, limit: Duration) -> AppState {
        self.run_limit = limit;
        self
    }
}

/// The whole application.
pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/api/health", get(routes::health))
        .route("/api/scenarios", get(routes::scenarios))
        .route(
            "/api/runs",
            post(routes::create_run).layer(DefaultBodyLimit::max(RUN_BODY_LIMIT)),
        )
        .route("/api/{*rest}", any(|| async { ApiError::NotFound }));
    let app = match &state.dist {
        Some(dist) => {
            let files = ServeDir::new(dist)
                .precompressed_br()
                .precompressed_gzip()
                .append_index_html_on_directories(false)
                .fallback(get(index).with_state(state.clone()));
            let page = Router::new()
                .route("/", get(index))
                .route("/index.html", get(index))
                .route("/chapter/{n}", get(index))
                .fallback_service(files)
                .layer(middleware::from_fn(assets::cache_headers));
            api.merge(page)
        }
        None => api,
    };
    app.with_state(state)
        .layer(CatchPanicLayer::custom(|_| {
            ApiError::Internal("a handler panicked".to_string()).into_response()
        }))
        .layer(TraceLayer::new_for_http())
}

/// The page's HTML for any address the app routes, with that page's words in it.
async fn index(State(state): State<AppState>, request: Request) -> Response {
    let Some(dist) = &state.dist else {
        return StatusCode::NOT_FOUND.into_response();
    };
    match tokio::fs::read_to_string(dist.join("index.html")).await {
        Ok(index) => Html(page::Prerender::of(request.uri().path()).render(&index)).into_response(),
        Err(e) => {
            tracing::error!("cannot read {}/index.html: {e}", dist.display());
            (
                StatusCode::NOT_FOUND,
                [(CONTENT_TYPE, "text/plain; charset=utf-8")],
                "The page is not built: run `trunk build --release` (scripts/run does it).",
            )
                .into_response()
        }
    }
}

/// Serves the application on `listener` until Ctrl-C.
pub async fn serve(listener: TcpListener, state: AppState) -> std::io::Result<()> {
    axum::serve(listener, router(state))
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
}
