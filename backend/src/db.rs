//! The connection pool: its options, and the database URL as it may be shown to people.

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{ConnectOptions, Connection, PgPool};

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

/// Connects a pool of `max_connections` (a run takes one connection per actor plus one).
pub async fn connect(url: &str, max_connections: u32) -> Result<PgPool, sqlx::Error> {
    let options = PgConnectOptions::from_str(url)?
        // A statement blocked on a lock is the point of a run, not a slow query worth a warning.
        .log_slow_statements(log::LevelFilter::Off, Duration::from_secs(60))
        .log_statements(log::LevelFilter::Trace);
    // One direct connection first: the pool would retry until its timeout and then report
    // only that it timed out, where this reports why (refused, unknown host, bad password).
    options.connect().await?.close().await?;
    PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(Duration::from_secs(5))
        // Connections are checked when they come back (sqlx pings them then), not again on the
        // way out: a run takes several at once and every round trip counts.
        .test_before_acquire(false)
        .connect_with(options)
        .await
}

#[cfg(test)]
mod tests {
    use super::redact;

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
