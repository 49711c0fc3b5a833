//! Random schedules against real PostgreSQL, drawn from a fixed seed, each in a random feasible
//! order, run in the model and on PostgreSQL: programs of two to eight buyers (and sometimes
//! the clock) over two to five seats, some retrying their attempt under `"if": "failed"` or
//! paying only `"if": "held"`; and deep queues (`queues.rs`), three to eight buyers of mixed
//! isolation levels queueing for one seat. The outcomes must be identical, except in an order
//! the model marks as a race between sessions PostgreSQL woke together (`Engine::races`): there
//! the real server may go either way, and a real run that does says the race first. Those are
//! run too and counted. `RANDOM_SCHEDULES` (default 150 of each kind) and
//! `RANDOM_SCHEDULES_SEED` run more, or others; `RANDOM_SCHEDULES_SKIP=K` leaves out the first
//! K of them, so that a long campaign can run in parts (2,500 then 2,500 more: `RANDOM_SCHEDULES=
//! 5000 RANDOM_SCHEDULES_SKIP=2500`); `RANDOM_SCHEDULES_WRITE=DIR` writes every file it runs
//! into DIR, to replay one of them alone.

#[path = "random_schedules/queues.rs"]
mod queues;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use futures::stream::{self, StreamExt};
use serde_json::{json, Value};
use shared::assess::{assess, compare};
use shared::engine::Engine;
use shared::outcome::StepResult;
use shared::schedule::Condition;
use shared::Schedule;
use sqlx::postgres::PgPoolOptions;
use tokio::sync::Semaphore;

/// A small, fixed pseudo-random sequence (xorshift64*), so that a failure names its seed.
pub struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn some_seats(rng: &mut Rng, seats: &[&str]) -> Vec<String> {
    if rng.chance(60) {
        return vec![rng.pick(seats).to_string()];
    }
    let mut chosen: Vec<String> = seats
        .iter()
        .filter(|_| rng.chance(45))
        .map(|s| s.to_string())
        .collect();
    if chosen.is_empty() {
        chosen.push(rng.pick(seats).to_string());
    }
    chosen
}

fn statement(rng: &mut Rng, seats: &[&str]) -> Value {
    let s = some_seats(rng, seats);
    match rng.below(6) {
        0 => json!({ "op": "read", "seats": s }),
        1 => {
            json!({ "op": "lock", "seats": s, "wait": rng.pick(&["wait", "nowait", "skip_locked"]) })
        }
        2 => json!({ "op": "write", "seats": s, "status": rng.pick(&["HELD", "BOOKED"]) }),
        3 => match rng.below(3) {
            0 => json!({ "op": "claim", "seats": s }),
            _ => json!({ "op": "claim", "seats": s,
                         "now": rng.pick(&["transaction", "statement", "evaluation"]) }),
        },
        4 => json!({ "op": "book", "seats": s }),
        _ => json!({ "op": "read", "seats": s }),
    }
}

fn one_call(rng: &mut Rng, seats: &[&str]) -> Value {
    match rng.below(6) {
        0 | 1 => json!({ "op": "hold", "seats": some_seats(rng, seats) }),
        2 => json!({ "op": "confirm" }),
        3 => json!({ "op": "release" }),
        4 => json!({ "op": "pay", "outcome": rng.pick(&["succeeds", "declined", "unknown"]) }),
        _ => json!({ "op": "redis_hold", "seats": some_seats(rng, seats) }),
    }
}

/// A program: one attempt (a transaction, or statements of their own), sometimes written again
/// as a retry under `"if": "failed"`, then a few one-call operations, some of them only
/// `"if": "held"` (a buyer that pays only for what it holds) or `"failed"` (a hold retried).
fn program(rng: &mut Rng, seats: &[&str]) -> Vec<Value> {
    let mut attempt = Vec::new();
    let in_tx = rng.chance(70);
    if in_tx {
        attempt.push(json!({ "op": "begin",
            "isolation": rng.pick(&["read committed", "repeatable read", "serializable"]) }));
    }
    for _ in 0..1 + rng.below(if in_tx { 4 } else { 2 }) {
        attempt.push(statement(rng, seats));
    }
    if in_tx {
        attempt.push(json!({ "op": if rng.chance(80) { "commit" } else { "rollback" } }));
    }
    let mut ops = attempt.clone();
    if rng.chance(30) {
        // The retry: the attempt again, its condition on the begin alone (the rest of the
        // transaction shares it) or on every operation.
        let every = !in_tx || rng.chance(50);
        for (i, op) in attempt.into_iter().enumerate() {
            ops.push(conditioned(op, (i == 0 || every).then_some("failed")));
        }
    }
    for _ in 0..rng.below(3) {
        let op = one_call(rng, seats);
        let takes = |o: &Value| {
            matches!(
                o["op"].as_str(),
                Some("hold" | "redis_hold" | "claim" | "write" | "book")
            )
        };
        let condition = match op["op"].as_str() {
            Some("pay" | "confirm" | "release") if ops.iter().any(takes) && rng.chance(60) => {
                Some("held")
            }
            Some("hold") if ops.iter().any(|o| o["op"] == "hold") && rng.chance(50) => {
                Some("failed")
            }
            _ => None,
        };
        ops.push(conditioned(op, condition));
    }
    ops
}

/// `op` with `"if": condition`, if there is one.
pub fn conditioned(mut op: Value, condition: Option<&str>) -> Value {
    if let Some(c) = condition {
        op["if"] = json!(c);
    }
    op
}

/// A random schedule file, without its order.
fn file(rng: &mut Rng, n: u64) -> Value {
    let seats: &[&str] = match rng.below(4) {
        0 => &["A1", "A2"],
        1 => &["A1", "A2", "A3"],
        2 => &["A1", "A2", "A3", "A4"],
        _ => &["A1", "A2", "A3", "A4", "A5"],
    };
    let buyers = if rng.chance(70) {
        2 + rng.below(3)
    } else {
        5 + rng.below(4)
    };
    let names = ["ana", "ben", "carl", "dave", "eve", "fay", "gus", "hal"];
    let mut actors = serde_json::Map::new();
    for name in names.iter().take(buyers) {
        actors.insert(name.to_string(), Value::from(program(rng, seats)));
    }
    if buyers < shared::schedule::MAX_ACTORS && rng.chance(25) {
        let mut clock = vec![json!({ "op": "advance", "minutes": 5 + rng.below(10) })];
        if rng.chance(50) {
            clock.push(json!({ "op": "sweep" }));
        }
        actors.insert("clock".to_string(), Value::from(clock));
    }
    let seats: Vec<Value> = seats.iter().map(|s| json!({ "id": s })).collect();
    json!({
        "version": 1,
        "name": format!("random schedule {n}"),
        "scenario": { "show": 900, "hold_minutes": 10, "seats": seats },
        "actors": actors,
        "order": [],
    })
}

/// A random order the model can run to its end (nobody sent while waiting), with the entries
/// the model marks as races; `None` when the programs get stuck. With `queue_first`, it mostly
/// sends next the buyer that has sent the fewest entries, so that everyone begins and queues
/// before anyone finishes.
fn random_order(
    rng: &mut Rng,
    schedule: &Schedule,
    queue_first: bool,
) -> Option<(Vec<usize>, Vec<usize>)> {
    let mut engine = Engine::new(schedule);
    let mut order = Vec::new();
    let mut sent = vec![0usize; schedule.actors().len()];
    loop {
        let ready: Vec<usize> = (0..schedule.actors().len())
            .filter(|&a| engine.blocked(a).is_none())
            .collect();
        if ready.is_empty() {
            break;
        }
        let a = if queue_first && rng.chance(75) {
            let fewest = ready
                .iter()
                .map(|&a| sent[a])
                .min()
                .expect("someone is ready");
            let behind: Vec<usize> = ready
                .iter()
                .copied()
                .filter(|&a| sent[a] == fewest)
                .collect();
            *rng.pick(&behind)
        } else {
            *rng.pick(&ready)
        };
        engine.step(a).ok()?;
        sent[a] += 1;
        order.push(a);
    }
    let stuck = (0..schedule.actors().len()).any(|a| engine.waiting(a));
    (!stuck).then(|| (order, engine.races().to_vec()))
}

/// The two kinds of random schedule: each its generator and whether its orders queue first.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Mixed,
    Queues,
}

impl Kind {
    fn file(self, rng: &mut Rng, n: u64) -> Value {
        match self {
            Kind::Mixed => file(rng, n),
            Kind::Queues => queues::file(rng, n),
        }
    }
}

/// How many random schedules of each kind, from which seed (`RANDOM_SCHEDULES`,
/// `RANDOM_SCHEDULES_SEED`), and how many of the first to leave out (`RANDOM_SCHEDULES_SKIP`).
fn skipped() -> usize {
    std::env::var("RANDOM_SCHEDULES_SKIP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn count_and_seed() -> (usize, u64) {
    let count = std::env::var("RANDOM_SCHEDULES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150);
    let seed = std::env::var("RANDOM_SCHEDULES_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5EA7_5EA7);
    (count, seed)
}

/// One random schedule and its order: the file as JSON (for a failure to print), the schedule,
/// and the entries the model marks as races.
struct Case {
    file: Value,
    schedule: Schedule,
    races: Vec<usize>,
}

fn cases(kind: Kind, count: usize, seed: u64) -> Vec<Case> {
    let mut rng = Rng(seed | 1);
    let mut cases = Vec::new();
    let mut n = 0;
    while cases.len() < count {
        n += 1;
        let mut file = kind.file(&mut rng, n);
        let schedule = Schedule::parse_json(&file.to_string())
            .unwrap_or_else(|e| panic!("a random schedule the parser refused: {e}\n{file}"));
        let Some((order, races)) = random_order(&mut rng, &schedule, matches!(kind, Kind::Queues))
        else {
            continue;
        };
        let names: Vec<&str> = order
            .iter()
            .map(|&a| schedule.actors()[a].name.as_str())
            .collect();
        file["order"] = json!(names);
        cases.push(Case {
            file,
            schedule: schedule.with_order(order),
            races,
        });
    }
    cases
}

/// With `RANDOM_SCHEDULES_WRITE=DIR`, writes every case's file into DIR, named after the
/// schedule and the seed (`random-schedule-2970-seed-97.json`, the name a failure prints), so
/// that a campaign's schedules can be replayed one by one with `backend replay` or `verify`.
fn write_files(seed: u64, cases: &[Case]) {
    let Ok(dir) = std::env::var("RANDOM_SCHEDULES_WRITE") else {
        return;
    };
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot make {dir}: {e}"));
    for case in cases {
        let name = case.file["name"]
            .as_str()
            .unwrap_or("schedule")
            .replace(' ', "-");
        let path = std::path::Path::new(&dir).join(format!("{name}-seed-{seed}.json"));
        let text = serde_json::to_string_pretty(&case.file).expect("a JSON value");
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("cannot write {path:?}: {e}"));
    }
}

/// What one case came to: agreed, disagreed where the model named a race, disagreed, or not
/// run because the machine was too busy for the deadlock the model foresees (tried alone again).
enum Verdict {
    Agreed,
    RaceTaken,
    Disagreed(String),
    TooBusy(String),
}

/// Runs `case` in the model and on PostgreSQL: its verdict and what the run went through.
async fn judge(pool: &sqlx::PgPool, case: &Case) -> (Verdict, Vec<String>) {
    let schedule = &case.schedule;
    let simulated = shared::engine::simulate(schedule)
        .map(|t| assess(schedule, t))
        .map_err(|e| format!("the model refused it: {e}"));
    let real = backend::executor::execute(pool, schedule).await;
    if let (Ok(_), Err(e @ backend::executor::ExecError::TooSlow(_))) = (&simulated, &real) {
        return (
            Verdict::TooBusy(format!("{}\n  {e}", case.file)),
            Vec::new(),
        );
    }
    let real = real
        .map(|t| assess(schedule, t))
        .map_err(|e| format!("the executor failed: {e}"));
    let (differences, seen) = match (simulated, real) {
        (Ok(s), Ok(r)) => (compare(&s, &r), what_happened(schedule, &r)),
        (s, r) => (vec![format!("{:?} / {:?}", s.err(), r.err())], Vec::new()),
    };
    let verdict = if differences.is_empty() {
        Verdict::Agreed
    } else if !case.races.is_empty() {
        // The race the model named went the other way: the real run may then differ, or stop
        // where the order sends a buyer PostgreSQL still keeps waiting (the executor refuses
        // the order then).
        Verdict::RaceTaken
    } else {
        Verdict::Disagreed(format!("{}\n  {}", case.file, differences.join("\n  ")))
    };
    (verdict, seen)
}

/// How many more times a case the machine was too busy for is run, alone.
const ALONE_TRIES: usize = 3;

/// Runs every case in the model and on PostgreSQL, several at once (as many as the pool's
/// connections allow: a run takes one per buyer and one to watch), and holds them to agree.
/// A case the executor found the machine too busy for (its deadlock at the model's pace, on
/// every one of its tries) is run again alone afterwards, when the others no longer load the
/// machine; one still too busy then fails the test as a disagreement does.
async fn run_all(kind: Kind) {
    let (count, seed) = count_and_seed();
    let url = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    const CONNECTIONS: u32 = 20;
    let pool = PgPoolOptions::new()
        .max_connections(CONNECTIONS)
        .connect(&url)
        .await
        .unwrap_or_else(|e| panic!("cannot reach PostgreSQL at {url} ({e}): set DATABASE_URL"));
    let connections = Arc::new(Semaphore::new(CONNECTIONS as usize));
    let cases: Vec<Case> = cases(kind, count, seed)
        .into_iter()
        .skip(skipped())
        .collect();
    write_files(seed, &cases);
    let mut results: Vec<(usize, (Verdict, Vec<String>))> = stream::iter(cases.iter().enumerate())
        .map(|(i, case)| {
            let pool = pool.clone();
            let connections = connections.clone();
            async move {
                let needed = case.schedule.actors().len() as u32 + 1;
                let _connections = connections.acquire_many(needed).await.expect("open");
                (i, judge(&pool, case).await)
            }
        })
        .buffer_unordered(6)
        .collect()
        .await;
    results.sort_by_key(|(i, _)| *i);
    let mut results: Vec<(Verdict, Vec<String>)> = results.into_iter().map(|(_, r)| r).collect();
    let mut alone = 0;
    for (case, result) in cases.iter().zip(results.iter_mut()) {
        for _ in 0..ALONE_TRIES {
            if !matches!(result.0, Verdict::TooBusy(_)) {
                break;
            }
            alone += 1;
            *result = judge(&pool, case).await;
        }
    }
    let (ran, skip) = (results.len(), skipped());
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    for seen in results.iter().flat_map(|(_, seen)| seen) {
        *tally.entry(seen.clone()).or_default() += 1;
    }
    let failures: Vec<&String> = results
        .iter()
        .filter_map(|(v, _)| match v {
            Verdict::Disagreed(f) | Verdict::TooBusy(f) => Some(f),
            _ => None,
        })
        .collect();
    let races_taken = results
        .iter()
        .filter(|(v, _)| matches!(v, Verdict::RaceTaken))
        .count();
    assert!(
        failures.is_empty(),
        "{} of {ran} random schedules ({kind:?}, seed {seed}, {skip} to {count}) ran differently on PostgreSQL \
         where the model named no race, or the machine stayed too busy to run alone:\n{}",
        failures.len(),
        failures
            .iter()
            .map(|f| f.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    // What the schedules went through, so that a change of the generator that stops reaching
    // waits, deadlocks or serialization failures shows.
    eprintln!(
        "random schedules ({kind:?}): {ran} (seed {seed}, {skip} to {count}): every run agreed with the model or \
         took a race it named ({races_taken} did; {alone} runs alone after the machine was too busy); {tally:?}"
    );
    let wanted: &[&str] = match kind {
        Kind::Mixed => &[
            "a wait",
            "23505",
            "40001",
            "55P03",
            "25P02",
            "a retry ran",
            "ran while held",
            "a condition skipped it",
        ],
        Kind::Queues => &["a wait", "a queue of 3", "40001", "40P01", "a retry ran"],
    };
    for wanted in wanted {
        assert!(
            tally.contains_key(*wanted),
            "no random schedule ({kind:?}) reached {wanted}: the generator no longer covers it"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_schedules_run_identically_in_the_model_and_on_postgres() {
    run_all(Kind::Mixed).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_queues_of_mixed_isolation_run_identically_in_the_model_and_on_postgres() {
    run_all(Kind::Queues).await;
}

/// What a run went through: "a wait" if a statement waited, each SQLSTATE it raised, and
/// whether a conditional operation ran ("a retry ran", "ran while held") or was skipped.
fn what_happened(schedule: &Schedule, outcome: &shared::Outcome) -> Vec<String> {
    let mut seen = BTreeSet::new();
    for e in &outcome.entries {
        if !e.trace.waited_for.is_empty() {
            seen.insert("a wait".to_string());
        }
        if e.trace.waited_for.len() >= 2 {
            // The third in a row's queue waits for the two ahead of it.
            seen.insert("a queue of 3".to_string());
        }
        let actor = schedule
            .actor_index(&e.trace.actor)
            .map(|a| &schedule.actors()[a]);
        let condition = actor.map_or(Condition::Always, |a| a.condition(e.trace.op_index));
        let skipped = e.trace.result == Some(StepResult::Skipped);
        match (condition, skipped) {
            (Condition::Always, _) => {}
            (Condition::Held, false) => {
                seen.insert("ran while held".to_string());
            }
            (Condition::Failed, false) => {
                seen.insert("a retry ran".to_string());
            }
            (_, true) => {
                seen.insert("a condition skipped it".to_string());
            }
        }
        if let Some(StepResult::Error { code, .. }) = &e.trace.result {
            seen.insert(code.to_string());
        }
    }
    seen.into_iter().collect()
}
