//! Where a room request's time goes, phase by phase: the request's start (`attempt/begin.rs`,
//! one round trip, batched with the other requests' starts), the wait for a connection of the
//! round's pool, the statements of the defence, the record (`recorder.rs`, batched) and the
//! whole request; the records and starts each batch carried; and the rebuilds of the rooms'
//! state for the event streams (`state/`). Process-wide counters, cheap enough to keep on
//! (a few atomic additions a request); `serve` logs what they added up to every five seconds
//! in which a room was busy, and `bench/room_load.sh` prints those lines beside its figures.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// One phase: how many times it ran, their total and their longest time.
pub struct Phase {
    name: &'static str,
    count: AtomicU64,
    total_us: AtomicU64,
    max_us: AtomicU64,
}

impl Phase {
    const fn new(name: &'static str) -> Phase {
        Phase {
            name,
            count: AtomicU64::new(0),
            total_us: AtomicU64::new(0),
            max_us: AtomicU64::new(0),
        }
    }

    /// Adds one run of the phase that took `took`.
    pub fn add(&self, took: Duration) {
        let us = took.as_micros() as u64;
        self.count.fetch_add(1, Relaxed);
        self.total_us.fetch_add(us, Relaxed);
        self.max_us.fetch_max(us, Relaxed);
    }

    /// Adds one run that began at `since`.
    pub fn since(&self, since: Instant) {
        self.add(since.elapsed());
    }

    /// Adds `n` to the count alone (a counter, not a time).
    pub fn count(&self, n: u64) {
        self.count.fetch_add(n, Relaxed);
    }

    /// Count, total and longest since the last call; resets them.
    fn take(&self) -> (u64, u64, u64) {
        (
            self.count.swap(0, Relaxed),
            self.total_us.swap(0, Relaxed),
            self.max_us.swap(0, Relaxed),
        )
    }
}

/// A request's start: the participant, the room, the lease and the history.
pub static BEGIN: Phase = Phase::new("begin");
/// The starts each batch carried (its count: the batches; the time: none).
pub static BEGIN_BATCH: Phase = Phase::new("begins per batch");
/// The wait for a connection of the round's pool.
pub static ACQUIRE: Phase = Phase::new("round connection");
/// One statement of the defence (or a Redis command), sent to answered.
pub static STATEMENT: Phase = Phase::new("statement");
/// A request's record, from handing it over to its commit.
pub static RECORD: Phase = Phase::new("record");
/// The records each batch carried.
pub static RECORD_BATCH: Phase = Phase::new("records per batch");
/// A whole request, from its start to its record.
pub static REQUEST: Phase = Phase::new("request");
/// A rebuild of a room's state (`state::build`).
pub static REBUILD: Phase = Phase::new("state rebuild");
/// Round trips to PostgreSQL made for requests (each batch counted once).
pub static ROUND_TRIPS: Phase = Phase::new("round trips");

static ALL: [&Phase; 9] = [
    &BEGIN,
    &BEGIN_BATCH,
    &ACQUIRE,
    &STATEMENT,
    &RECORD,
    &RECORD_BATCH,
    &REQUEST,
    &REBUILD,
    &ROUND_TRIPS,
];

/// What the counters added up to since the last call, in words; none if no request ran.
pub fn summary(over: Duration) -> Option<String> {
    let taken: Vec<(&'static str, (u64, u64, u64))> =
        ALL.iter().map(|p| (p.name, p.take())).collect();
    let requests = taken
        .iter()
        .find(|(n, _)| *n == REQUEST.name)
        .map_or(0, |t| t.1 .0);
    if requests == 0 {
        return None;
    }
    let mut out = format!(
        "room phases over {:.0} s: {requests} requests ({:.0}/s)",
        over.as_secs_f64(),
        requests as f64 / over.as_secs_f64().max(1e-9)
    );
    for (name, (count, total, max)) in taken {
        if name == ROUND_TRIPS.name {
            out.push_str(&format!(
                "; {name} per request {:.2}",
                count as f64 / requests as f64
            ));
        } else if name.ends_with("per batch") {
            let batches = count;
            let per = total as f64 / batches.max(1) as f64;
            out.push_str(&format!("; {name} {per:.1} ({batches} batches)"));
        } else if count > 0 {
            out.push_str(&format!(
                "; {name} {count}× avg {:.2} ms max {:.1} ms",
                total as f64 / count as f64 / 1000.0,
                max as f64 / 1000.0
            ));
        }
    }
    Some(out)
}

/// Adds a batch of `n` to a per-batch counter (its count is the batches, its total the items).
pub fn batch(phase: &Phase, n: usize) {
    phase.count.fetch_add(1, Relaxed);
    phase.total_us.fetch_add(n as u64, Relaxed);
    phase.max_us.fetch_max(n as u64, Relaxed);
}

/// Logs the summary every `every` while requests run (a task of its own).
pub fn start_logging(every: Duration) {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            if let Some(line) = summary(every) {
                tracing::info!("{line}");
            }
        }
    });
}
