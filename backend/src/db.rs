//! The connection pool: its options, the database URL as it may be shown to people, which
//! errors are faults (`fault`), and bringing a database up in the background (`ready`).

mod fault;
mod ready;

use std::str::FromStr;
use std::time::Duration;

use futures::future::join_all;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{ConnectOptions, Connection, PgPool};

pub use fault::{reason, Fault};
pub use ready::Readiness;

/// Where the database is when `DATABASE_URL` says nothing.
pub const DEFAULT_DATABASE_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// `DATABASE_URL`, or the default.
pub fn database_url() -> String {
    std::env::var("DATABASE_URL").unwrap_or_else(|_| DEFAULT_DATABASE_URL.to_string())
}

/// The URL with its password hidden, fit for a message.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let user_info = &url[scheme + 3..at];
            match user_info.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

/// How long the first connection may take: a host that accepts the connection and never answers
/// (a wrong port, a firewall that drops) would otherwise hold the start-up forever.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Connects a pool of `max_connections` (a run takes one connection per actor, plus one for its
/// monitor unless its schema is a ready one: a ready schema's own connection is detached from
/// the pool, so the executor's shelf adds up to half as many again, at most 16, to the server's
/// connections).
pub async fn connect(url: &str, max_connections: u32) -> Result<PgPool, sqlx::Error> {
    connect_within(url, max_connections, CONNECT_TIMEOUT).await
}

/// `connect`, giving the first connection `limit` to answer.
pub async fn connect_within(
    url: &str,
    max_connections: u32,
    limit: Duration,
) -> Result<PgPool, sqlx::Error> {
    let options = options(url)?;
    // One direct connection first: the pool would retry until its timeout and then report
    // only that it timed out, where this reports why (refused, unknown host, bad password).
    let first = tokio::time::timeout(limit, options.connect())
        .await
        .map_err(|_| {
            sqlx::Error::Io(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!(
                    "no answer from the server within {} s (is it PostgreSQL, on that host and port?)",
                    limit.as_secs_f64()
                ),
            ))
        })??;
    first.close().await?;
    pool_options(max_connections).connect_with(options).await
}

/// A pool of `max_connections` that connects only when it is used, with a task that connects
/// and applies the migrations in the background, again and again until the database answers:
/// the server starts whether or not PostgreSQL is up. Fails only on a URL that is not one.
pub fn connect_in_background(
    url: &str,
    max_connections: u32,
) -> Result<(PgPool, Readiness), sqlx::Error> {
    let options = options(url)?;
    let pool = pool_options(max_connections).connect_lazy_with(options.clone());
    let readiness = ready::bring_up(pool.clone(), options);
    Ok((pool, readiness))
}

fn options(url: &str) -> Result<PgConnectOptions, sqlx::Error> {
    Ok(PgConnectOptions::from_str(url)?
        // A statement blocked on a lock is the point of a run, not a slow query worth a warning.
        .log_slow_statements(log::LevelFilter::Off, Duration::from_secs(60))
        .log_statements(log::LevelFilter::Trace))
}

fn pool_options(max_connections: u32) -> PgPoolOptions {
    PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(Duration::from_secs(5))
        // Connections are checked when they come back (sqlx pings them then), not again on the
        // way out: a run takes several at once and every round trip counts. The price: after a
        // restart the pool hands out connections that died with the old server, which is why
        // whoever meets one calls `discard_dead` and tries once more.
        .test_before_acquire(false)
}

/// How long an idle connection gets to answer a ping before it is taken for dead.
const PING_LIMIT: Duration = Duration::from_secs(1);

/// Closes the idle connections of `pool` that no longer answer, so that the next ones it hands
/// out are fresh; how many it closed. After a restart every connection the pool kept is dead
/// (the old server ended their sessions), and the pool hands them out unchecked.
pub async fn discard_dead(pool: &PgPool) -> usize {
    let mut idle = Vec::new();
    while idle.len() < pool.size() as usize {
        match pool.try_acquire() {
            Some(conn) => idle.push(conn),
            None => break,
        }
    }
    let alive = join_all(idle.into_iter().map(|mut conn| async move {
        let alive = matches!(
            tokio::time::timeout(PING_LIMIT, conn.ping()).await,
            Ok(Ok(()))
        );
        if !alive {
            conn.close_on_drop();
        }
        alive
    }))
    .await;
    alive.into_iter().filter(|alive| !alive).count()
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::{connect_within, redact};

    #[tokio::test]
    async fn a_server_that_never_answers_is_reported_not_waited_for() {
        // Accepts connections and says nothing, like a wrong port behind a silent service.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let held = tokio::spawn(async move {
            let mut open = Vec::new();
            while let Ok((socket, _)) = listener.accept().await {
                open.push(socket);
            }
        });
        let started = Instant::now();
        let url = format!("postgres://postgres@127.0.0.1:{port}/postgres");
        let error = connect_within(&url, 2, Duration::from_millis(300))
            .await
            .expect_err("nobody answers");
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(
            error
                .to_string()
                .contains("no answer from the server within 0.3 s"),
            "{error}"
        );
        held.abort();
    }

    #[test]
    fn a_password_never_reaches_a_message() {
        assert_eq!(
            redact("postgres://u:secret@h:5432/db"),
            "postgres://u:***@h:5432/db"
        );
        assert_eq!(
            redact("postgres://postgres@127.0.0.1:5432/postgres"),
            "postgres://postgres@127.0.0.1:5432/postgres"
        );
    }
}
