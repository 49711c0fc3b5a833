//! The records of this process's requests, batched (`batch.rs`): one task sends every record
//! handed to it since its last statement in one statement (one transaction, one synchronous
//! commit), and answers each request once that commit is done. While one batch is on its way
//! the records that arrive wait for the next, so that a busy process costs one commit per WAL
//! flush, not one per request, and a quiet one records at once.
//!
//! Each record was one statement of its own: 32 clients meant 32 transactions waiting for the
//! disk at once, each holding a key-share lock on its room's row (the requests' foreign key),
//! so that every new one made PostgreSQL write a new multixact of all the others. In a batch the
//! room's row is locked once per commit. Once a batch is in, this process's streams of its
//! rooms are marked for a rebuild at once (without waiting for a notification to come back),
//! and the other processes are notified by `notifier.rs`, off the requests' way: a NOTIFY in
//! the batch's own commit would make it wait for every notifying commit of the server.
//!
//! A batch that fails is sent again record by record, so that each request gets its own answer
//! (a fault for all of them while the database restarts; `record.rs` sends again). Two records
//! of one participant never share a batch: the second waits for the next one (`batch.rs`).

use std::collections::BTreeSet;
use std::sync::Arc;

use futures::future::join_all;

mod entry;
mod statement;

pub use entry::{Entry, Op, Told};

use super::batch::{self, Batcher};
use super::live::Live;
use super::notifier::Notifier;
use super::phases;
use statement::statement;

/// The handle requests give their records to.
#[derive(Clone)]
pub struct Recorder(Batcher<Entry, Result<(), sqlx::Error>>);

/// The receiving end, for `start`.
pub struct Jobs(batch::Waiting<Entry, Result<(), sqlx::Error>>);

pub fn channel() -> (Recorder, Jobs) {
    let (batcher, waiting) = batch::channel();
    (Recorder(batcher), Jobs(waiting))
}

impl Recorder {
    /// Records `entry` with the next batch; done once its commit is.
    pub async fn record(&self, entry: Entry) -> Result<(), sqlx::Error> {
        self.0
            .call(entry)
            .await
            .unwrap_or(Err(sqlx::Error::PoolClosed))
    }
}

/// Where the batches go and whom they tell: the main pool, this process's streams, the other
/// processes (through `notifier.rs`).
#[derive(Clone)]
pub struct Sent {
    pub pool: sqlx::PgPool,
    pub live: Arc<Live>,
    pub notifier: Notifier,
}

/// Starts the task that sends the batches on `to`'s pool.
pub fn start(to: Sent, Jobs(waiting): Jobs) {
    waiting.start(
        |e: &Entry| Some((e.code.clone(), e.n)),
        move |batch| {
            let to = to.clone();
            async move { send(&to, batch).await }
        },
    );
}

/// Sends `batch` in one statement; a result for each entry.
async fn send(to: &Sent, batch: Vec<Entry>) -> Vec<Result<(), sqlx::Error>> {
    phases::batch(&phases::RECORD_BATCH, batch.len());
    phases::ROUND_TRIPS.count(1);
    let entries: Vec<&Entry> = batch.iter().collect();
    match statement(&to.pool, &entries).await {
        Ok(()) => {
            changed(to, &entries);
            batch.iter().map(|_| Ok(())).collect()
        }
        Err(e) if batch.len() == 1 => vec![Err(e)],
        Err(_) => {
            // Each on its own, so that each request is answered for what it sent.
            phases::ROUND_TRIPS.count(batch.len() as u64);
            let results = join_all(
                entries
                    .iter()
                    .map(|e| async move { statement(&to.pool, &[e]).await }),
            )
            .await;
            for (entry, result) in entries.iter().zip(&results) {
                if result.is_ok() {
                    changed(to, &[entry]);
                }
            }
            results
        }
    }
}

/// The rooms of `entries` changed: this process's streams of them are marked for a rebuild
/// now, and the other processes are told by a NOTIFY (`notifier.rs`: coalesced, in a
/// transaction of its own, off the requests' way).
fn changed(to: &Sent, entries: &[&Entry]) {
    let codes: BTreeSet<&str> = entries.iter().map(|e| e.code.as_str()).collect();
    for code in codes {
        to.live.changed(code);
        to.notifier.changed(code);
    }
}
