//! The heart of the suite: the simulator against real PostgreSQL.
//!
//! For every built-in scenario, every feasible interleaving of its programs is run in the model
//! and on PostgreSQL (one connection per buyer, a schema per run), and the two outcomes must be
//! identical entry by entry (each run on a schema off the executor's shelf, kept ready between
//! runs, as the server's runs are); the counter built-ins the same under every defence that fits
//! them, and three buyers on a row that serves two (`common/counters.rs`; one commit wakes
//! two of them, and where the model names that race PostgreSQL may take it either way: said,
//! not failed, as `verify` counts it). Then the six orders of the last concert seat, each with its
//! verdict, and every exported schedule under `schedules/` and every case of the model under
//! `shared/tests/model/` with its `expect` (a model case whose order the model names a race may
//! go the other way on PostgreSQL: that is printed, not failed). A run the machine was too busy
//! for (its deadlock at the model's pace) is tried again alone before it counts.

#[path = "common/counters.rs"]
mod counters;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use futures::stream::{self, StreamExt};
use shared::assess::{assess, check_expect, compare};
use shared::explorer;
use shared::scenarios;
use shared::schedule::Database;
use shared::Schedule;
use sqlx::postgres::PgPoolOptions;
use sqlx::PgPool;

async fn pool() -> PgPool {
    let url = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    PgPoolOptions::new()
        .max_connections(24)
        .connect(&url)
        .await
        .unwrap_or_else(|e| panic!("cannot reach PostgreSQL at {url} ({e}): set DATABASE_URL"))
}

/// Why a schedule did not pass: the machine was too busy to run its deadlock at the model's
/// pace (`ExecError::TooSlow`), or the two runs differ (or one of them refused it).
enum Failure {
    Busy(String),
    Differ(Vec<String>),
}

/// Every run holds this shared; a run the machine was too busy for is tried again holding it
/// alone, so that the runs of the other tests of this binary do not load the machine then.
fn turns() -> &'static tokio::sync::RwLock<()> {
    static TURNS: OnceLock<tokio::sync::RwLock<()>> = OnceLock::new();
    TURNS.get_or_init(|| tokio::sync::RwLock::new(()))
}

/// How many more times a run the machine was too busy for is tried, alone.
const ALONE_TRIES: usize = 3;

/// Runs one schedule both ways; the differences, or the outcome pair when they agree. A run
/// too busy for its deadlock on every one of the executor's tries is tried again alone, and
/// fails the test only if it is still too busy then.
async fn run_both(
    pool: &PgPool,
    schedule: &Schedule,
) -> Result<(shared::Outcome, shared::Outcome), Vec<String>> {
    let first = {
        let _shared = turns().read().await;
        attempt(pool, schedule).await
    };
    match first {
        Err(Failure::Busy(_)) => run_alone(pool, schedule, ALONE_TRIES).await,
        other => words(other),
    }
}

/// `run_both`, holding every other run of this binary back, for up to `tries` tries while
/// the machine is too busy for the schedule's deadlock.
async fn run_alone(
    pool: &PgPool,
    schedule: &Schedule,
    tries: usize,
) -> Result<(shared::Outcome, shared::Outcome), Vec<String>> {
    let _alone = turns().write().await;
    let mut result = attempt(pool, schedule).await;
    for _ in 1..tries {
        if !matches!(result, Err(Failure::Busy(_))) {
            break;
        }
        result = attempt(pool, schedule).await;
    }
    words(result)
}

fn words(
    result: Result<(shared::Outcome, shared::Outcome), Failure>,
) -> Result<(shared::Outcome, shared::Outcome), Vec<String>> {
    result.map_err(|failure| match failure {
        Failure::Busy(why) => vec![format!("executor failed, alone too: {why}")],
        Failure::Differ(differences) => differences,
    })
}

/// One try of `run_both`.
async fn attempt(
    pool: &PgPool,
    schedule: &Schedule,
) -> Result<(shared::Outcome, shared::Outcome), Failure> {
    let simulated = shared::engine::simulate(schedule)
        .map_err(|e| Failure::Differ(vec![format!("simulator refused it: {e}")]))?;
    let simulated = assess(schedule, simulated);
    let real = match backend::executor::execute(pool, schedule).await {
        Ok(trace) => trace,
        Err(e @ backend::executor::ExecError::TooSlow(_)) => {
            return Err(Failure::Busy(e.to_string()))
        }
        Err(e) => return Err(Failure::Differ(vec![format!("executor failed: {e}")])),
    };
    let real = assess(schedule, real);
    let differences = compare(&simulated, &real);
    if differences.is_empty() {
        Ok((simulated, real))
    } else {
        Err(Failure::Differ(differences))
    }
}

/// One of the six orders: the order, its steps, who is owed a refund, who holds A14 told.
type Case = (
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
    Option<&'static str>,
);

/// Ends the test binary, naming the runs in flight, when no run has ended for `patience`: a run
/// that hangs must fail the suite, not stall it. A plain thread: a task that lost its wake-up
/// never sees its own timers fire.
struct Watchdog {
    state: Arc<Mutex<(Instant, BTreeMap<u64, String>)>>,
    next: AtomicU64,
    done: Arc<AtomicBool>,
}

impl Watchdog {
    fn start(patience: Duration) -> Watchdog {
        let state = Arc::new(Mutex::new((Instant::now(), BTreeMap::new())));
        let done = Arc::new(AtomicBool::new(false));
        let (watched, finished) = (state.clone(), done.clone());
        std::thread::spawn(move || {
            while !finished.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_secs(1));
                let (last, in_flight) = &*watched.lock().expect("the watchdog's state");
                if last.elapsed() > patience {
                    let runs: Vec<&String> = in_flight.values().collect();
                    eprintln!(
                        "no run ended for {patience:?}: the executor hangs; in flight: {runs:#?}"
                    );
                    std::process::exit(101);
                }
            }
        });
        Watchdog {
            state,
            next: AtomicU64::new(0),
            done,
        }
    }

    /// Watches the run `label` until it ends.
    async fn watch<T>(&self, label: String, run: impl std::future::Future<Output = T>) -> T {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.state.lock().expect("state").1.insert(id, label);
        let result = run.await;
        let mut state = self.state.lock().expect("state");
        state.1.remove(&id);
        state.0 = Instant::now();
        result
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
    }
}

/// One interleaving and whether the two runs agreed on it (the differences when not).
type OrderResult = (Vec<usize>, Result<(), Vec<String>>);

fn names(schedule: &Schedule, order: &[usize]) -> String {
    order
        .iter()
        .map(|&a| schedule.actors()[a].name.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simulator_and_postgres_agree_on_every_interleaving_of_every_builtin_scenario() {
    let pool = pool().await;
    // A run ends within RUN_TIMEOUT + CLOSE_BOUND whatever happens: twice that without any run
    // ending is a hang.
    let watchdog =
        Watchdog::start(2 * (backend::executor::RUN_TIMEOUT + backend::executor::CLOSE_BOUND));
    let started = Instant::now();
    let mut runs = 0usize;
    let mut failures = Vec::new();
    for builtin in scenarios::all() {
        let schedule = builtin.schedule();
        let (orders, complete) = explorer::orders(&schedule, 20_000);
        assert!(
            complete,
            "{}: more than 20000 orders; the differential test runs them all",
            builtin.id
        );
        runs += orders.len();
        let results: Vec<OrderResult> = stream::iter(orders)
            .map(|order| {
                let pool = pool.clone();
                let schedule = schedule.with_order(order.clone());
                let label = format!("{} [{}]", builtin.id, names(&schedule, &order));
                let watchdog = &watchdog;
                async move {
                    let result = watchdog.watch(label, run_both(&pool, &schedule)).await;
                    (order, result.map(|_| ()))
                }
            })
            .buffer_unordered(4)
            .collect()
            .await;
        for (order, result) in results {
            if let Err(differences) = result {
                failures.push(format!(
                    "{} [{}]:\n    {}",
                    builtin.id,
                    names(&schedule, &order),
                    differences.join("\n    ")
                ));
            }
        }
    }
    println!(
        "differential: {runs} interleavings of {} scenarios in {:.1?}",
        scenarios::all().len(),
        started.elapsed()
    );
    backend::executor::shutdown(&pool).await;
    assert!(
        failures.is_empty(),
        "{} of {runs} interleavings disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simulator_and_postgres_agree_on_every_order_of_every_defence_on_every_counter() {
    let pool = pool().await;
    let watchdog =
        Watchdog::start(2 * (backend::executor::RUN_TIMEOUT + backend::executor::CLOSE_BOUND));
    let started = Instant::now();
    let (mut runs, mut differed) = (0usize, counters::Differed::default());
    for case in counters::cases(Database::Postgresql) {
        runs += case.plan.orders.len();
        println!("{}: {}", case.label, case.coverage());
        let schedule = &case.schedule;
        let results: Vec<OrderResult> = stream::iter(case.plan.orders.clone())
            .map(|order| {
                let pool = pool.clone();
                let schedule = schedule.with_order(order.clone());
                let label = format!("{} [{}]", case.label, names(&schedule, &order));
                let watchdog = &watchdog;
                async move {
                    let result = watchdog.watch(label, run_both(&pool, &schedule)).await;
                    (order, result.map(|_| ()))
                }
            })
            .buffer_unordered(4)
            .collect()
            .await;
        for (order, result) in results {
            if let Err(differences) = result {
                differed.file(&case, order, &differences);
            }
        }
    }
    println!(
        "counters on PostgreSQL: {runs} orders in {:.1?}; PostgreSQL took {}",
        started.elapsed(),
        differed.raced_words()
    );
    let failures = differed.failures;
    backend::executor::shutdown(&pool).await;
    assert!(
        failures.is_empty(),
        "{} of {runs} orders disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_six_orders_of_the_last_concert_seat_each_get_their_verdict() {
    let pool = pool().await;
    let schedule = scenarios::get("ch3-three-arrivals")
        .expect("built-in")
        .schedule();
    // clock = A's hold expires, b = B asks for A14, a = A's payment confirms.
    let cases: &[Case] = &[
        // order,                     steps,                              refund_due, holder of A14 told
        (
            &["clock", "b", "a"],
            &["ok", "held", "refund_due"],
            &["a"],
            Some("b"),
        ),
        (
            &["clock", "a", "b"],
            &["ok", "refund_due", "held"],
            &["a"],
            Some("b"),
        ),
        (
            &["b", "clock", "a"],
            &["unavailable", "ok", "refund_due"],
            &["a"],
            None,
        ),
        (
            &["b", "a", "clock"],
            &["unavailable", "issued", "ok"],
            &[],
            Some("a"),
        ),
        (
            &["a", "clock", "b"],
            &["issued", "ok", "unavailable"],
            &[],
            Some("a"),
        ),
        (
            &["a", "b", "clock"],
            &["issued", "unavailable", "ok"],
            &[],
            Some("a"),
        ),
    ];
    for (order, steps, refund_due, owner) in cases {
        let order: Vec<usize> = order
            .iter()
            .map(|n| schedule.actor_index(n).expect("actor"))
            .collect();
        let s = schedule.with_order(order.clone());
        let (simulated, _) = run_both(&pool, &s)
            .await
            .unwrap_or_else(|d| panic!("[{}]: {}", names(&s, &order), d.join("; ")));
        let label = names(&s, &order);
        assert_eq!(simulated.steps(), *steps, "[{label}] steps");
        assert_eq!(
            simulated.verdict.refund_due, *refund_due,
            "[{label}] refund_due"
        );
        assert!(
            !simulated.verdict.double_booked,
            "[{label}] never double-booked"
        );
        let told = &simulated.seats["A14"].told;
        assert_eq!(
            told.first().map(String::as_str),
            *owner,
            "[{label}] told A14"
        );
        assert!(told.len() <= 1, "[{label}] at most one owner");
    }
    backend::executor::shutdown(&pool).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_exported_schedule_replays_identically_and_meets_its_expect() {
    let pool = pool().await;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    // The exported fixtures, then the model's cases (each observed on a real server first).
    for dir in ["../schedules", "../shared/tests/model"] {
        let mut found: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap_or_else(|e| panic!("{dir}/: {e}"))
            .map(|e| e.expect("readable").path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        assert!(!found.is_empty(), "{dir}/ holds fixtures");
        found.sort();
        files.extend(found);
    }
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable");
        let schedule = match Schedule::parse_json(&text) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{}: invalid: {e}", file.display()));
                continue;
            }
        };
        assert!(
            schedule.expect().is_some(),
            "{}: a fixture states its expect",
            file.display()
        );
        // A case on InnoDB is MariaDB's: `innodb.rs` replays those.
        if schedule.database() != Database::Postgresql {
            continue;
        }
        let races = counters::races(&schedule);
        // Each fixture is a precise scenario, several of them about which deadlock check
        // comes first: each runs alone, not beside the interleavings of the other test.
        match run_alone(&pool, &schedule, 1 + ALONE_TRIES).await {
            // Only a model case names a race (`schedules.rs` holds the exported files to none):
            // PostgreSQL may take it the other way, as the random schedules allow. Said, not failed.
            Err(d) if !races.is_empty() => println!(
                "{}: PostgreSQL took the race the model names at entries {races:?}: {}",
                file.display(),
                d.join("; ")
            ),
            Err(d) => failures.push(format!("{}: disagree: {}", file.display(), d.join("; "))),
            Ok((simulated, _)) => {
                let unmet = check_expect(&schedule, &simulated);
                if !unmet.is_empty() {
                    failures.push(format!("{}: {}", file.display(), unmet.join("; ")));
                }
            }
        }
    }
    backend::executor::shutdown(&pool).await;
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
