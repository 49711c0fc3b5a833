//! The NOTIFYs of this process, coalesced. PostgreSQL serialises the commits of every
//! transaction that notified (it takes one lock for the whole server in `PreCommit_Notify`, on
//! every database at once, and keeps it until the commit is done), so a NOTIFY in each request's
//! record capped a room at one request per WAL flush: about 340 a second with 32 clients on this
//! machine, against 4,300 for the same insert alone (pgbench, `bench/README.md`); and a NOTIFY
//! in each batch of records (`recorder.rs`) made every request wait its turn behind every other
//! server's notifying commits (ten times slower, next to the other tests' servers). Instead the
//! records commit without one, and say which room changed here; one task sends a single NOTIFY
//! statement for every room changed since its last one. While one is on its way, the changes
//! that arrive wait for the next, so a busy room costs one notifying commit at a time, not one
//! per request, and a quiet one is notified at once. It commits without waiting for the disk
//! (the leases' pool, `synchronous_commit = off`), which keeps that lock for microseconds
//! instead of a flush: a NOTIFY carries no data (the records it announces are on disk before it
//! is sent), so a crash that loses it loses nothing; the listeners rebuild every room when they
//! reconnect.

use std::collections::BTreeSet;
use std::time::Duration;

use tokio::sync::mpsc;

use super::live::CHANNEL;
use crate::db::Fault;

/// How long a NOTIFY that met a fault (the database is away) waits before it is tried again.
const RETRY: Duration = Duration::from_millis(200);
/// How long it is tried again for; the listeners rebuild every room when they reconnect.
const GIVE_UP: Duration = Duration::from_secs(30);

/// Every room in `$2` notified on `$1`, in one statement (one commit).
const NOTIFY: &str = "select pg_notify($1, code) from unnest($2::text[]) as code";

/// The sender of the process's NOTIFYs.
#[derive(Clone)]
pub struct Notifier {
    changed: mpsc::UnboundedSender<String>,
}

impl Notifier {
    /// Starts the task that notifies on `pool`.
    pub fn start(pool: sqlx::PgPool) -> Notifier {
        let (changed, mut rx) = mpsc::unbounded_channel::<String>();
        tokio::spawn(async move {
            while let Some(first) = rx.recv().await {
                let mut codes = BTreeSet::from([first]);
                while let Ok(code) = rx.try_recv() {
                    codes.insert(code);
                }
                send(&pool, &codes.into_iter().collect::<Vec<_>>()).await;
            }
        });
        Notifier { changed }
    }

    /// Tells every backend process serving `code` that its state changed (soon: with the next
    /// NOTIFY this process sends).
    pub fn changed(&self, code: &str) {
        // The task ends only with the runtime.
        let _ = self.changed.send(code.to_string());
    }
}

async fn send(pool: &sqlx::PgPool, codes: &[String]) {
    let give_up = tokio::time::Instant::now() + GIVE_UP;
    loop {
        match sqlx::query(NOTIFY)
            .bind(CHANNEL)
            .bind(codes)
            .execute(pool)
            .await
        {
            Ok(_) => return,
            Err(e) if Fault::of(&e).is_some() && tokio::time::Instant::now() < give_up => {
                if Fault::is_lost(&e) {
                    crate::db::discard_dead(pool).await;
                }
                tokio::time::sleep(RETRY).await;
            }
            Err(e) => {
                tracing::warn!(error = %e, rooms = codes.len(), "could not notify rooms' changes");
                return;
            }
        }
    }
}
