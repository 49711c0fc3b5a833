//! Whether the database is ready, and the task that makes it so. `serve` starts whether or not
//! PostgreSQL is up: until the database answers and the migrations are applied, the API answers
//! 503 with the reason, and a task of its own keeps trying in the background.

use std::time::Duration;

use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Connection, PgPool};
use tokio::sync::watch;

use super::fault;

/// How long the bring-up waits after a failed attempt, at first and at most: a refused
/// connection costs nothing, so the server notices within a second that the database is up.
const RETRY_FIRST: Duration = Duration::from_millis(200);
const RETRY_MOST: Duration = Duration::from_secs(1);

#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    /// No attempt has ended yet.
    Connecting,
    /// The last attempt failed, for this reason (words fit for a client).
    Waiting(String),
    /// Connected and migrated.
    Ready,
}

/// Whether the database is connected and migrated; cheap to clone and to ask.
#[derive(Clone, Debug)]
pub struct Readiness(watch::Receiver<State>);

impl Readiness {
    /// A database that is ready already (connected and migrated by the caller).
    pub fn ready() -> Readiness {
        let (tx, rx) = watch::channel(State::Ready);
        // Nothing will change it: the receiver keeps the last value.
        drop(tx);
        Readiness(rx)
    }

    /// `Ok` once the database is ready; otherwise why not, in words fit for a client.
    pub fn check(&self) -> Result<(), String> {
        match &*self.0.borrow() {
            State::Ready => Ok(()),
            State::Connecting => Err("the server is still connecting to PostgreSQL".to_string()),
            State::Waiting(reason) => Err(reason.clone()),
        }
    }

    /// Waits (at most `limit`) for the first attempt to end; then as `check`.
    pub async fn first_attempt(&self, limit: Duration) -> Result<(), String> {
        let mut rx = self.0.clone();
        let _ = tokio::time::timeout(limit, rx.wait_for(|s| *s != State::Connecting)).await;
        self.check()
    }

    /// Waits until the database is ready (for ever, if it never is).
    pub async fn until_ready(&self) {
        let mut rx = self.0.clone();
        if rx.wait_for(|s| *s == State::Ready).await.is_err() {
            // The bring-up gave up: it never does, but a future that ends would be a lie.
            std::future::pending::<()>().await;
        }
    }
}

/// Starts bringing the database of `pool` up in the background: a direct connection first
/// (it says why it fails, where the pool would only time out), then the migrations, again and
/// again until both succeed. `options` are the pool's connect options.
pub fn bring_up(pool: PgPool, options: PgConnectOptions) -> Readiness {
    let (tx, rx) = watch::channel(State::Connecting);
    tokio::spawn(async move {
        let mut pause = RETRY_FIRST;
        loop {
            match attempt(&pool, &options).await {
                Ok(()) => {
                    tracing::info!("connected to PostgreSQL; the migrations are applied");
                    let _ = tx.send(State::Ready);
                    return;
                }
                Err(e) => {
                    let reason = fault::reason(&e);
                    if *tx.borrow() != State::Waiting(reason.clone()) {
                        tracing::warn!(error = %e, "PostgreSQL is not ready; trying again in the background");
                    }
                    if tx.send(State::Waiting(reason)).is_err() {
                        // Nobody asks any more (the server stopped).
                        return;
                    }
                }
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(RETRY_MOST);
        }
    });
    Readiness(rx)
}

async fn attempt(pool: &PgPool, options: &PgConnectOptions) -> Result<(), sqlx::Error> {
    let first = tokio::time::timeout(super::CONNECT_TIMEOUT, options.connect())
        .await
        .map_err(|_| sqlx::Error::Io(std::io::ErrorKind::TimedOut.into()))??;
    first.close().await?;
    sqlx::migrate!("../migrations")
        .run(pool)
        .await
        .map_err(|e| sqlx::Error::Migrate(Box::new(e)))
}
