//! One actor's connection, owned by a task of its own: the executor hands it a statement and
//! goes on at once, so that a statement blocked on a lock stays pending while the schedule
//! continues. Answers come back on a channel shared by all actors of the run.
//!
//! The task always ends: it gives its connection back when asked to finish (within
//! `RELEASE_LIMIT`), and closes it at once when killed (or when its `ActorConn` is dropped),
//! whatever it is waiting for, so that no connection stays out of the pool for good.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use shared::sql::Statement;
use sqlx::pool::PoolConnection;
use sqlx::{Connection, PgConnection, Postgres};
use tokio::sync::{mpsc, oneshot};

use super::statement::{run, Fetch, Raw};

/// How a statement changes whether the connection is inside a transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TxEffect {
    Begins,
    Ends,
    Keeps,
}

/// How long rolling back and resetting a connection may take before it is closed instead.
const RELEASE_LIMIT: Duration = Duration::from_secs(5);

/// An answer, tagged with whose statement it was.
#[derive(Debug)]
pub(crate) struct Completion {
    pub actor: usize,
    pub answer: Result<Raw, sqlx::Error>,
}

enum Cmd {
    Run {
        statement: Statement,
        fetch: Fetch,
        tx: TxEffect,
    },
    /// End the transaction and give the connection back: to the run, for its schema to keep
    /// (`keep`), or to the pool with its settings reset.
    Finish { keep: bool },
}

/// What a task gives back when it ends: the connection, when the run keeps it for its schema.
pub(crate) type Returned = Option<PgConnection>;

/// An actor's connection: one of the pool's, set up for the run, or one that a ready schema
/// keeps set up for itself (`ready::Pinned`), outside the pool.
pub(crate) enum Conn {
    Pool(PoolConnection<Postgres>),
    Own(PgConnection),
}

impl Conn {
    fn get(&mut self) -> &mut PgConnection {
        match self {
            Conn::Pool(c) => c,
            Conn::Own(c) => c,
        }
    }

    /// Closes it when dropped instead of handing it back to the pool.
    fn close_on_drop(&mut self) {
        if let Conn::Pool(c) = self {
            c.close_on_drop();
        }
    }

    fn into_own(self) -> PgConnection {
        match self {
            Conn::Pool(c) => c.detach(),
            Conn::Own(c) => c,
        }
    }
}

/// The executor's side of an actor's connection.
pub(crate) struct ActorConn {
    /// The backend pid of the connection, for blocking checks and cancellation.
    pub pid: i32,
    cmds: mpsc::UnboundedSender<Cmd>,
    /// A statement has been handed to the server and has not answered yet.
    busy: Arc<AtomicBool>,
    /// Fires once the task has cleaned the connection up and given it back (or closed it).
    ended: Option<oneshot::Receiver<Returned>>,
    /// Taken (dropped) to kill the task: it then closes its connection instead of giving it
    /// back, even in the middle of a statement. Dropping the `ActorConn` does the same.
    kill: Option<oneshot::Sender<()>>,
}

impl ActorConn {
    /// Starts the task that owns `conn` (set up for the run, its backend pid `pid`) from now on.
    pub fn spawn(
        actor: usize,
        conn: Conn,
        pid: i32,
        completions: mpsc::UnboundedSender<Completion>,
    ) -> ActorConn {
        let (tx, rx) = mpsc::unbounded_channel();
        let busy = Arc::new(AtomicBool::new(false));
        let (ended_tx, ended_rx) = oneshot::channel();
        let (kill_tx, kill_rx) = oneshot::channel();
        let task = Task {
            actor,
            conn,
            in_tx: false,
            busy: busy.clone(),
            completions,
        };
        tokio::spawn(task.serve(rx, ended_tx, kill_rx));
        ActorConn {
            pid,
            cmds: tx,
            busy,
            ended: Some(ended_rx),
            kill: Some(kill_tx),
        }
    }

    /// Sends a statement; its answer arrives as a `Completion`.
    pub fn send(&self, statement: Statement, fetch: Fetch, tx: TxEffect) -> bool {
        // Set here, not in the task, so that a clean-up racing with the hand-over still cancels it.
        self.busy.store(true, Ordering::SeqCst);
        let sent = self
            .cmds
            .send(Cmd::Run {
                statement,
                fetch,
                tx,
            })
            .is_ok();
        if !sent {
            self.busy.store(false, Ordering::SeqCst);
        }
        sent
    }

    pub fn is_busy(&self) -> bool {
        self.busy.load(Ordering::SeqCst)
    }

    /// Asks the task to end the connection's transaction (after the statement it is running,
    /// if any, has answered) and give it back: with `keep`, to the run, set up as it is for
    /// the schema that keeps it; otherwise to the pool, its settings reset. The receiver fires
    /// once that is done (or the task is gone), with the connection if it was kept.
    pub fn finish(&mut self, keep: bool) -> Option<oneshot::Receiver<Returned>> {
        let _ = self.cmds.send(Cmd::Finish { keep });
        self.ended.take()
    }

    /// Makes the task close its connection now instead of giving it back, whatever it waits
    /// for (a statement that ignores cancellation, a connection that no longer answers).
    pub fn kill(&mut self) {
        self.kill.take();
    }
}

struct Task {
    actor: usize,
    conn: Conn,
    /// Inside `begin` … `commit`/`rollback` (a failed transaction counts: it needs a rollback).
    in_tx: bool,
    busy: Arc<AtomicBool>,
    completions: mpsc::UnboundedSender<Completion>,
}

impl Task {
    async fn serve(
        mut self,
        mut cmds: mpsc::UnboundedReceiver<Cmd>,
        ended: oneshot::Sender<Returned>,
        mut kill: oneshot::Receiver<()>,
    ) {
        // How the task ends: killed (`kill` resolved: it must not be polled again), or asked to
        // finish, keeping the connection for the run's schema or not.
        let end = loop {
            let cmd = tokio::select! {
                biased;
                cmd = cmds.recv() => cmd,
                _ = &mut kill => break None,
            };
            let (statement, fetch, tx) = match cmd {
                Some(Cmd::Run {
                    statement,
                    fetch,
                    tx,
                }) => (statement, fetch, tx),
                Some(Cmd::Finish { keep }) => break Some(keep),
                // The executor went away without asking (its side was dropped).
                None => break Some(false),
            };
            let answer = tokio::select! {
                biased;
                _ = &mut kill => break None,
                answer = self.answer(&statement, fetch) => answer,
            };
            self.busy.store(false, Ordering::SeqCst);
            match (tx, &answer) {
                (TxEffect::Begins, Ok(_)) => self.in_tx = true,
                (TxEffect::Ends, _) => self.in_tx = false,
                _ => {}
            }
            let _ = self.completions.send(Completion {
                actor: self.actor,
                answer,
            });
        };
        let returned = match end {
            None => {
                tracing::warn!("an actor connection was given up on; closing it");
                self.conn.close_on_drop();
                None
            }
            Some(keep) => self.release(kill, keep).await,
        };
        let _ = ended.send(returned);
    }

    /// Runs `statement`; after an error, also waits until the server is ready again.
    async fn answer(&mut self, statement: &Statement, fetch: Fetch) -> Result<Raw, sqlx::Error> {
        let answer = run(self.conn.get(), statement, fetch).await;
        if let Err(sqlx::Error::Database(_)) = &answer {
            // PostgreSQL sends an error before it aborts the transaction and releases its
            // locks, and its next ReadyForQuery after: wait for that, so that whoever waited
            // on those locks is free once the answer is in.
            let _ = self.conn.get().ping().await;
        }
        answer
    }

    /// Rolls back and gives the connection back: to the run as it is (`keep`), or to the pool
    /// with its session reset (one that is not the pool's is closed). A connection that will
    /// not come clean within `RELEASE_LIMIT` (or before the task is killed) is closed instead.
    async fn release(mut self, kill: oneshot::Receiver<()>, keep: bool) -> Returned {
        let sql = match (keep, self.in_tx, &self.conn) {
            (true, false, _) => return Some(self.conn.into_own()),
            (true, true, _) => "rollback",
            (false, _, Conn::Own(_)) => return None,
            (false, true, Conn::Pool(_)) => "rollback; reset all",
            (false, false, Conn::Pool(_)) => "reset all",
        };
        let clean = async {
            for _ in 0..2 {
                match super::monitor::simple(self.conn.get(), sql).await {
                    Ok(_) => return true,
                    // A cancel meant for the last statement can land on this one: try once more.
                    Err(e) => tracing::debug!(error = %e, "resetting an actor connection"),
                }
            }
            false
        };
        let clean = tokio::select! {
            biased;
            _ = kill => false,
            clean = tokio::time::timeout(RELEASE_LIMIT, clean) => clean.unwrap_or(false),
        };
        if !clean {
            tracing::warn!("an actor connection would not reset; closing it");
            self.conn.close_on_drop();
            return None;
        }
        keep.then(|| self.conn.into_own())
    }
}
