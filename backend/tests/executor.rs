//! The executor on real PostgreSQL: hand-written schedules, and the steps PostgreSQL really took.

mod common;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use backend::executor::{
    execute, execute_within, sweep_stale_schemas, ExecError, CLOSE_BOUND, RUN_TIMEOUT,
    SCHEMA_LOCK_CLASS,
};
use common::{pool, pool_named, schedule, steps};
use futures::stream::{self, StreamExt};
use shared::outcome::StepResult;
use shared::schedule::SeatStatus;
use sqlx::postgres::PgPoolOptions;

#[tokio::test]
async fn second_claim_waits_then_updates_no_rows() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A12" } ] },
             "actors": { "first": [ { "op": "begin" }, { "op": "claim", "seats": ["A12"] }, { "op": "commit" } ],
                         "second": [ { "op": "claim", "seats": ["A12"] } ] },
             "order": ["first", "first", "second", "first"] }"#,
    );
    let trace = execute(&pool().await, &s).await.expect("the run");
    assert_eq!(steps(&trace), ["ok", "ok:1", "waiting>ok:0", "ok"]);
    assert_eq!(trace.entries[2].waited_for, ["first"]);
    assert_eq!(trace.entries[2].completed_after, Some(3));
    let seat = &trace.entries[3].tables.seats[0];
    assert_eq!(
        (seat.status, seat.holder.as_deref()),
        (SeatStatus::Held, Some("first"))
    );
}

#[tokio::test]
async fn an_unconditional_write_that_waited_still_writes_the_lost_update() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
             "actors": { "adam": { "defence": "transaction" }, "omar": { "defence": "transaction" } },
             "order": ["adam", "omar", "adam", "omar", "adam", "omar", "adam", "omar"] }"#,
    );
    let trace = execute(&pool().await, &s).await.expect("the run");
    assert_eq!(
        steps(&trace),
        [
            "ok",
            "ok",
            "ok:1",
            "ok:1",
            "ok:1",
            "waiting>ok:1",
            "ok",
            "ok"
        ]
    );
    assert!(trace.entries[2].seen[0].available && trace.entries[3].seen[0].available);
    assert_eq!(
        trace.entries[5].completed_after,
        Some(6),
        "omar's write completes when adam commits"
    );
    let seat = &trace.entries[7].tables.seats[0];
    assert_eq!(
        (seat.status, seat.holder.as_deref()),
        (SeatStatus::Booked, Some("omar"))
    );
}

#[tokio::test]
async fn repeatable_read_second_writer_waits_then_fails_with_40001() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
             "actors": { "adam": { "defence": "repeatable_read" }, "omar": { "defence": "repeatable_read" } },
             "order": ["adam", "omar", "adam", "omar", "adam", "omar", "adam", "omar"] }"#,
    );
    let trace = execute(&pool().await, &s).await.expect("the run");
    assert_eq!(
        steps(&trace),
        [
            "ok",
            "ok",
            "ok:1",
            "ok:1",
            "ok:1",
            "waiting>error:40001",
            "ok",
            "rolled_back"
        ]
    );
    let Some(StepResult::Error { message, .. }) = &trace.entries[5].result else {
        panic!("an error")
    };
    assert_eq!(
        message,
        "could not serialize access due to concurrent update"
    );
}

#[tokio::test]
async fn deadlock_victim_is_the_transaction_that_waited_first() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A1" }, { "id": "A2" } ] },
             "actors": {
               "ana": [ { "op": "begin" }, { "op": "lock", "seats": ["A1"] }, { "op": "lock", "seats": ["A2"] }, { "op": "commit" } ],
               "ben": [ { "op": "begin" }, { "op": "lock", "seats": ["A2"] }, { "op": "lock", "seats": ["A1"] }, { "op": "commit" } ] },
             "order": ["ana", "ben", "ana", "ben", "ana", "ben", "ana", "ben"] }"#,
    );
    let trace = execute(&pool().await, &s).await.expect("the run");
    assert_eq!(
        steps(&trace),
        [
            "ok",
            "ok",
            "ok:1",
            "ok:1",
            "waiting>error:40P01",
            "ok:1",
            "rolled_back",
            "ok"
        ]
    );
    assert_eq!(trace.entries[4].waited_for, ["ben"]);
    assert_eq!(
        trace.entries[4].completed_after,
        Some(5),
        "the victim fails when ben closes the cycle"
    );
}

#[tokio::test]
async fn nowait_fails_at_once_with_55p03_and_the_commit_of_that_transaction_rolls_back() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
             "actors": { "adam": { "defence": "lock_nowait" }, "omar": { "defence": "lock_nowait" } },
             "order": ["adam", "adam", "omar", "omar", "omar", "omar", "adam", "adam"] }"#,
    );
    let trace = execute(&pool().await, &s).await.expect("the run");
    assert_eq!(
        steps(&trace),
        [
            "ok",
            "ok:1",
            "ok",
            "error:55P03",
            "error:25P02",
            "rolled_back",
            "ok:1",
            "ok"
        ]
    );
    assert!(
        trace.entries[3].waited_for.is_empty(),
        "NOWAIT never queues"
    );
}

#[tokio::test]
async fn a_unique_insert_waits_for_the_uncommitted_one_then_gets_23505() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
             "actors": { "adam": [ { "op": "begin" }, { "op": "book", "seats": ["A7"] }, { "op": "commit" } ],
                         "omar": [ { "op": "book", "seats": ["A7"] } ] },
             "order": ["adam", "adam", "omar", "adam"] }"#,
    );
    let trace = execute(&pool().await, &s).await.expect("the run");
    assert_eq!(steps(&trace), ["ok", "ok:1", "waiting>error:23505", "ok"]);
    assert_eq!(trace.entries[3].tables.bookings.len(), 1);
    assert_eq!(trace.entries[3].tables.bookings[0].holder, "adam");
}

#[tokio::test]
async fn a_retried_hold_never_extends_its_deadline_and_finds_it_expired_once_replaced() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "show": 42, "hold_minutes": 5, "seats": [ { "id": "A14" } ] },
             "actors": {
               "a": [ { "op": "hold", "seats": ["A14"], "attempt": "t1" }, { "op": "hold", "seats": ["A14"], "attempt": "t1" },
                      { "op": "hold", "seats": ["A14"], "attempt": "t1" } ],
               "b": [ { "op": "hold", "seats": ["A14"] } ],
               "clock": [ { "op": "advance", "minutes": 3 }, { "op": "advance", "minutes": 3 } ] },
             "order": ["a", "clock", "a", "clock", "b", "a"] }"#,
    );
    let trace = execute(&pool().await, &s).await.expect("the run");
    assert_eq!(
        steps(&trace),
        ["held", "ok", "held", "ok", "held", "expired"]
    );
    let until = |k: usize| trace.entries[k].tables.seats[0].until;
    assert_eq!(
        (until(0), until(2)),
        (Some(5), Some(5)),
        "the retry at minute 3 keeps the deadline of minute 5"
    );
    assert_eq!(
        trace.entries[4].tables.seats[0].holder.as_deref(),
        Some("b")
    );
    assert_eq!(trace.entries[5].tables.clock, 6);
}

#[tokio::test]
async fn a_seat_held_and_a_seat_booked_at_the_start_are_seeded_with_their_initial_hold() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "clock": 7, "seats": [
               { "id": "A1", "status": "HELD", "holder": "a", "until": 9 }, { "id": "A2", "status": "BOOKED", "holder": "b" } ] },
             "actors": { "a": [ { "op": "read", "seats": ["A1", "A2"] } ] } }"#,
    );
    let trace = execute(&pool().await, &s).await.expect("the run");
    let t = &trace.initial;
    assert_eq!(t.clock, 7);
    assert_eq!(t.seats[0].hold_id.as_deref(), Some("a:initial"));
    assert_eq!(t.seats[1].hold_id.as_deref(), Some("b:initial"));
    assert_eq!(
        (
            t.bookings[0].seat.as_str(),
            t.bookings[0].booking_id.as_str()
        ),
        ("A2", "b:initial")
    );
    assert_eq!(steps(&trace), ["ok:2"]);
    assert!(trace.entries[0].seen.iter().all(|r| !r.available));
}

#[tokio::test]
async fn an_entry_naming_an_actor_whose_statement_still_waits_is_refused_with_its_index() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
             "actors": { "adam": { "defence": "lock_row" }, "omar": { "defence": "lock_row" } },
             "order": ["adam", "adam", "omar", "omar", "omar"] }"#,
    );
    match execute(&pool().await, &s).await {
        Err(ExecError::Schedule(e)) => {
            assert_eq!(e.field, "order[4]");
            assert_eq!(
                e.message,
                "omar's lock (entry 4) is still waiting for adam: omar can send nothing until adam commits or rolls back"
            );
        }
        other => panic!("expected a schedule error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_statement_still_waiting_at_the_end_is_left_without_a_result() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
             "actors": { "adam": { "defence": "lock_row" }, "omar": { "defence": "lock_row" } },
             "order": ["adam", "adam", "omar", "omar"] }"#,
    );
    let trace = execute(&pool().await, &s).await.expect("the run");
    assert_eq!(steps(&trace), ["ok", "ok:1", "ok", "waiting"]);
    assert_eq!(trace.entries[3].waited_for, ["adam"]);
    assert_eq!(trace.entries[3].completed_after, None);
}

/// Runs polled together by one `block_on` (as `#[tokio::test]` and `#[tokio::main]` poll them)
/// on a machine so loaded that the runtime's workers are preempted all the time: every run ends,
/// with a trace or a timeout, and none leaves its schema behind.
///
/// A run used to drain its actors' answers with tokio's `try_recv`, which parks the *thread*
/// while a send is half-way (a preempted worker); inside `block_on` that park swallowed the
/// wake-up of the caller's task, and every run that task polled stopped for good, timeouts
/// included. That took a preemption at the wrong instant, so this test meets it only by chance
/// (the next one rules its cause out for certain). The runs go on a thread of their own and
/// this thread waits for each to end with a plain (not tokio) timeout, so that a hang fails the
/// test instead of hanging it.
#[test]
fn runs_polled_together_by_block_on_on_a_loaded_machine_all_end_and_leave_nothing() {
    const AT_ONCE: usize = 4;
    // Six buyers: five wait on the first one's row lock, and its commit lets them through one
    // after the other, so that answers arrive while the run is taking the ones already in.
    let chain = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
             "actors": { "a": [ { "op": "begin" }, { "op": "claim", "seats": ["A7"] }, { "op": "commit" } ],
                         "b": [ { "op": "claim", "seats": ["A7"] } ], "c": [ { "op": "claim", "seats": ["A7"] } ],
                         "d": [ { "op": "claim", "seats": ["A7"] } ], "e": [ { "op": "claim", "seats": ["A7"] } ],
                         "f": [ { "op": "claim", "seats": ["A7"] } ] },
             "order": ["a", "a", "b", "c", "d", "e", "f", "a"] }"#,
    );
    let runs = vec![chain; 120];
    let total = runs.len();

    // Busy threads, twice as many as the cores, so that the workers are preempted mid-step.
    let stop = Arc::new(AtomicBool::new(false));
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let burners: Vec<_> = (0..2 * cores)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut x = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
                }
            })
        })
        .collect();

    let (ended_tx, ended) = mpsc::channel::<Result<(), String>>();
    let pid = std::process::id();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        rt.block_on(async move {
            let url = backend::db::database_url();
            let pool = PgPoolOptions::new()
                .max_connections((AT_ONCE * 7 + 2) as u32)
                .connect(&url)
                .await
                .expect("PostgreSQL");
            stream::iter(runs)
                .map(|s| {
                    let pool = pool.clone();
                    async move { execute(&pool, &s).await }
                })
                .buffer_unordered(AT_ONCE)
                .for_each(|result| {
                    let ended = match result {
                        Ok(_) | Err(ExecError::Timeout(_)) => Ok(()),
                        Err(e) => Err(e.to_string()),
                    };
                    let _ = ended_tx.send(ended);
                    async {}
                })
                .await;
        });
    });

    // One run's own bound, with room to spare: runs end one by one, so none may take longer.
    let patience = 2 * (RUN_TIMEOUT + CLOSE_BOUND);
    let mut failures = Vec::new();
    for n in 0..total {
        match ended.recv_timeout(patience) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => failures.push(e),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                stop.store(true, Ordering::Relaxed);
                panic!("{n} of {total} runs ended, then none for {patience:?}: the runs hang");
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                stop.store(true, Ordering::Relaxed);
                panic!("the thread of the runs died after {n} of {total} (its panic is above)");
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    burners
        .into_iter()
        .for_each(|b| b.join().expect("a busy thread"));
    assert!(failures.is_empty(), "runs failed: {failures:#?}");

    // Every schema of this process is gone or kept ready (other tests of this binary run at
    // the same time: their runs are short, so wait for a moment when none is running). The
    // ready schemas of the tests' pools that are gone are the sweep's (their runtimes, which
    // would have dropped them, are gone too).
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    let left = rt.block_on(async {
        let pool = pool().await;
        let start = Instant::now();
        loop {
            sweep_stale_schemas(&pool).await.expect("a sweep");
            let left: Vec<String> = sqlx::query_scalar(common::schemas::LEFT_BEHIND)
                .bind(format!("run\\_{pid}\\_%"))
                .bind(SCHEMA_LOCK_CLASS)
                .fetch_all(&pool)
                .await
                .expect("pg_namespace");
            if left.is_empty() || start.elapsed() > Duration::from_secs(30) {
                return left;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    assert!(left.is_empty(), "schemas left behind: {left:?}");
}

/// Nothing in the executor parks the thread that polls it. A future that blocks its thread
/// stalls a worker; one that parks it with tokio's thread parker (`try_recv` while a send is
/// half-way, the `blocking_*` calls, `block_on`) can also swallow the wake-up of a `block_on`
/// caller, whose task then never runs again (the hang the test above was written for).
#[test]
fn nothing_in_the_executor_parks_the_thread_that_polls_it() {
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src/executor")];
    let mut found = Vec::new();
    let mut read = 0;
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("src/executor") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            read += 1;
            let text = std::fs::read_to_string(&path).expect("a source file");
            for (i, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                let parks = [
                    ".try_recv(",
                    ".blocking_recv(",
                    ".blocking_send(",
                    ".blocking_lock(",
                    "block_on(",
                    "block_in_place(",
                ]
                .iter()
                .any(|call| code.contains(call));
                let sleeps = code.contains("thread::sleep") && !code.contains("spawn_blocking");
                if parks || sleeps {
                    found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        read > 20,
        "only {read} source files found under src/executor"
    );
    assert!(
        found.is_empty(),
        "calls that park the polling thread:\n{}",
        found.join("\n")
    );
}

/// A schema whose run is gone (nobody holds its lock any more) is swept; one whose run is alive
/// is kept, whichever process made it.
#[tokio::test]
async fn a_schema_whose_run_is_gone_is_swept_and_one_whose_run_lives_is_kept() {
    let pool = pool().await;
    // Pid 0 is no process: these names clash with no real run's.
    let n = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("a clock after 1970")
        .as_nanos()
        % 1_000_000_000_000;
    let (gone, alive) = (format!("run_0_{n}_1_lk"), format!("run_0_{n}_2_lk"));
    // The monitor of both runs; the run of `gone` ended without dropping its schema.
    let mut monitor = pool.acquire().await.expect("a connection");
    for name in [&gone, &alive] {
        sqlx::raw_sql(&format!(
            "select pg_advisory_lock({SCHEMA_LOCK_CLASS}, hashtext('{name}')); create schema \"{name}\""
        ))
        .execute(&mut *monitor)
        .await
        .expect("a schema");
    }
    sqlx::query("select pg_advisory_unlock($1, hashtext($2))")
        .bind(SCHEMA_LOCK_CLASS)
        .bind(&gone)
        .execute(&mut *monitor)
        .await
        .expect("an unlock");

    sweep_stale_schemas(&pool).await.expect("a sweep");

    let left: Vec<String> = sqlx::query_scalar(
        "select nspname::text from pg_namespace where nspname in ($1, $2) order by 1",
    )
    .bind(&gone)
    .bind(&alive)
    .fetch_all(&pool)
    .await
    .expect("pg_namespace");
    sqlx::raw_sql(&format!(
        "drop schema \"{alive}\"; select pg_advisory_unlock_all()"
    ))
    .execute(&mut *monitor)
    .await
    .expect("the clean-up");
    assert_eq!(left, [alive]);
}

/// A run that cannot get all its connections (the pool is too small for it) ends within its
/// bound, and gives back those it got: a run that fits the same pool runs right after.
#[tokio::test]
async fn a_run_that_cannot_get_its_connections_ends_in_time_and_gives_back_those_it_got() {
    let pool = PgPoolOptions::new()
        .max_connections(2)
        .connect(&backend::db::database_url())
        .await
        .expect("PostgreSQL");
    let too_big = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
             "actors": { "adam": [ { "op": "read", "seats": ["A7"] } ], "omar": [ { "op": "read", "seats": ["A7"] } ] } }"#,
    );
    match execute_within(&pool, &too_big, Duration::from_secs(1)).await {
        Err(ExecError::Timeout(_)) | Err(ExecError::Database(sqlx::Error::PoolTimedOut)) => {}
        other => panic!("expected a timeout, got {other:?}"),
    }
    let fits = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
             "actors": { "adam": [ { "op": "read", "seats": ["A7"] } ] } }"#,
    );
    let trace = execute(&pool, &fits)
        .await
        .expect("a run that fits the pool");
    assert_eq!(steps(&trace), ["ok:1"]);
}

/// A ready schema keeps its actors' connections, set up for it, for the runs after: they run
/// the next order without being set up again and are never reset for the pool (no session of
/// the runs' pool ends on `reset all`), whether the next run has as many actors, fewer (the rest
/// wait with the schema) or more (the rest come from the pool), and every run answers as the
/// first of its schedule did.
#[tokio::test]
async fn a_ready_schema_runs_the_next_orders_on_the_actors_connections_it_kept() {
    const APP: &str = "lastseat_test_kept_connections";
    let pool = pool_named(APP).await;
    let three = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
             "actors": { "adam": { "defence": "transaction" }, "omar": { "defence": "transaction" },
                         "zoe": { "defence": "transaction" } },
             "order": ["adam", "omar", "zoe", "adam", "omar", "zoe", "adam", "omar", "adam", "zoe", "omar", "zoe"] }"#,
    );
    let two = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
             "actors": { "adam": [ { "op": "claim", "seats": ["A7"] } ], "omar": [ { "op": "claim", "seats": ["A7"] } ] } }"#,
    );
    let mut first = std::collections::BTreeMap::new();
    for s in [&three, &three, &three, &two, &two, &three, &three] {
        let trace = execute(&pool, s).await.expect("the run");
        let expected = first
            .entry(s.actors().len())
            .or_insert_with(|| steps(&trace));
        assert_eq!(&steps(&trace), expected);
    }
    let observer = pool_named("lastseat_test_observer").await;
    let (reset, kept): (i64, i64) = sqlx::query_as(
        "select count(*) filter (where query = 'reset all'),
                count(*) filter (where query = 'commit')
           from pg_stat_activity where application_name = $1",
    )
    .bind(APP)
    .fetch_one(&observer)
    .await
    .expect("pg_stat_activity");
    backend::executor::shutdown(&pool).await;
    assert_eq!(reset, 0, "actors' connections were reset for the pool");
    assert!(kept >= 3, "{kept} actors' connections kept, not 3");
}
