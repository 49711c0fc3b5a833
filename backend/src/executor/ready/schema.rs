//! One ready schema: its name, the connection of its own that holds its lock, and the actors'
//! connections set up for it (`Pinned`); made on a connection of the pool's, which it keeps,
//! and dropped on that connection.

use std::time::Duration;

use sqlx::{Connection, PgConnection, PgPool};

use super::super::{monitor, naming};

/// How long dropping a ready schema at shutdown may take.
const DROP_LIMIT: Duration = Duration::from_secs(5);

/// A ready schema off the shelf.
pub(crate) struct Ready {
    pub name: String,
    /// Its own connection, with its lock held and its search path set.
    pub monitor: PgConnection,
    /// The runs it has served.
    pub uses: u32,
    /// Actors' connections set up for it, idle and outside any transaction.
    pub actors: Vec<Pinned>,
}

/// How long closing a ready schema's actor's connection may take.
const CLOSE_LIMIT: Duration = Duration::from_secs(5);

/// An actor's connection set up for one ready schema (its search path and the run's
/// settings), outside the pool, and its backend pid. Dropped, it is closed (in the background).
pub(crate) struct Pinned {
    conn: Option<PgConnection>,
    pub pid: i32,
}

impl Pinned {
    pub fn new(conn: PgConnection, pid: i32) -> Pinned {
        Pinned {
            conn: Some(conn),
            pid,
        }
    }

    pub fn into_conn(mut self) -> PgConnection {
        self.conn
            .take()
            .expect("a pinned connection until it is taken")
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        if let (Some(conn), Ok(rt)) = (self.conn.take(), tokio::runtime::Handle::try_current()) {
            rt.spawn(async move {
                let _ = tokio::time::timeout(CLOSE_LIMIT, conn.close()).await;
            });
        }
    }
}

/// Makes a ready schema on a connection of `pool`'s, which it then keeps: the whole migration in
/// one simple query, hence one transaction (the schema exists whole or not at all).
pub(super) async fn make(pool: &PgPool) -> Result<Ready, sqlx::Error> {
    let mut conn = pool.acquire().await?;
    // If this is dropped half-way, the connection is closed, not handed back with the lock.
    conn.close_on_drop();
    let name = naming::schema_name();
    monitor::simple(
        &mut conn,
        &naming::create_sql(&name, shared::sql::SCHEMA_DDL),
    )
    .await?;
    Ok(Ready {
        name,
        monitor: conn.detach(),
        uses: 0,
        actors: Vec::new(),
    })
}

/// Drops `ready`'s schema on its own connection and closes it, in the background; what cannot
/// be dropped in time is the sweep's (its lock dies with the connection).
pub(crate) fn drop_ready(ready: Ready) {
    if let Ok(rt) = tokio::runtime::Handle::try_current() {
        rt.spawn(drop_now(ready));
    }
}

pub(super) async fn drop_now(mut ready: Ready) {
    let sql = format!("drop schema if exists \"{}\" cascade", ready.name);
    let dropped = tokio::time::timeout(DROP_LIMIT, monitor::simple(&mut ready.monitor, &sql)).await;
    if matches!(dropped, Ok(Ok(_))) {
        let _ = tokio::time::timeout(DROP_LIMIT, ready.monitor.close()).await;
    }
}
