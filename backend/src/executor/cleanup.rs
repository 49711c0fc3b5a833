//! The clean-up of a run: what it gives back, and how. After a run that ended normally the
//! schema is emptied and put back on the shelf with its actors' connections, as they are set up
//! for it, outside any transaction; after any other ending every actor's connection goes back
//! to the pool outside any transaction and with its settings reset (or is closed), and the
//! schema is dropped.
//!
//! Every step is bounded, and a connection that cannot be made clean in time is closed, never
//! handed back half reset; a schema that cannot be dropped in time is left to the sweep.

mod release;
mod schema;

use std::time::Duration;

use sqlx::PgPool;

use super::actor::ActorConn;
use super::conns::Monitor;
use super::ready::{self, Pinned, Ready, VACUUM_EVERY};
use super::{ddl, monitor, phases};

/// How long a clean-up waits for the actors' connections before giving up on them and closing
/// them (a statement that ignores cancellation still ends at `statement_timeout`).
const CLEANUP_LIMIT: Duration = Duration::from_secs(25);
/// How long dropping a run's schema may take.
const DROP_LIMIT: Duration = Duration::from_secs(20);
/// How long resetting the monitor, or emptying a schema for the next run, may take before the
/// monitor is closed (and the schema dropped) instead.
const RESET_LIMIT: Duration = Duration::from_secs(2);

/// Everything a run must give back.
pub(crate) struct Cleanup {
    pub schema: String,
    pub monitor: Option<Monitor>,
    pub actors: Vec<ActorConn>,
    /// Connections set up for the schema that the run did not need, kept for later runs.
    pub spare: Vec<Pinned>,
    pub pool: PgPool,
    pub created: bool,
    /// The schema came off the shelf.
    pub shelved: bool,
    /// The runs the schema served before this one.
    pub uses: u32,
    /// The run ended normally: its schema may serve the next one.
    pub keep: bool,
}

impl Cleanup {
    pub async fn run(mut self) {
        let started = tokio::time::Instant::now();
        let idle = self.actors.iter().all(|a| !a.is_busy());
        if self.keep && self.created && idle && self.monitor.is_some() {
            if self.shelve_with_actors().await {
                phases::closed(Duration::ZERO, started.elapsed());
                return;
            }
            self.keep = false;
        } else if tokio::time::timeout(CLEANUP_LIMIT, self.release_actors())
            .await
            .is_err()
        {
            tracing::warn!(schema = %self.schema, "actor connections did not come back in time; closing them");
            // Their tasks close their connections at once instead of handing them back.
            self.actors.iter_mut().for_each(ActorConn::kill);
            self.keep = false;
        }
        let released = started.elapsed();
        if self.keep && self.created {
            if let Some(ready) = self.empty().await {
                let back = ready::put(&self.pool, ready, self.shelved);
                phases::closed(released, started.elapsed() - released);
                match back {
                    Ok(()) => return,
                    // No room on the shelf: dropped like any other run's schema.
                    Err(ready) => {
                        self.schema = ready.name;
                        self.monitor = Some(Monitor::Own(ready.monitor));
                        self.shelved = false;
                    }
                }
            }
        }
        let dropped = match tokio::time::timeout(DROP_LIMIT, self.drop_schema()).await {
            Ok(dropped) => dropped,
            Err(_) => {
                tracing::warn!(schema = %self.schema, "dropping a run's schema did not finish in time; it is left to the sweep");
                false
            }
        };
        // A monitor still here was not made clean: it may be half-way through a statement, or
        // still hold the run's settings and lock. Closing it frees the lock for the sweep.
        if let Some(monitor) = self.monitor.take() {
            monitor.discard();
        }
        if self.shelved {
            ready::forget(&self.pool);
        }
        if !dropped {
            super::sweep::owe(&self.pool, &self.schema);
        }
        phases::closed(released, started.elapsed() - released);
    }

    /// Nothing runs any more: the actors give their connections back while the schema is
    /// emptied (a row that an actor's open transaction still locks is deleted as soon as its
    /// rollback frees it), and the schema goes back on the shelf with them. Whether it did;
    /// otherwise the schema is here to be dropped (if its monitor is), and the actors'
    /// connections that did not come back in time are closed.
    async fn shelve_with_actors(&mut self) -> bool {
        let ends: Vec<_> = self
            .actors
            .iter_mut()
            .filter_map(|a| {
                let pid = a.pid;
                a.finish(true).map(|rx| async move { (pid, rx.await) })
            })
            .collect();
        let (released, ready) = tokio::join!(
            tokio::time::timeout(CLEANUP_LIMIT, futures::future::join_all(ends)),
            self.empty()
        );
        // The connections come back set up for the schema: they stay with it.
        let pinned = released.map(|returned| {
            returned
                .into_iter()
                .filter_map(|(pid, back)| Some(Pinned::new(back.ok()??, pid)))
                .collect::<Vec<_>>()
        });
        if pinned.is_err() {
            tracing::warn!(schema = %self.schema, "actor connections did not come back in time; closing them");
            self.actors.iter_mut().for_each(ActorConn::kill);
        }
        let Some(mut ready) = ready else {
            return false;
        };
        let released = pinned.is_ok();
        let back = match pinned {
            Ok(pinned) => {
                ready.actors.extend(pinned);
                ready::put(&self.pool, ready, self.shelved)
            }
            Err(_) => Err(ready),
        };
        match back {
            Ok(()) => true,
            Err(ready) => {
                if self.shelved && released {
                    // `put` already counted it off the shelf.
                    self.shelved = false;
                }
                self.schema = ready.name;
                self.monitor = Some(Monitor::Own(ready.monitor));
                false
            }
        }
    }

    /// Empties the schema's tables for the next run (vacuumed every `VACUUM_EVERY` runs), on
    /// the monitor, which the schema keeps. `None` (the monitor stays here, to drop the schema)
    /// if that fails or takes too long.
    async fn empty(&mut self) -> Option<Ready> {
        let conn = self.monitor.as_mut()?.conn();
        let uses = self.uses + 1;
        let emptied = tokio::time::timeout(RESET_LIMIT, async {
            monitor::simple(conn, &ddl::EMPTY).await?;
            if uses.is_multiple_of(VACUUM_EVERY) {
                monitor::simple(conn, &ddl::VACUUM).await?;
            }
            Ok::<_, sqlx::Error>(())
        })
        .await;
        match emptied {
            Ok(Ok(())) => Some(Ready {
                name: std::mem::take(&mut self.schema),
                monitor: self.monitor.take()?.into_own(),
                uses,
                actors: std::mem::take(&mut self.spare),
            }),
            Ok(Err(e)) => {
                tracing::warn!(error = %e, schema = %self.schema, "emptying a run's schema failed; dropping it");
                if crate::db::Fault::is_lost(&e) {
                    super::sweep::request(&self.pool);
                }
                None
            }
            Err(_) => {
                tracing::warn!(schema = %self.schema, "emptying a run's schema timed out; dropping it");
                // Half-way through a statement: not fit to drop the schema on.
                if let Some(monitor) = self.monitor.take() {
                    monitor.discard();
                }
                None
            }
        }
    }
}
