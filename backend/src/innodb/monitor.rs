//! The monitor connection: the committed tables after each entry, and who is blocked by whom.
//!
//! It stays in one READ COMMITTED transaction for the whole run: each of its reads sees what is
//! committed when it runs, and its transaction shows in INFORMATION_SCHEMA.INNODB_TRX with the
//! statement it runs. That makes the blocking check safe: InnoDB refills the cache behind
//! INNODB_TRX and INNODB_LOCK_WAITS only when nobody read it for 0.1 s (trx0i_s.cc), so a
//! reading may be stale; every check carries a mark of its own in its text, and a reading whose
//! own row does not show that mark is stale and read again after the cache's idle time. The
//! runs of every process of ours take turns (`GATE_LOCK`, a named lock on the server) from a
//! first reading to a fresh one, so that they never spoil each other's wait.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::time::Instant;

use shared::outcome::{BookingRow, SeatRow, Tables};
use shared::schedule::SeatStatus;
use shared::sql::innodb;
use sqlx::mysql::{MySqlConnection, MySqlRow};
use sqlx::{Executor, Row};
use tokio::sync::Mutex;

use super::actor::text;
use super::flavor::Flavor;
use super::holders;
use crate::executor::ExecError;

/// How long InnoDB keeps serving its INFORMATION_SCHEMA cache after a reading, plus a margin.
const CACHE_IDLE: Duration = Duration::from_millis(105);
/// How many stale readings in a row before the check gives up (another client of the server
/// reads the lock tables all the time).
const STALE_TRIES: usize = 100;

/// One reader of InnoDB's lock tables at a time in this process (its turn at `GATE_LOCK`), and
/// the last fresh reading: when it was sent, and its rows. A reading shows every transaction
/// of the server, so a run that asked before it was sent takes it as its own (its rows are
/// at least as new as a reading of its own would be), and the runs of a process share their
/// readings instead of taking turns each.
static TURN: Mutex<Option<(Instant, Vec<TrxRow>)>> = Mutex::const_new(None);

/// The server's named lock that every run's reader of InnoDB's lock tables holds, across
/// processes, from its first reading to its fresh one.
const GATE_LOCK: &str = "lastseat_innodb_lock_tables";
/// How long a reader waits for its turn.
const GATE_WAIT: Duration = Duration::from_secs(20);

/// A row of the reading: a transaction's thread, state and statement, one thread it waits
/// for (if any), and the reading's mark, and the lock it waits for when its holder has no id.
type TrxRow = (i64, String, String, Option<i64>, String, Option<String>);

/// One session's lock state: waiting for a lock (`blocked`), behind the sessions `by`.
#[derive(Debug, Default)]
pub(super) struct Blocking {
    pub blocked: bool,
    pub by: Vec<i64>,
}

pub(super) struct Monitor {
    pub conn: MySqlConnection,
    /// Its server thread.
    pub thread: i64,
    flavor: Flavor,
}

impl Monitor {
    pub fn new(conn: MySqlConnection, thread: i64, flavor: Flavor) -> Monitor {
        Monitor {
            conn,
            thread,
            flavor,
        }
    }

    /// Opens its READ COMMITTED transaction (a read starts it in InnoDB).
    pub async fn start(&mut self) -> Result<(), sqlx::Error> {
        self.conn
            .execute(
                "set session transaction isolation level read committed; start transaction; \
                 select count(*) from show_seats",
            )
            .await?;
        Ok(())
    }

    /// The committed tables now.
    pub async fn snapshot(&mut self, show: i64) -> Result<Tables, ExecError> {
        let bad = |what: &str| ExecError::Unexpected(format!("a snapshot read {what}"));
        let rows = sqlx::query(innodb::SNAPSHOT_SEATS)
            .bind(show)
            .fetch_all(&mut self.conn)
            .await?;
        let mut seats = Vec::with_capacity(rows.len());
        for r in &rows {
            let status = text(r, 1)?.unwrap_or_default();
            seats.push(SeatRow {
                id: text(r, 0)?.unwrap_or_default(),
                status: SeatStatus::from_sql(&status)
                    .ok_or_else(|| bad(&format!("seat status {status:?}")))?,
                holder: text(r, 2)?,
                hold_id: text(r, 3)?,
                until: r.try_get(4)?,
                value: None,
            });
        }
        // A counter's rows are its seats (a run fills one of the tables).
        let rows = sqlx::query(&innodb::snapshot_counters())
            .fetch_all(&mut self.conn)
            .await?;
        for r in &rows {
            seats.push(SeatRow::counter(
                text(r, 0)?.unwrap_or_default(),
                r.try_get(1)?,
            ));
        }
        let rows = sqlx::query(innodb::SNAPSHOT_BOOKINGS)
            .bind(show)
            .fetch_all(&mut self.conn)
            .await?;
        let mut bookings = rows
            .iter()
            .map(|r: &MySqlRow| {
                Ok(BookingRow {
                    seat: text(r, 0)?.unwrap_or_default(),
                    holder: text(r, 1)?.unwrap_or_default(),
                    booking_id: text(r, 2)?.unwrap_or_default(),
                })
            })
            .collect::<Result<Vec<_>, sqlx::Error>>()?;
        // The claimed usernames are a username scenario's tickets.
        for r in &sqlx::query(shared::sql::username::SNAPSHOT_CLAIMS)
            .fetch_all(&mut self.conn)
            .await?
        {
            bookings.push(BookingRow {
                seat: text(r, 0)?.unwrap_or_default(),
                holder: text(r, 1)?.unwrap_or_default(),
                booking_id: text(r, 2)?.unwrap_or_default(),
            });
        }
        let rows = sqlx::query(innodb::SNAPSHOT_REFUNDS)
            .fetch_all(&mut self.conn)
            .await?;
        let mut refunds = rows
            .iter()
            .map(|r| Ok(text(r, 0)?.unwrap_or_default()))
            .collect::<Result<Vec<_>, sqlx::Error>>()?;
        let clock: i64 = sqlx::query_scalar(innodb::SNAPSHOT_CLOCK)
            .fetch_one(&mut self.conn)
            .await?;
        // Sorted here, byte-wise as the model sorts.
        seats.sort_by(|a, b| a.id.cmp(&b.id));
        bookings.sort_by(|a, b| (&a.seat, &a.booking_id).cmp(&(&b.seat, &b.booking_id)));
        refunds.sort();
        Ok(Tables {
            clock,
            seats,
            bookings,
            refunds,
        })
    }

    /// The lock state of the sessions `threads`, each blocked (or not) by any session, as one
    /// fresh reading of InnoDB's lock tables shows it. Blocked means waiting for a row lock:
    /// a statement that is only slow is not.
    ///
    /// The reader holds its turn (`TURN` in this process, `GATE_LOCK` across processes) from
    /// its first reading to its fresh one: a reading is tried at once, and after a stale one
    /// the cache's idle time is waited (no reader of ours can spoil it meanwhile).
    pub async fn blocking(&mut self, threads: &[i64]) -> Result<Vec<Blocking>, ExecError> {
        let asked = Instant::now();
        let rows = {
            let mut turn = TURN.lock().await;
            match &*turn {
                Some((sent, rows)) if *sent >= asked => rows.clone(),
                _ => {
                    let got: Option<i64> =
                        sqlx::query_scalar("select cast(get_lock(?, ?) as signed)")
                            .bind(GATE_LOCK)
                            .bind(GATE_WAIT.as_secs())
                            .fetch_one(&mut self.conn)
                            .await?;
                    if got != Some(1) {
                        return Err(ExecError::Unexpected(format!(
                            "no turn to read InnoDB's lock tables within {} s (GET_LOCK('{GATE_LOCK}'))",
                            GATE_WAIT.as_secs()
                        )));
                    }
                    let reading = self.fresh_reading().await;
                    sqlx::query("do release_lock(?)")
                        .bind(GATE_LOCK)
                        .execute(&mut self.conn)
                        .await?;
                    let (sent, rows) = reading?;
                    *turn = Some((sent, rows.clone()));
                    rows
                }
            }
        };
        let mut states: Vec<Blocking> = threads.iter().map(|_| Blocking::default()).collect();
        let mut anonymous = Vec::new();
        for (thread, state, _, by, _, lock) in rows {
            let Some(i) = threads.iter().position(|&t| t == thread) else {
                continue;
            };
            states[i].blocked |= state == "LOCK WAIT";
            if let Some(by) = by {
                if !states[i].by.contains(&by) {
                    states[i].by.push(by);
                }
            }
            if let Some(record) = lock.as_deref().and_then(holders::record_of) {
                anonymous.push((i, record));
            }
        }
        if !anonymous.is_empty() {
            // Blockers without an id: the transactions without one that lock its record.
            let holders = holders::without_id(&mut self.conn).await?;
            for (i, record) in anonymous {
                for (thread, records) in &holders {
                    if *thread != threads[i]
                        && records.contains(&record)
                        && !states[i].by.contains(thread)
                    {
                        states[i].by.push(*thread);
                    }
                }
            }
        }
        Ok(states)
    }

    /// `blocking`'s readings, holding the turn, until one is fresh: when it was sent, and its
    /// rows (every transaction of the server).
    async fn fresh_reading(&mut self) -> Result<(Instant, Vec<TrxRow>), ExecError> {
        static MARK: AtomicU64 = AtomicU64::new(0);
        for tries in 0..STALE_TRIES {
            if tries > 0 {
                // Stale: wait out the cache's idle time since that reading, and step off the
                // beat of a stranger that reads them too.
                let off = match tries {
                    1 => 0,
                    _ => rand::random::<u64>() % CACHE_IDLE.as_millis() as u64,
                };
                tokio::time::sleep(CACHE_IDLE + Duration::from_millis(off)).await;
            }
            let mark = format!("lastseat-check-{}", MARK.fetch_add(1, Ordering::Relaxed));
            let query = format!(
                "select cast(t.trx_mysql_thread_id as signed), t.trx_state,
                        coalesce(t.trx_query, ''), cast(b.trx_mysql_thread_id as signed), '{mark}',
                        {}
                   from information_schema.innodb_trx t {}",
                self.flavor.anonymous_blocker(),
                self.flavor.waits()
            );
            let sent = Instant::now();
            let rows: Vec<TrxRow> = sqlx::query_as(&query).fetch_all(&mut self.conn).await?;
            let fresh = rows
                .iter()
                .any(|(thread, _, query, ..)| *thread == self.thread && query.contains(&mark));
            if fresh {
                return Ok((sent, rows));
            }
        }
        Err(ExecError::Unexpected(format!(
            "InnoDB's lock tables were stale {STALE_TRIES} times in a row: something else \
             reads INFORMATION_SCHEMA.INNODB_TRX more often than every {} ms",
            CACHE_IDLE.as_millis()
        )))
    }

    /// Of the sessions `threads`, those that are gone (killed, or cut off).
    pub async fn gone(&mut self, threads: &[i64]) -> Result<Vec<i64>, ExecError> {
        let alive: Vec<i64> =
            sqlx::query_scalar("select cast(id as signed) from information_schema.processlist")
                .fetch_all(&mut self.conn)
                .await?;
        Ok(threads
            .iter()
            .copied()
            .filter(|t| !alive.contains(t))
            .collect())
    }
}
