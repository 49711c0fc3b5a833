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
pub mod verify;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, FromRef};
use axum::middleware;
use axum::response::IntoResponse;
use axum::routing::{any, get, post};
use axum::Router;
use sqlx::PgPool;
use tokio::net::TcpListener;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::services::ServeDir;
use tower_http::trace::TraceLayer;

use admission::{Admission, Rules};
pub use error::{ApiError, RUN_BODY_LIMIT};
pub use listener::Limits;
pub use verify::VerifyRules;

use crate::db;

/// What the handlers share.
#[derive(Clone)]
pub struct AppState {
    pool: PgPool,
    dist: Option<PathBuf>,
    /// The run queue: one slot per run that the pool can serve at once, so that concurrent runs
    /// never each hold half the connections they need, shared fairly between clients.
    admission: Arc<Admission>,
    /// Whether the database is connected and migrated (`serve` starts before it is).
    readiness: db::Readiness,
    /// The bound on one run (`executor::RUN_TIMEOUT`; tests shorten it).
    run_limit: Duration,
    /// The page's HTML per address, rendered and compressed once per build.
    html: Arc<html::HtmlCache>,
    /// The bounds on `POST /api/verify`, and its verifications under way.
    verify_rules: VerifyRules,
    verifications: Arc<tokio::sync::Semaphore>,
    /// The live rooms, started on their first request (their listener and clock are tasks).
    rooms: Arc<OnceLock<Arc<rooms::RoomApi>>>,
}

impl AppState {
    /// `dist`: the built frontend to serve, if any.
    pub fn new(pool: PgPool, dist: Option<PathBuf>) -> AppState {
        let per_run = shared::schedule::MAX_ACTORS as u32 + 1;
        let slots = (pool.options().get_max_connections() / per_run).max(1) as usize;
        AppState {
            pool,
            dist,
            admission: Admission::new(Rules::for_slots(slots)),
            readiness: db::Readiness::ready(),
            run_limit: crate::executor::RUN_TIMEOUT,
            html: Arc::default(),
            verify_rules: VerifyRules::default(),
            verifications: Arc::new(tokio::sync::Semaphore::new(VerifyRules::default().at_once)),
            rooms: Arc::default(),
        }
    }

    /// The same state with other bounds on verifications (the tests' smaller ones, say).
    pub fn with_verify_rules(mut self, rules: VerifyRules) -> AppState {
        self.verifications = Arc::new(tokio::sync::Semaphore::new(rules.at_once));
        self.verify_rules = rules;
        self
    }

    /// The same state with other admission rules (the tests' smaller bounds, say).
    pub fn with_admission(mut self, rules: Rules) -> AppState {
        self.admission = Admission::new(rules);
        self
    }

    /// The admission rules in force.
    pub fn admission_rules(&self) -> &Rules {
        self.admission.rules()
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

/// What the room routes take: the readiness, the pool and the live rooms of this server.
impl FromRef<AppState> for rooms::RoomsState {
    fn from_ref(state: &AppState) -> rooms::RoomsState {
        rooms::RoomsState {
            readiness: state.readiness.clone(),
            pool: state.pool.clone(),
            started: state.rooms.clone(),
        }
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
    let app = match &state.dist {
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
