//! A run's schema dropped: on its monitor, which is then reset and given back (a ready
//! schema's own is closed), or on a fresh connection of the pool's if the monitor broke or is
//! stuck; a schema that cannot be dropped is left to the sweep.

use std::time::Duration;

use sqlx::Connection;

use super::super::conns::Monitor;
use super::super::monitor;
use super::{Cleanup, RESET_LIMIT};

/// How long the monitor gets to drop the schema before a fresh connection tries instead.
const MONITOR_DROP_LIMIT: Duration = Duration::from_secs(10);

/// What gives the monitor back as it came: without the run's lock and settings.
const RESET_MONITOR: &str = "select pg_advisory_unlock_all(); reset all";

impl Cleanup {
    /// Drops the schema on the monitor (or on a fresh connection if the monitor broke or is
    /// stuck), then resets the monitor and gives it back (a ready schema's own is closed).
    /// Whether the schema is gone.
    pub(super) async fn drop_schema(&mut self) -> bool {
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
                        super::super::sweep::request(&self.pool);
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
