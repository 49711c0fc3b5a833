//! Each round's seats: a booking schema of the round's own, made from the migration text 0001
//! exactly as a run's schema is (`shared::sql::SCHEMA_DDL`), its seats inserted with
//! `shared::sql::INSERT_SEAT` (or, in a general-admission round, its section's count with
//! `shared::sql::counter`'s insert), and a pool whose connections have that schema as their search
//! path and the sessions' settings of the executor's actors (and no JIT).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use shared::schedule::{Database, Shape};
use shared::sql;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{Connection, Executor, PgConnection, PgPool};

use super::settings::{seat_ids, SECTION};
use super::store::Played;

/// The show every room sells (the schedule format's default).
pub const SHOW: i64 = 501;
/// Connections of one round's pool: taps beyond it queue for one (release day's queue).
pub const ROUND_CONNECTIONS: u32 = 12;

/// The round pools of this process, by schema name.
#[derive(Clone)]
pub struct Pools {
    main: PgPool,
    by_schema: Arc<Mutex<HashMap<String, PgPool>>>,
}

impl Pools {
    pub fn new(main: PgPool) -> Pools {
        Pools {
            main,
            by_schema: Arc::default(),
        }
    }

    /// The pool of `schema` (made on first use; it connects lazily).
    pub fn of(&self, schema: &str) -> PgPool {
        let mut map = self.by_schema.lock().expect("pools lock");
        map.entry(schema.to_string())
            .or_insert_with(|| {
                let options = round_options(&self.main.connect_options(), schema);
                PgPoolOptions::new()
                    .max_connections(ROUND_CONNECTIONS)
                    .min_connections(0)
                    .idle_timeout(Duration::from_secs(30))
                    .acquire_timeout(Duration::from_secs(10))
                    // A tap is one or two statements: a ping before each would be a round
                    // trip more. After a restart, whoever meets a dead connection has the
                    // pool's idle ones checked (`db::discard_dead`).
                    .test_before_acquire(false)
                    .connect_lazy_with(options)
            })
            .clone()
    }

    /// Closes and forgets the pools of `code`'s rounds other than `keep`.
    pub fn forget_room(&self, code: &str, keep: Option<&str>) -> Vec<PgPool> {
        let prefix = format!("room_{}_", code.to_ascii_lowercase());
        let mut map = self.by_schema.lock().expect("pools lock");
        let gone: Vec<String> = map
            .keys()
            .filter(|k| k.starts_with(&prefix) && Some(k.as_str()) != keep)
            .cloned()
            .collect();
        gone.into_iter().filter_map(|k| map.remove(&k)).collect()
    }
}

fn round_options(main: &PgConnectOptions, schema: &str) -> PgConnectOptions {
    main.clone().options([
        ("search_path", schema),
        ("enable_seqscan", "off"),
        ("enable_bitmapscan", "off"),
        ("deadlock_timeout", "1000ms"),
        ("statement_timeout", "20s"),
        ("lock_timeout", "15s"),
        ("idle_in_transaction_session_timeout", "60s"),
        ("plan_cache_mode", "force_custom_plan"),
        // With sequential scans off, a read of a table without an index (the refunds owed) is
        // priced as disabled, far past the JIT's thresholds: every rebuild of the room's state
        // compiled its reads with LLVM (a third of a second on this machine) and threw the
        // code away, its plans being custom. The answers are the same without it.
        ("jit", "off"),
    ])
}

/// Creates `schema` from the booking migration with what the round sells: its seats, all
/// available, or its section with every ticket left.
pub fn create_round<'a>(
    main: &'a PgPool,
    schema: &'a str,
    played: Played,
) -> BoxFuture<'a, Result<(), sqlx::Error>> {
    Box::pin(create_round_now(main, schema, played))
}

async fn create_round_now(main: &PgPool, schema: &str, played: Played) -> Result<(), sqlx::Error> {
    let mut conn = main.acquire().await?;
    let mut tx = conn.begin().await?;
    // The schema name is ours (`store::schema_name`: letters, digits and underscores).
    let create = format!(
        "set local client_min_messages = warning; drop schema if exists {schema} cascade; \
         create schema {schema}; set local search_path to {schema}"
    );
    simple(&mut tx, &create).await?;
    simple(&mut tx, sql::SCHEMA_DDL).await?;
    let seats = match played.kind {
        Shape::Seats => played.seats,
        Shape::GeneralAdmission
        | Shape::Balance
        | Shape::RateLimit
        | Shape::Coupon
        | Shape::Username => {
            if let Some(table) = sql::counter::table(played.kind) {
                sqlx::query(&table.insert(Database::Postgresql))
                    .bind(SECTION)
                    .bind(i64::from(played.tickets))
                    .execute(&mut *tx)
                    .await?;
            }
            0
        }
    };
    for seat in seat_ids(seats) {
        sqlx::query(sql::INSERT_SEAT)
            .bind(SHOW)
            .bind(seat)
            .bind("AVAILABLE")
            .bind(None::<String>)
            .bind(None::<String>)
            .bind(None::<i64>)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await
}

/// Runs `sql` as one simple query (several statements, no parameters). Boxed so that the
/// future's `Send` is checked at one lifetime.
pub fn simple<'c>(
    conn: &'c mut PgConnection,
    sql: &'c str,
) -> BoxFuture<'c, Result<sqlx::postgres::PgQueryResult, sqlx::Error>> {
    conn.execute(sqlx::raw_sql(sql))
}

/// Drops `schema` (a round that is over), closing this process's pool of it first.
pub fn drop_round<'a>(main: &'a PgPool, schema: &'a str) -> BoxFuture<'a, ()> {
    Box::pin(drop_round_now(main, schema))
}

async fn drop_round_now(main: &PgPool, schema: &str) {
    let sql = format!("set client_min_messages = warning; drop schema if exists {schema} cascade");
    if let Err(e) = sqlx::raw_sql(&sql).execute(main).await {
        tracing::warn!(error = %e, %schema, "a round's schema was not dropped");
    }
}
