//! The clean-up of a run: what it gives back, and how. After a run that ended normally the
//! schema is emptied and put back on the shelf with its actors' connections, as they are set up
//! for it, outside any transaction; after any other ending every actor's connection goes back
//! to the pool outside any transaction and with its settings reset (or is closed), and the
//! schema is dropped.
//!
//! Every step is bounded, and a connection that cannot be made clean in time is closed, never
//! handed back half reset; a schema that cannot be dropped in time is left to the sweep.

use std::time::Duration;

use futures::stream::{FuturesUnordered, StreamExt};
use sqlx::{Connection, PgPool};

use super::actor::ActorConn;
use super::conns::Monitor;
use super::ready::{self, Pinned, Ready, VACUUM_EVERY};
use super::{ddl, monitor, phases};

/// How long a clean-up waits for the actors' connections before giving up on them and closing
/// them (a statement that ignores cancellation still ends at `statement_timeout`).
const CLEANUP_LIMIT: Duration = Duration::from_secs(25);
/// How long dropping a run's schema may take.
const DROP_LIMIT: Duration = Duration::from_secs(20);
/// How often a clean-up cancels again what still runs.
const CANCEL_EVERY: Duration = Duration::from_millis(50);
/// How long one round of cancelling may take on the monitor before the monitor is given up.
const CANCEL_LIMIT: Duration = Duration::from_secs(2);
/// How long the monitor gets to drop the schema before a fresh connection tries instead.
const MONITOR_DROP_LIMIT: Duration = Duration::from_secs(10);
/// How long resetting the monitor, or emptying a schema for the next run, may take before the
/// monitor is closed (and the schema dropped) instead.
const RESET_LIMIT: Duration = Duration::from_secs(2);

/// What gives the monitor back as it came: without the run's lock and settings.
const RESET_MONITOR: &str = "select pg_advisory_unlock_all(); reset all";

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
            // Nothing runs any more: the actors give their connections back while the schema
            // is emptied (a row that an actor's open transaction still locks is deleted as soon
            // as its rollback frees it).
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
            if let Some(mut ready) = ready {
                let released = pinned.is_ok();
                let back = match pinned {
                    Ok(pinned) => {
                        ready.actors.extend(pinned);
                        ready::put(&self.pool, ready, self.shelved)
                    }
                    Err(_) => Err(ready),
                };
                match back {
                    Ok(()) => {
                        phases::closed(Duration::ZERO, started.elapsed());
                        return;
                    }
                    Err(ready) => {
                        if self.shelved && released {
                            // `put` already counted it off the shelf.
                            self.shelved = false;
                        }
                        self.schema = ready.name;
                        self.monitor = Some(Monitor::Own(ready.monitor));
                    }
                }
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

    /// Cancels what still runs (again every `CANCEL_EVERY`, in case a cancel arrived before its
    /// statement did) until every actor's task has cleaned its connection and given it back.
    async fn release_actors(&mut self) {
        let mut alive = vec![true; self.actors.len()];
        let mut ended: FuturesUnordered<_> = self
            .actors
            .iter_mut()
            .enumerate()
            .map(|(i, a)| {
                let rx = a.finish(false);
                async move {
                    if let Some(rx) = rx {
                        let _ = rx.await;
                    }
                    i
                }
            })
            .collect();
        loop {
            // Only live tasks: a returned connection's pid may already serve another run.
            let busy: Vec<i32> = self
                .actors
                .iter()
                .zip(&alive)
                .filter(|(a, alive)| **alive && a.is_busy())
                .map(|(a, _)| a.pid)
                .collect();
            if let (false, Some(monitor)) = (busy.is_empty(), self.monitor.as_mut()) {
                let cancelled =
                    tokio::time::timeout(CANCEL_LIMIT, monitor::cancel(monitor.conn(), &busy))
                        .await;
                if !matches!(cancelled, Ok(Ok(_))) {
                    tracing::warn!(schema = %self.schema, "cancelling a run's waiting statements failed; giving the monitor up");
                    if let Some(monitor) = self.monitor.take() {
                        monitor.discard();
                    }
                }
            }
            let again = tokio::time::sleep(CANCEL_EVERY);
            tokio::pin!(again);
            loop {
                tokio::select! {
                    next = ended.next() => match next {
                        Some(i) => alive[i] = false,
                        None => return,
                    },
                    _ = &mut again => break,
                }
            }
        }
    }

    /// Drops the schema on the monitor (or on a fresh connection if the monitor broke or is
    /// stuck), then resets the monitor and gives it back (a ready schema's own is closed).
    /// Whether the schema is gone.
    async fn drop_schema(&mut self) -> bool {
        if !self.created {
            // Nothing was sent on the monitor: it goes back as it came.
            self.monitor.take();
            return true;
        }
        let sql = format!("drop schema if exists \"{}\" cascade", self.schema);
        if let Some(monitor) = self.monitor.as_mut() {
            let conn = monitor.conn();
            match tokio::time::timeout(MONITOR_DROP_LIMIT, monitor::simple(conn, &sql)).await {
                Ok(Ok(_)) => {
                    match self.monitor.take() {
                        Some(Monitor::Pool(mut conn)) => {
                            let reset = tokio::time::timeout(
                                RESET_LIMIT,
                                monitor::simple(&mut conn, RESET_MONITOR),
                            )
                            .await;
                            if !matches!(reset, Ok(Ok(_))) {
                                conn.close_on_drop();
                            }
                            // Clean: back to the pool (otherwise closed).
                        }
                        Some(Monitor::Own(conn)) => {
                            let _ = tokio::time::timeout(RESET_LIMIT, conn.close()).await;
                        }
                        None => {}
                    }
                    return true;
                }
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, schema = %self.schema, "dropping a run's schema; retrying");
                    if crate::db::Fault::is_lost(&e) {
                        // A restart or a crash: the ready schemas' connections may be gone too.
                        super::sweep::request(&self.pool);
                    }
                }
                Err(_) => {
                    tracing::warn!(schema = %self.schema, "dropping a run's schema timed out on the monitor; retrying")
                }
            }
            // Closing the monitor also ends its session, and so releases the run's lock.
            if let Some(monitor) = self.monitor.take() {
                monitor.discard();
            }
        }
        // Settings local to the query's own transaction: nothing stays on the connection.
        let quiet = format!("select set_config('client_min_messages', 'warning', true); {sql}");
        let retry = async {
            let mut conn = self.pool.acquire().await?;
            let dropped = monitor::simple(&mut conn, &quiet).await;
            if dropped.is_err() {
                conn.close_on_drop();
            }
            dropped
        };
        match retry.await {
            Ok(_) => true,
            Err(e) => {
                // Its lock dies with the monitor's session: the sweep will find it stale.
                tracing::warn!(error = %e, schema = %self.schema, "a run's schema could not be dropped; it is left to the sweep");
                false
            }
        }
    }
}
