//! What the handlers share (`AppState`), and the part of it each group of routes takes: the
//! page's HTML (`html::Pages`) and the live rooms (`rooms::RoomsState`), so that neither
//! names the whole.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::extract::FromRef;
use sqlx::PgPool;

use super::admission::{Admission, Rules};
use super::html::{HtmlCache, Pages};
use super::rooms;
use super::verify::VerifyRules;
use crate::db;

/// What the handlers share.
#[derive(Clone)]
pub struct AppState {
    pub(super) pool: PgPool,
    /// MariaDB, for the schedules on InnoDB: a pool that connects when a run needs it, so the
    /// server starts without MariaDB (a run while it is down answers 503 naming it). `None`
    /// when MYSQL_URL is not a URL.
    pub(super) mariadb: Option<sqlx::mysql::MySqlPool>,
    pub(super) dist: Option<PathBuf>,
    /// The run queue: one slot per run that the pool can serve at once, so that concurrent runs
    /// never each hold half the connections they need, shared fairly between clients.
    pub(super) admission: Arc<Admission>,
    /// Whether the database is connected and migrated (`serve` starts before it is).
    pub(super) readiness: db::Readiness,
    /// The bound on one run (`executor::RUN_TIMEOUT`; tests shorten it).
    pub(super) run_limit: Duration,
    /// The page's HTML per address, rendered and compressed once per build.
    pub(super) html: Arc<HtmlCache>,
    /// The bounds on `POST /api/verify`, and its verifications under way.
    pub(super) verify_rules: VerifyRules,
    pub(super) verifications: Arc<tokio::sync::Semaphore>,
    /// The live rooms, started on their first request (their listener and clock are tasks).
    pub(super) rooms: Arc<OnceLock<Arc<rooms::RoomApi>>>,
}

impl AppState {
    /// `dist`: the built frontend to serve, if any.
    pub fn new(pool: PgPool, dist: Option<PathBuf>) -> AppState {
        let per_run = shared::schedule::MAX_ACTORS as u32 + 1;
        let slots = (pool.options().get_max_connections() / per_run).max(1) as usize;
        AppState {
            pool,
            mariadb: crate::innodb::default_pool().cloned(),
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

    /// The same state with another MariaDB (a test's private server, say), or none.
    pub fn with_mariadb(mut self, mariadb: Option<sqlx::mysql::MySqlPool>) -> AppState {
        self.mariadb = mariadb;
        self
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

    /// The built frontend this server serves, if any.
    pub fn dist(&self) -> Option<&Path> {
        self.dist.as_deref()
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

/// What the page's routes take: the built frontend and its rendered HTML.
impl FromRef<AppState> for Pages {
    fn from_ref(state: &AppState) -> Pages {
        Pages {
            dist: state.dist.clone(),
            html: state.html.clone(),
        }
    }
}
