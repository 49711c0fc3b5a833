//! Where a run's time goes, phase by phase: added up over every run of the process, for the
//! bench (`examples/replay_bench.rs`), and logged per run at debug level.

use std::sync::Mutex;
use std::time::Duration;

/// The time spent in each phase of the runs (a sum over runs, or one run's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Phases {
    /// Runs that reached their entries.
    pub runs: u64,
    /// Runs whose schema was a ready one off the shelf.
    pub ready: u64,
    /// Taking a schema (a ready one, or making one), seeding it and setting the actors'
    /// connections up (on a ready schema, the first snapshot too: it is read meanwhile).
    pub setup: Duration,
    /// Sending the entries and waiting for their answers.
    pub entries: Duration,
    /// The monitor's questions whether the statements in flight are blocked.
    pub blocking_checks: Duration,
    /// Statements held back after a wait began, and waits for deadlock checks to run.
    pub held_back: Duration,
    /// Reading the committed tables (at the start and after each commit of a change).
    pub snapshots: Duration,
    /// The check at the end that every actor's session is still there.
    pub end_check: Duration,
    /// Giving the actors' connections back, when it comes first (a statement was still in
    /// flight, or the schema is dropped).
    pub release: Duration,
    /// Emptying the schema for the next run (while the actors' connections are given back, when
    /// nothing was in flight any more), or dropping it.
    pub reset: Duration,
    /// The statements of the schedule sent.
    pub sent: u64,
    /// The monitor's questions whether statements in flight are blocked.
    pub asked: u64,
    /// The snapshots of the committed tables read on their own (not the initial one read with
    /// the seed of a ready schema).
    pub read: u64,
}

impl Phases {
    /// Each phase's name and time, in the order of a run.
    pub fn rows(&self) -> [(&'static str, Duration); 8] {
        [
            ("set-up", self.setup),
            ("entries", self.entries),
            ("blocking checks", self.blocking_checks),
            ("held back", self.held_back),
            ("snapshots", self.snapshots),
            ("end check", self.end_check),
            ("release", self.release),
            ("reset", self.reset),
        ]
    }

    fn add(&mut self, other: &Phases) {
        self.runs += other.runs;
        self.ready += other.ready;
        self.setup += other.setup;
        self.entries += other.entries;
        self.blocking_checks += other.blocking_checks;
        self.held_back += other.held_back;
        self.snapshots += other.snapshots;
        self.end_check += other.end_check;
        self.release += other.release;
        self.reset += other.reset;
        self.sent += other.sent;
        self.asked += other.asked;
        self.read += other.read;
    }

    /// The phases as a table, per run: time, share, and the round trips of the entries.
    pub fn table(&self) -> String {
        let runs = self.runs.max(1) as f64;
        let per_run = |d: Duration| d.as_secs_f64() * 1e3 / runs;
        let all: f64 = self.rows().iter().map(|(_, d)| per_run(*d)).sum();
        let mut out = format!(
            "  phase             ms per run   share   ({} of {} runs on a ready schema)\n",
            self.ready, self.runs
        );
        for (phase, d) in self.rows() {
            let ms = per_run(d);
            out += &format!(
                "  {phase:<16} {ms:>10.3}   {:>4.0} %\n",
                100.0 * ms / all.max(1e-9)
            );
        }
        out += &format!(
            "  per run: {:.1} statements of the schedule, {:.1} questions whether one is blocked, {:.1} snapshots",
            self.sent as f64 / runs,
            self.asked as f64 / runs,
            self.read as f64 / runs
        );
        out
    }
}

static TOTALS: Mutex<Phases> = Mutex::new(Phases {
    runs: 0,
    ready: 0,
    setup: Duration::ZERO,
    entries: Duration::ZERO,
    blocking_checks: Duration::ZERO,
    held_back: Duration::ZERO,
    snapshots: Duration::ZERO,
    end_check: Duration::ZERO,
    release: Duration::ZERO,
    reset: Duration::ZERO,
    sent: 0,
    asked: 0,
    read: 0,
});

/// The phases of every run of this process so far.
pub fn totals() -> Phases {
    *TOTALS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Starts the sums again from zero.
pub fn reset_totals() {
    *TOTALS.lock().unwrap_or_else(|p| p.into_inner()) = Phases::default();
}

/// Adds one run's set-up and entries.
pub(crate) fn ran(run: &Phases) {
    tracing::debug!(
        ready = run.ready == 1,
        setup_ms = ms(run.setup),
        entries_ms = ms(run.entries),
        blocking_checks_ms = ms(run.blocking_checks),
        held_back_ms = ms(run.held_back),
        snapshots_ms = ms(run.snapshots),
        end_check_ms = ms(run.end_check),
        "a run on PostgreSQL"
    );
    TOTALS.lock().unwrap_or_else(|p| p.into_inner()).add(run);
}

/// Adds one run's clean-up.
pub(crate) fn closed(release: Duration, reset: Duration) {
    tracing::debug!(
        release_ms = ms(release),
        reset_ms = ms(reset),
        "a run's clean-up"
    );
    let mut totals = TOTALS.lock().unwrap_or_else(|p| p.into_inner());
    totals.release += release;
    totals.reset += reset;
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
