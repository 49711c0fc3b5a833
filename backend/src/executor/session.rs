//! A run's resources: its own schema, one connection per actor and the monitor connection;
//! and the clean-up that gives them all back, awaited at the end of a run, or spawned when a
//! run is dropped half-way (a timeout, a panic, a client that went away).

use std::sync::atomic::{AtomicU64, Ordering};
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
use super::{monitor, ExecError, RUN_SETTINGS};

/// How long a clean-up waits for the actors' connections before giving up on them (a statement
/// that ignores cancellation still ends at `statement_timeout`).
const CLEANUP_LIMIT: Duration = Duration::from_secs(25);
/// How long dropping a run's schema may take.
const DROP_LIMIT: Duration = Duration::from_secs(20);
/// How often a clean-up cancels again what still runs.
const CANCEL_EVERY: Duration = Duration::from_millis(50);

static RUNS: AtomicU64 = AtomicU64::new(0);

/// A fresh schema name, unique across processes and runs: `run_<pid>_<counter>_<nanos>`. It is
/// the only text the executor ever splices into SQL.
fn schema_name() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "run_{}_{}_{nanos}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    )
}

/// Actor connections not yet owned by their tasks. Their settings may be half applied if the
/// set-up fails or is dropped half-way: then they are closed, never handed back to the pool.
struct Unready(Vec<PoolConnection<Postgres>>);

impl Drop for Unready {
    fn drop(&mut self) {
        self.0.iter_mut().for_each(|c| c.close_on_drop());
    }
}

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
    /// connection up for it. Returns the receiver of the actors' answers.
    pub async fn open(
        pool: &PgPool,
        schedule: &Schedule,
    ) -> Result<(Session, mpsc::UnboundedReceiver<Completion>), ExecError> {
        let schema = schema_name();
        let (completions_tx, completions) = mpsc::unbounded_channel();
        let mut session = Session {
            schema,
            monitor: None,
            actors: Vec::new(),
            pool: pool.clone(),
            created: false,
        };
        match session.prepare(schedule, completions_tx).await {
            Ok(()) => Ok((session, completions)),
            Err(e) => {
                session.close().await;
                Err(e)
            }
        }
    }

    async fn prepare(
        &mut self,
        schedule: &Schedule,
        completions: mpsc::UnboundedSender<Completion>,
    ) -> Result<(), ExecError> {
        let acquired = join_all((0..=schedule.actors().len()).map(|_| self.pool.acquire())).await;
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
        let mut first = format!(
            "{RUN_SETTINGS}; create schema \"{schema}\"; set search_path to \"{schema}\";\n"
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
    pub async fn close(mut self) {
        let cleanup = self.take();
        cleanup.run().await;
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
            tracing::warn!(schema = %self.schema, "actor connections did not come back in time");
        }
        if tokio::time::timeout(DROP_LIMIT, self.drop_schema())
            .await
            .is_err()
        {
            tracing::error!(schema = %self.schema, "dropping a run's schema did not finish in time");
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
                if let Err(e) = monitor::cancel(monitor, &busy).await {
                    tracing::warn!(error = %e, "cancelling a run's waiting statements");
                    self.monitor = None;
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

    /// Drops the schema on the monitor (or on a fresh connection if the monitor broke), then
    /// resets the monitor and gives it back.
    async fn drop_schema(&mut self) {
        if !self.created {
            return;
        }
        let sql = format!("drop schema if exists \"{}\" cascade", self.schema);
        if let Some(mut monitor) = self.monitor.take() {
            let dropped = monitor::simple(&mut monitor, &sql).await;
            let reset = monitor::simple(&mut monitor, "reset all").await;
            if reset.is_err() {
                monitor.close_on_drop();
            }
            match dropped {
                Ok(_) => return,
                Err(e) => {
                    tracing::warn!(error = %e, schema = %self.schema, "dropping a run's schema; retrying")
                }
            }
        }
        let retry = async {
            let mut conn = self.pool.acquire().await?;
            monitor::simple(&mut conn, "set client_min_messages = warning").await?;
            let dropped = monitor::simple(&mut conn, &sql).await;
            monitor::simple(&mut conn, "reset all").await?;
            dropped
        };
        if let Err(e) = retry.await {
            tracing::error!(error = %e, schema = %self.schema, "a run's schema could not be dropped");
        }
    }
}
