//! A run's resources: its own schema (a ready one off the shelf, or one made for the run), one
//! connection per actor and the monitor connection; the clean-up (`cleanup`) gives them all
//! back, awaited at the end of a run, or spawned when a run is dropped half-way (a timeout, a
//! panic, a client that went away).
//!
//! The monitor connection holds an advisory lock on the schema's name for as long as the schema
//! may exist, so that schemas left behind by a process that died can be told from those of
//! live runs (`sweep`); a ready schema's monitor is its own, and holds it across runs (`ready`).
//! The schema's name is `naming`'s, its creation `build`'s, the connections' bookkeeping
//! `conns`'s, the scenario's seed `seed`'s.

use futures::future::join_all;
use shared::outcome::Tables;
use shared::schedule::Schedule;
use sqlx::pool::PoolConnection;
use sqlx::{PgConnection, PgPool, Postgres};
use tokio::sync::mpsc;

use super::actor::{ActorConn, Completion, Conn};
use super::build;
use super::cleanup::Cleanup;
use super::conns::{acquire, Monitor, Taken, Unready};
use super::naming::schema_name;
use super::ready::{self, Pinned, Ready};
use super::seed::seed;
use super::statement;
use super::{monitor, sweep, ExecError};
use crate::db::Fault;

/// The receiver of a run's answers, one per statement, from all its actors.
pub(crate) type Completions = mpsc::UnboundedReceiver<Completion>;

pub(crate) struct Session {
    pub schema: String,
    pub(super) monitor: Option<Monitor>,
    /// In the order of `Schedule::actors()`.
    pub actors: Vec<ActorConn>,
    /// A ready schema's connections that the run does not need (it has fewer actors).
    pub(super) spare: Vec<Pinned>,
    pub(super) pool: PgPool,
    /// The schema may exist: its creation was sent (or it is a ready one).
    pub(super) created: bool,
    /// The schema came off the pool's shelf (it counts there until put back or given up).
    pub(super) shelved: bool,
    /// The runs the schema served before this one.
    pub(super) uses: u32,
    /// The tables as seeded, when they were read during the set-up (on a ready schema, while
    /// the actors' connections were being set up).
    pub(super) initial: Option<Tables>,
}

impl Session {
    /// Takes the connections and a schema (a ready one, or one made now), seeds it, and sets
    /// every actor's connection up for it. Returns the receiver of the actors' answers. A
    /// session that fails half-way cleans up in the background (so that a retry need not wait).
    pub async fn open(
        pool: &PgPool,
        schedule: &Schedule,
    ) -> Result<(Session, Completions), ExecError> {
        let (completions_tx, completions) = mpsc::unbounded_channel();
        let mut session = Session {
            schema: String::new(),
            monitor: None,
            actors: Vec::new(),
            spare: Vec::new(),
            pool: pool.clone(),
            created: false,
            shelved: false,
            uses: 0,
            initial: None,
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
        let n = schedule.actors().len();
        let mut taken = Taken {
            pool: self.pool.clone(),
            ready: if build::fresh_only(schedule) {
                None
            } else {
                ready::take(&self.pool)
            },
        };
        // A ready schema's own actors' connections first; the pool's for the rest.
        let mut pinned = match taken.ready.as_mut() {
            Some(ready) => {
                let keep = ready.actors.len().saturating_sub(n);
                ready.actors.split_off(keep)
            }
            None => Vec::new(),
        };
        let wanted = n - pinned.len() + usize::from(taken.ready.is_none());
        let acquired = acquire(&self.pool, wanted).await;
        let mut conns = Unready(Vec::with_capacity(acquired.len()));
        for conn in acquired {
            conns.0.push(conn?);
        }
        let pids = match taken.ready.take() {
            Some(ready) => match self.use_ready(ready, &mut conns.0, schedule).await? {
                Some(pids) => pinned.iter().map(|p| p.pid).chain(pids).collect(),
                None => {
                    // Set up for a schema that turned out unfit: closed, and others taken.
                    let more = acquire(&self.pool, pinned.len()).await;
                    pinned.clear();
                    for conn in more {
                        conns.0.push(conn?);
                    }
                    self.make_own(&mut conns.0, schedule).await?
                }
            },
            None => {
                let monitor = conns.0.remove(0);
                self.start_own(Monitor::Pool(monitor));
                let pids = self.build(&mut conns.0).await?;
                seed(self.monitor(), schedule).await?;
                pids
            }
        };
        let all = pinned
            .into_iter()
            .map(|p| Conn::Own(p.into_conn()))
            .chain(std::mem::take(&mut conns.0).into_iter().map(Conn::Pool));
        for (i, (conn, pid)) in all.zip(pids).enumerate() {
            self.actors
                .push(ActorConn::spawn(i, conn, pid, completions.clone()));
        }
        Ok(())
    }

    fn start_own(&mut self, monitor: Monitor) {
        self.schema = schema_name();
        self.monitor = Some(monitor);
        self.shelved = false;
        self.uses = 0;
    }

    /// Seeds `ready` while the actors' connections that it did not keep are set up for it;
    /// their pids, or `None` if the ready schema turned out unfit (its monitor gone, as after
    /// a restart), after which the run makes its own.
    async fn use_ready(
        &mut self,
        mut ready: Ready,
        conns: &mut [PoolConnection<Postgres>],
        schedule: &Schedule,
    ) -> Result<Option<Vec<i32>>, ExecError> {
        self.schema = ready.name;
        self.monitor = Some(Monitor::Own(ready.monitor));
        self.created = true;
        self.shelved = true;
        self.uses = ready.uses;
        self.spare = std::mem::take(&mut ready.actors);
        let setup = build::actor_setup(&self.schema);
        let monitor = self.monitor.as_mut().expect("just set").conn();
        let show = schedule.scenario().show;
        let (seeded, pids) = tokio::join!(
            async {
                seed(&mut *monitor, schedule).await?;
                Ok::<_, sqlx::Error>(
                    monitor::snapshot(&mut *monitor, show)
                        .await
                        .map(|t| monitor::complete(schedule, t)),
                )
            },
            join_all(conns.iter_mut().map(|c| statement::setup(c, &setup)))
        );
        let pids = pids.into_iter().collect::<Result<Vec<i32>, _>>();
        match seeded {
            Ok(initial) => {
                self.initial = Some(initial?);
                Ok(Some(pids?))
            }
            Err(e) => {
                tracing::info!(error = %e, schema = %self.schema, "a ready run schema was unfit; the run makes its own");
                if Fault::is_lost(&e) {
                    ready::clear(&self.pool);
                }
                if let Some(monitor) = self.monitor.take() {
                    monitor.discard();
                }
                self.spare.clear();
                ready::forget(&self.pool);
                sweep::request(&self.pool);
                self.created = false;
                self.shelved = false;
                // Actors' connections lost too: the run is tried again on fresh ones.
                pids?;
                Ok(None)
            }
        }
    }

    /// Makes the run's own schema on a monitor of the pool's, after a ready one turned unfit.
    async fn make_own(
        &mut self,
        conns: &mut [PoolConnection<Postgres>],
        schedule: &Schedule,
    ) -> Result<Vec<i32>, ExecError> {
        let monitor = acquire(&self.pool, 1)
            .await
            .pop()
            .expect("one connection asked for")?;
        self.start_own(Monitor::Pool(monitor));
        let pids = self.build(conns).await?;
        seed(self.monitor(), schedule).await?;
        Ok(pids)
    }

    /// Creates the schema and sets the actors' connections up for the run (`build`); their
    /// backend pids.
    async fn build(
        &mut self,
        conns: &mut [PoolConnection<Postgres>],
    ) -> Result<Vec<i32>, sqlx::Error> {
        self.created = true;
        let monitor = self
            .monitor
            .as_mut()
            .expect("the monitor was just taken")
            .conn();
        build::build(monitor, &self.schema, conns).await
    }

    pub fn monitor(&mut self) -> &mut PgConnection {
        self.monitor
            .as_mut()
            .expect("the monitor is there until the session closes")
            .conn()
    }

    /// The monitor and the actors' connections, borrowed apart: the run asks the one while it
    /// sends on the others.
    pub fn parts(&mut self) -> (&mut PgConnection, &[ActorConn]) {
        let monitor = self
            .monitor
            .as_mut()
            .expect("the monitor is there until the session closes")
            .conn();
        (monitor, &self.actors)
    }

    /// Cancels whatever still waits, ends every actor's transaction, resets and returns the
    /// connections; then empties the schema and puts it back on the shelf if `keep` (the run
    /// ended normally), or drops it. Never fails: what cannot be cleaned is closed, what cannot
    /// be dropped is left to the sweep. The clean-up is a task of its own, so that it completes
    /// even if this future is dropped half-way.
    pub async fn close(mut self, keep: bool) {
        let cleanup = tokio::spawn(self.take(keep).run());
        let _ = cleanup.await;
    }

    fn take(&mut self, keep: bool) -> Cleanup {
        Cleanup {
            schema: std::mem::take(&mut self.schema),
            monitor: self.monitor.take(),
            actors: std::mem::take(&mut self.actors),
            spare: std::mem::take(&mut self.spare),
            pool: self.pool.clone(),
            created: std::mem::take(&mut self.created),
            shelved: std::mem::take(&mut self.shelved),
            uses: self.uses,
            keep,
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.schema.is_empty() {
            return;
        }
        let cleanup = self.take(false);
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
