//! Run schemas made ahead and used again: each connection pool's shelf of ready schemas.
//!
//! A ready schema is a run schema (the migration's tables and functions) together with a
//! connection of its own, detached from the pool: its monitor. The monitor holds the schema's
//! lock for as long as the schema exists, across all the runs that use it, so the sweep never
//! takes a ready schema for a stale one, and takes it as soon as its process, its connection or
//! the server is gone (a session's locks die with it). It keeps the run's settings and has the
//! schema on its search path, so that a run that takes one only seeds it.
//!
//! A run takes a schema off the shelf, and so has it to itself until it puts it back; a run that
//! finds none makes one of its own (as every run did before), which joins the shelf when the run
//! ends. A run that ends normally empties the tables (and, every `VACUUM_EVERY` runs, vacuums
//! them: the server's autovacuum may be off) and puts the schema back; any other ending drops it.
//! A run that finds the shelf empty has another made in the background, so that the next run
//! need not make its own; a shelf that holds as many schemas as run at once makes none. A ready schema whose monitor is gone (a restart ended its session) is never
//! handed out: the run that finds it so closes it, clears the shelf and makes its own schema.
//!
//! A ready schema also keeps the actors' connections of the runs it served (`Pinned`), set up
//! for it once: the next run sends its first entry at once, with no settings to apply and none
//! to reset afterwards, and PostgreSQL's cached statements stay valid (a connection that moved
//! to another schema's search path re-analyses every statement it prepared). They are detached
//! from the pool, like the monitors, and never go back to it (they are closed instead). The
//! idle schemas keep at most half the pool's size of them between them, and a run that needs
//! connections from the pool closes idle ones first if the pool and they together would be
//! past its size (`make_room`): the connections open stay within what they were before.
//!
//! The shelf belongs to the pool (its connect options, by address, held weakly): pools live in
//! their own runtimes, and so do the connections of their schemas. `shutdown` drops the ready
//! schemas of a pool; a process that ends without it leaves them to the next sweep.

mod schema;

use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection, PgPool};

use self::schema::{drop_now, make};
use super::sweep;

pub(crate) use self::schema::{drop_ready, Pinned, Ready};

/// At most how many ready schemas a pool keeps (in use or idle), below half its connections.
const MOST_READY: u32 = 16;
/// How often a ready schema's tables are vacuumed (every that many runs).
pub(crate) const VACUUM_EVERY: u32 = 64;
/// How long making a ready schema in the background may take.
const MAKE_LIMIT: Duration = Duration::from_secs(20);

#[derive(Default)]
struct Shelf {
    idle: Vec<Ready>,
    /// The schemas counted on this shelf: idle, in a run, or being made.
    owned: u32,
    making: bool,
    /// `shutdown` was called: nothing goes back on the shelf.
    closed: bool,
}

/// Per pool: its connect options (held weakly: the pool is gone when they are), the database
/// they name, and the shelf.
type Shelves = Vec<(Weak<PgConnectOptions>, String, Arc<Mutex<Shelf>>)>;

static SHELVES: Mutex<Shelves> = Mutex::new(Vec::new());

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The shelf of `pool`. Shelves of pools that are gone are let go of here: their schemas'
/// connections close (they may belong to a runtime that is gone too), and the sweep is asked
/// to drop the schemas that were on the same database as `pool`.
fn shelf(pool: &PgPool) -> Arc<Mutex<Shelf>> {
    let options = pool.connect_options();
    let database = sweep::database(&options);
    let mut gone = Vec::new();
    let found = {
        let mut shelves = lock(&SHELVES);
        shelves.retain(|(key, database, shelf)| {
            let alive = key.strong_count() > 0;
            if !alive {
                gone.push((database.clone(), shelf.clone()));
            }
            alive
        });
        match shelves
            .iter()
            .find(|(key, _, _)| std::ptr::eq(key.as_ptr(), Arc::as_ptr(&options)))
        {
            Some((_, _, shelf)) => shelf.clone(),
            None => {
                let shelf = Arc::new(Mutex::new(Shelf::default()));
                shelves.push((Arc::downgrade(&options), database.clone(), shelf.clone()));
                shelf
            }
        }
    };
    // Closed outside the table's lock (dropping a connection closes its socket).
    for (on, shelf) in gone {
        let idle = std::mem::take(&mut lock(&shelf).idle);
        let names: Vec<String> = idle.iter().map(|r| r.name.clone()).collect();
        drop(idle);
        if on == database {
            names.iter().for_each(|name| sweep::owe(pool, name));
        }
    }
    found
}

/// How many ready schemas `pool` may keep.
fn most(pool: &PgPool) -> u32 {
    (pool.options().get_max_connections() / 2).clamp(1, MOST_READY)
}

/// A ready schema of `pool`'s, if one is idle; the run that takes it has it to itself. When
/// there is none (more runs at once than ever before), the run makes its own, and another is
/// made in the background for the next one. Once the shelf holds as many as run at once, no
/// schema is made at all: nothing of the kind competes with the runs' statements.
pub(crate) fn take(pool: &PgPool) -> Option<Ready> {
    let shelf = shelf(pool);
    let taken = lock(&shelf).idle.pop();
    if taken.is_none() {
        stock(pool, &shelf);
    }
    taken
}

/// Puts `ready` back, emptied and fit for the next run. `counted`: it came off this shelf (a
/// schema a run made for itself joins the shelf if there is room). The schema comes back if
/// the shelf will not have it. The idle schemas keep at most half the pool's connections
/// between them (`ready.actors` beyond that are closed), so that the pool always has
/// connections for whatever else uses it.
pub(crate) fn put(pool: &PgPool, mut ready: Ready, counted: bool) -> Result<(), Ready> {
    let shelf = shelf(pool);
    let mut s = lock(&shelf);
    if s.closed || (!counted && s.owned >= most(pool)) {
        if counted {
            s.owned -= 1;
        }
        return Err(ready);
    }
    if !counted {
        s.owned += 1;
    }
    let kept: usize = s.idle.iter().map(|r| r.actors.len()).sum();
    let room = (pool.options().get_max_connections() as usize / 2).saturating_sub(kept);
    let extra = ready.actors.split_off(room.min(ready.actors.len()));
    s.idle.push(ready);
    drop(s);
    // Closed outside the shelf's lock.
    drop(extra);
    Ok(())
}

/// A schema that came off the shelf is gone or given up on (dropped, or left to the sweep).
pub(crate) fn forget(pool: &PgPool) {
    let shelf = shelf(pool);
    let mut s = lock(&shelf);
    s.owned = s.owned.saturating_sub(1);
}

/// Closes idle ready schemas' actors' connections until the pool's own connections, those
/// idle schemas keep and the `n` a run is about to take from the pool are within the pool's
/// size (or none is left to close).
pub(crate) fn make_room(pool: &PgPool, n: usize) {
    let max = pool.options().get_max_connections() as usize;
    let shelf = shelf(pool);
    let closed: Vec<Pinned> = {
        let mut s = lock(&shelf);
        let kept: usize = s.idle.iter().map(|r| r.actors.len()).sum();
        let size = pool.size() as usize;
        let in_use = size.saturating_sub(pool.num_idle());
        let mut over = (size.max(in_use + n) + kept).saturating_sub(max);
        let mut closed = Vec::new();
        for ready in s.idle.iter_mut() {
            while over > 0 {
                let Some(pinned) = ready.actors.pop() else {
                    break;
                };
                closed.push(pinned);
                over -= 1;
            }
        }
        closed
    };
    // Closed outside the shelf's lock.
    drop(closed);
}

/// A ready schema's monitor was found gone, as after a restart: so are the others'. They are
/// closed, not handed out, and left to the sweep (their locks died with their sessions).
pub(crate) fn clear(pool: &PgPool) {
    let shelf = shelf(pool);
    let idle = {
        let mut s = lock(&shelf);
        let idle = std::mem::take(&mut s.idle);
        s.owned = s.owned.saturating_sub(idle.len() as u32);
        idle
    };
    drop(idle);
    sweep::request(pool);
}

/// How long an idle ready schema's connection gets to answer a ping in `check`.
const PING_LIMIT: Duration = Duration::from_secs(1);

/// Pings the idle ready schemas of `pool` (off the shelf meanwhile) and puts back those whose
/// connection answers; the others are closed (their schemas have no owner any more, for the
/// sweep). Whether any was gone. The sweep asks first, so that it finds the schemas of
/// connections that a restart or a crash ended while nothing used them.
pub(crate) async fn check(pool: &PgPool) -> bool {
    let shelf = shelf(pool);
    let idle = std::mem::take(&mut lock(&shelf).idle);
    if idle.is_empty() {
        return false;
    }
    let pinged = futures::future::join_all(idle.into_iter().map(|mut ready| async move {
        let alive = matches!(
            tokio::time::timeout(PING_LIMIT, ready.monitor.ping()).await,
            Ok(Ok(()))
        );
        (ready, alive)
    }))
    .await;
    let mut gone = 0;
    let mut s = lock(&shelf);
    for (ready, alive) in pinged {
        if alive && !s.closed {
            s.idle.push(ready);
        } else {
            gone += u32::from(!alive);
            s.owned = s.owned.saturating_sub(1);
            if alive {
                drop_ready(ready);
            }
        }
    }
    gone > 0
}

/// Makes one schema in the background if none is being made and the shelf has room.
fn stock(pool: &PgPool, shelf: &Arc<Mutex<Shelf>>) {
    {
        let mut s = lock(shelf);
        if s.closed || s.making || s.owned >= most(pool) {
            return;
        }
        s.making = true;
        s.owned += 1;
    }
    let (pool, shelf) = (pool.clone(), shelf.clone());
    tokio::spawn(async move {
        let made = tokio::time::timeout(MAKE_LIMIT, make(&pool)).await;
        let mut s = lock(&shelf);
        s.making = false;
        match made {
            Ok(Ok(ready)) if !s.closed => s.idle.push(ready),
            Ok(Ok(ready)) => {
                s.owned -= 1;
                drop(s);
                drop_ready(ready);
            }
            failed => {
                s.owned -= 1;
                drop(s);
                if let Ok(Err(e)) = failed {
                    tracing::debug!(error = %e, "making a ready run schema failed");
                }
                // A schema half made (or made, then timed out) has no owner any more.
                sweep::request(&pool);
            }
        }
    });
}

/// Drops the ready schemas of `pool` that are idle, and puts nothing back on its shelf from
/// now on: the runs still under way drop theirs when they end. For a server's shutdown.
pub async fn shutdown(pool: &PgPool) {
    let shelf = shelf(pool);
    let idle = {
        let mut s = lock(&shelf);
        s.closed = true;
        let idle = std::mem::take(&mut s.idle);
        s.owned = s.owned.saturating_sub(idle.len() as u32);
        idle
    };
    futures::future::join_all(idle.into_iter().map(drop_now)).await;
}
