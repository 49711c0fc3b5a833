//! A run's resources: its own schema, one connection per actor and the monitor connection;
//! and the clean-up that gives them all back, awaited at the end of a run, or spawned when a
//! run is dropped half-way (a timeout, a panic, a client that went away).
//!
//! Every step of a clean-up is bounded, and a connection that cannot be made clean in time is
//! closed, never handed back to the pool half reset. The monitor connection holds an advisory
//! lock on the schema's name for as long as the schema may exist, so that schemas left behind
//! by a process that died can be told from those of live runs (`sweep`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures::future::join_all;
use futures::stream::{FuturesUnordered, StreamExt};
use shared::schedule::{Schedule, SeatStatus};
use shared::sql;
use sqlx::pool::PoolConnection;
use sqlx::{PgConnection, PgPool, Postgres};
use tokio::sync::mpsc;

use super::actor::{self, ActorConn, Completion};
use super::ddl::{self, Step};
use super::{monitor, ExecError, RUN_SETTINGS, SCHEMA_LOCK_CLASS as LOCK_CLASS};

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
/// How long resetting the monitor may take before it is closed instead.
const RESET_LIMIT: Duration = Duration::from_secs(2);

/// What gives the monitor back as it came: without the run's lock and settings.
const RESET_MONITOR: &str = "select pg_advisory_unlock_all(); reset all";

/// The end of the name of a schema whose monitor holds its lock (see `sweep::sweep`).
pub(crate) const LOCKED: &str = "_lk";

static RUNS: AtomicU64 = AtomicU64::new(0);

/// A fresh schema name, unique across processes and runs: `run_<pid>_<counter>_<nanos>_lk`.
/// It is the only text the executor ever splices into SQL.
fn schema_name() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "run_{}_{}_{nanos}{LOCKED}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    )
}

/// Whether `name` is exactly what `schema_name` makes (so it is safe to splice into SQL).
pub(crate) fn is_locked_schema_name(name: &str) -> bool {
    let Some(middle) = name
        .strip_prefix("run_")
        .and_then(|rest| rest.strip_suffix(LOCKED))
    else {
        return false;
    };
    let parts: Vec<&str> = middle.split('_').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 20 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// The gate through which a run takes its connections from `pool`: one run at a time per pool.
/// A run needs all of its connections at once; runs that each took some while waiting for the
/// rest could otherwise hold a shared pool between them until the pool's acquire timeout. The
/// runs that already have theirs always finish and give them back, so the run at the gate
/// always gets them.
fn gate(pool: &PgPool) -> Arc<tokio::sync::Mutex<()>> {
    type Gates = Vec<(usize, Weak<tokio::sync::Mutex<()>>)>;
    static GATES: std::sync::Mutex<Gates> = std::sync::Mutex::new(Vec::new());
    // The pool's options live as long as the pool (and a run keeps its pool alive).
    let key = std::ptr::from_ref(pool.options()) as usize;
    let mut gates = GATES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    gates.retain(|(_, gate)| gate.strong_count() > 0);
    if let Some(gate) = gates
        .iter()
        .find(|(k, _)| *k == key)
        .and_then(|(_, gate)| gate.upgrade())
    {
        return gate;
    }
    let gate = Arc::new(tokio::sync::Mutex::new(()));
    gates.push((key, Arc::downgrade(&gate)));
    gate
}

/// Closes `conn` instead of handing it back: its state is unknown (a statement may be in
/// flight, settings half applied, the run's lock held). Closing ends its session too.
fn discard(mut conn: PoolConnection<Postgres>) {
    conn.close_on_drop();
}

/// Actor connections not yet owned by their tasks. Their settings may be half applied if the
/// set-up fails or is dropped half-way: then they are closed, never handed back to the pool.
struct Unready(Vec<PoolConnection<Postgres>>);

impl Drop for Unready {
    fn drop(&mut self) {
        self.0.iter_mut().for_each(|c| c.close_on_drop());
    }
}

/// The receiver of a run's answers, one per statement, from all its actors.
pub(crate) type Completions = mpsc::UnboundedReceiver<Completion>;

pub(crate) struct Session {
    pub schema: String,
    monitor: Option<PoolConnection<Postgres>>,
    /// In the order of `Schedule::actors()`.
    pub actors: Vec<ActorConn>,
    pool: PgPool,
    /// The schema may exist: its creation was sent.
    created: bool,
}

impl Session {
    /// Takes the connections, creates and seeds the run's schema, and sets every actor's
    /// connection up for it. Returns the receiver of the actors' answers. A session that fails
    /// half-way cleans up in the background (so that a retry need not wait for it).
    pub async fn open(
        pool: &PgPool,
        schedule: &Schedule,
    ) -> Result<(Session, Completions), ExecError> {
        let schema = schema_name();
        let (completions_tx, completions) = mpsc::unbounded_channel();
        let mut session = Session {
            schema,
            monitor: None,
            actors: Vec::new(),
            pool: pool.clone(),
            created: false,
        };
        // On an error the session is dropped here, which spawns its clean-up.
        session.prepare(schedule, completions_tx).await?;
        Ok((session, completions))
    }

    async fn prepare(
        &mut self,
        schedule: &Schedule,
        completions: mpsc::UnboundedSender<Completion>,
    ) -> Result<(), ExecError> {
        let acquired = {
            let gate = gate(&self.pool);
            let _turn = gate.lock().await;
            join_all((0..=schedule.actors().len()).map(|_| self.pool.acquire())).await
        };
        let mut conns = Unready(Vec::with_capacity(acquired.len()));
        for conn in acquired {
            conns.0.push(conn?);
        }
        self.monitor = Some(conns.0.remove(0));
        let pids = self.build(&mut conns.0).await?;
        for (i, (conn, pid)) in std::mem::take(&mut conns.0)
            .into_iter()
            .zip(pids)
            .enumerate()
        {
            self.actors
                .push(ActorConn::spawn(i, conn, pid, completions.clone()));
        }
        seed(self.monitor(), schedule).await?;
        Ok(())
    }

    /// Creates the schema (its independent tables at once, one per connection) and sets the
    /// actors' connections up for the run; their backend pids.
    async fn build(
        &mut self,
        conns: &mut [PoolConnection<Postgres>],
    ) -> Result<Vec<i32>, sqlx::Error> {
        self.created = true;
        let schema = &self.schema;
        let monitor = self.monitor.as_mut().expect("the monitor was just taken");
        let setup = format!(
            "set search_path to \"{schema}\"; {}; {RUN_SETTINGS}; select pg_backend_pid()",
            sql::SESSION_SETTINGS
        );
        let mut steps = ddl::steps(sql::SCHEMA_DDL).into_iter().peekable();
        // The lock is taken before the schema exists (the statements of one simple query are one
        // transaction: the schema is seen by others only once it is committed, lock held).
        let mut first = format!(
            "{RUN_SETTINGS}; select pg_try_advisory_lock({LOCK_CLASS}, hashtext('{schema}'));\n\
             create schema \"{schema}\"; set search_path to \"{schema}\";\n"
        );
        if let Some(Step::InOrder(text)) = steps.peek() {
            first.push_str(text);
            steps.next();
        }
        // The actors' connections are set up while the schema is being created.
        let (created, pids) = tokio::join!(
            monitor::simple(monitor, &first),
            join_all(conns.iter_mut().map(|c| actor::setup(c, &setup)))
        );
        created?;
        let pids = pids.into_iter().collect::<Result<Vec<i32>, _>>()?;
        for step in steps {
            match step {
                Step::InOrder(text) => {
                    monitor::simple(monitor, &text).await?;
                }
                Step::AtOnce(tables) => {
                    let all: Vec<&mut PgConnection> = std::iter::once(&mut **monitor)
                        .chain(conns.iter_mut().map(|c| &mut **c))
                        .collect();
                    let k = all.len();
                    let parts: Vec<String> = (0..k)
                        .map(|j| {
                            tables
                                .iter()
                                .skip(j)
                                .step_by(k)
                                .map(|t| format!("{t};\n"))
                                .collect()
                        })
                        .collect();
                    let created = join_all(
                        all.into_iter()
                            .zip(&parts)
                            .filter(|(_, part)| !part.is_empty())
                            .map(|(conn, part)| monitor::simple(conn, part)),
                    )
                    .await;
                    for result in created {
                        result?;
                    }
                }
            }
        }
        Ok(pids)
    }

    pub fn monitor(&mut self) -> &mut PgConnection {
        self.monitor
            .as_mut()
            .expect("the monitor is there until the session closes")
    }

    pub fn pids(&self) -> Vec<i32> {
        self.actors.iter().map(|a| a.pid).collect()
    }

    /// Cancels whatever still waits, ends every actor's transaction, resets and returns the
    /// connections, then drops the schema. Never fails: what cannot be cleaned is closed.
    /// Takes at most `CLEANUP_LIMIT + DROP_LIMIT`; what it could not drop by then is left to
    /// the sweep (`sweep::owe`). The clean-up is a task of its own, so that it completes
    /// even if this future is dropped half-way.
    pub async fn close(mut self) {
        let cleanup = tokio::spawn(self.take().run());
        let _ = cleanup.await;
    }

    fn take(&mut self) -> Cleanup {
        Cleanup {
            schema: std::mem::take(&mut self.schema),
            monitor: self.monitor.take(),
            actors: std::mem::take(&mut self.actors),
            pool: self.pool.clone(),
            created: std::mem::take(&mut self.created),
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.schema.is_empty() {
            return;
        }
        let cleanup = self.take();
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => {
                rt.spawn(cleanup.run());
            }
            Err(_) => {
                tracing::error!(schema = %cleanup.schema, "a run was dropped outside the runtime; its schema is left behind")
            }
        }
    }
}

/// Seeds the scenario: its seats, the tickets of seats that start BOOKED, and the clock.
async fn seed(monitor: &mut PgConnection, schedule: &Schedule) -> Result<(), sqlx::Error> {
    let scenario = schedule.scenario();
    for seat in &scenario.seats {
        let hold_id = match seat.status {
            SeatStatus::Available => None,
            SeatStatus::Held | SeatStatus::Booked => seat.holder.as_deref().map(sql::initial_hold),
        };
        sqlx::query(sql::INSERT_SEAT)
            .bind(scenario.show)
            .bind(&seat.id)
            .bind(seat.status.as_sql())
            .bind(&seat.holder)
            .bind(&hold_id)
            .bind(seat.until)
            .execute(&mut *monitor)
            .await?;
        if let (SeatStatus::Booked, Some(holder), Some(booking_id)) =
            (seat.status, &seat.holder, &hold_id)
        {
            sqlx::query(sql::INSERT_BOOKING)
                .bind(booking_id)
                .bind(scenario.show)
                .bind(&seat.id)
                .bind(holder)
                .execute(&mut *monitor)
                .await?;
        }
    }
    sqlx::query(sql::SET_CLOCK)
        .bind(scenario.clock)
        .execute(&mut *monitor)
        .await?;
    Ok(())
}

/// Everything a run must give back.
struct Cleanup {
    schema: String,
    monitor: Option<PoolConnection<Postgres>>,
    actors: Vec<ActorConn>,
    pool: PgPool,
    created: bool,
}

impl Cleanup {
    async fn run(mut self) {
        if tokio::time::timeout(CLEANUP_LIMIT, self.release_actors())
            .await
            .is_err()
        {
            tracing::warn!(schema = %self.schema, "actor connections did not come back in time; closing them");
            // Their tasks close their connections at once instead of handing them back.
            self.actors.iter_mut().for_each(ActorConn::kill);
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
            discard(monitor);
        }
        if !dropped {
            super::sweep::owe(&self.pool, &self.schema);
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
                let rx = a.finish();
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
                    tokio::time::timeout(CANCEL_LIMIT, monitor::cancel(monitor, &busy)).await;
                if !matches!(cancelled, Ok(Ok(_))) {
                    tracing::warn!(schema = %self.schema, "cancelling a run's waiting statements failed; giving the monitor up");
                    if let Some(monitor) = self.monitor.take() {
                        discard(monitor);
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
    /// stuck), then resets the monitor and gives it back. Whether the schema is gone.
    async fn drop_schema(&mut self) -> bool {
        if !self.created {
            // Nothing was sent on the monitor: it goes back as it came.
            self.monitor.take();
            return true;
        }
        let sql = format!("drop schema if exists \"{}\" cascade", self.schema);
        if let Some(monitor) = self.monitor.as_mut() {
            match tokio::time::timeout(MONITOR_DROP_LIMIT, monitor::simple(monitor, &sql)).await {
                Ok(Ok(_)) => {
                    let reset =
                        tokio::time::timeout(RESET_LIMIT, monitor::simple(monitor, RESET_MONITOR))
                            .await;
                    if matches!(reset, Ok(Ok(_))) {
                        // Clean: back to the pool (otherwise `run` closes it).
                        self.monitor.take();
                    }
                    return true;
                }
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, schema = %self.schema, "dropping a run's schema; retrying")
                }
                Err(_) => {
                    tracing::warn!(schema = %self.schema, "dropping a run's schema timed out on the monitor; retrying")
                }
            }
            // Closing the monitor also ends its session, and so releases the run's lock.
            if let Some(monitor) = self.monitor.take() {
                discard(monitor);
            }
        }
        // Settings local to the query's own transaction: nothing stays on the connection.
        let quiet = format!("select set_config('client_min_messages', 'warning', true); {sql}");
        let retry = async {
            let mut conn = self.pool.acquire().await?;
            let dropped = monitor::simple(&mut conn, &quiet).await;
            if dropped.is_err() {
                discard(conn);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_names_this_executor_makes_are_taken_for_locked_schemas() {
        assert!(is_locked_schema_name(&schema_name()));
        assert!(is_locked_schema_name("run_1_2_3_lk"));
        for name in [
            "run_1_2_3",
            "run_1_2_lk",
            "run_1_2_3_4_lk",
            "run_1_2_x_lk",
            "run_1__3_lk",
            "run_1_2_3\"; drop table t; --_lk",
            "public",
        ] {
            assert!(!is_locked_schema_name(name), "{name}");
        }
    }
}
