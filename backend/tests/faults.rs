//! Faults of the database, each on a private cluster of its own that the test starts (never the
//! shared server): a restart with runs in flight, a session killed mid-run, a backend stopped
//! mid-run, and a server started while PostgreSQL is down. Each is driven through the real
//! HTTP server (on port 0, or the real `backend serve`), and each ends with nothing left: no
//! run schema, no connection in a transaction.
//!
//! The figures of the issue are printed (run with `--nocapture` to see them), not asserted.

#[path = "common/cluster.rs"]
mod cluster;
#[path = "common/observe.rs"]
mod observe;
#[path = "common/page.rs"]
mod page;
#[path = "common/schemas.rs"]
mod schemas;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use backend::{db, AppState};
use cluster::Cluster;
use observe::{connections, observer, schemas, settled, terminate, waiting_on_a_lock, PATIENCE};
use reqwest::StatusCode;
use serde_json::Value;
use sqlx::PgPool;

/// Two buyers who lock two seats in opposite orders: PostgreSQL breaks the deadlock after its
/// `deadlock_timeout` (1 s), so the run has a buyer waiting on a lock for about a second.
const DEADLOCK: &str = r#"{ "version": 1, "scenario": { "seats": [ { "id": "A1" }, { "id": "A2" } ] },
  "actors": {
    "ana": [ { "op": "begin" }, { "op": "lock", "seats": ["A1"] }, { "op": "lock", "seats": ["A2"] }, { "op": "commit" } ],
    "ben": [ { "op": "begin" }, { "op": "lock", "seats": ["A2"] }, { "op": "lock", "seats": ["A1"] }, { "op": "commit" } ] },
  "order": ["ana", "ben", "ana", "ben", "ana", "ben", "ana", "ben"] }"#;

/// The deadlock, and a third buyer who holds a seat and sends nothing more: a session that is
/// idle in its transaction while the others wait.
const DEADLOCK_AND_IDLE: &str = r#"{ "version": 1,
  "scenario": { "seats": [ { "id": "A1" }, { "id": "A2" }, { "id": "A3" } ] },
  "actors": {
    "cid": [ { "op": "begin" }, { "op": "lock", "seats": ["A3"] } ],
    "ana": [ { "op": "begin" }, { "op": "lock", "seats": ["A1"] }, { "op": "lock", "seats": ["A2"] }, { "op": "commit" } ],
    "ben": [ { "op": "begin" }, { "op": "lock", "seats": ["A2"] }, { "op": "lock", "seats": ["A1"] }, { "op": "commit" } ] },
  "order": ["cid", "cid", "ana", "ben", "ana", "ben", "ana", "ben", "ana", "ben"] }"#;

/// A built page with an index.html, in a directory of its own.
fn dist(name: &str) -> PathBuf {
    page::page_dir(&format!("faults-{name}"), page::PLAIN)
}

/// Starts the real server on port 0 with runs bounded by `limit`; its base URL.
async fn spawn_app(pool: PgPool, limit: Duration, name: &str) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port 0");
    let addr = listener.local_addr().expect("the bound address");
    let state = AppState::new(pool, Some(dist(name))).with_run_limit(limit);
    tokio::spawn(backend::serve(listener, state));
    format!("http://{addr}")
}

/// The pool a server on `cluster` uses, its connections named `app`.
async fn server_pool(cluster: &Cluster, app: &str, max: u32) -> PgPool {
    db::connect(&cluster.url(app), max)
        .await
        .unwrap_or_else(|e| panic!("the private cluster: {e}\n{}", cluster.log()))
}

async fn post_run(base: &str, body: &str) -> (StatusCode, Value) {
    let response = reqwest::Client::new()
        .post(format!("{base}/api/runs"))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("the request");
    let status = response.status();
    let text = response.text().await.expect("a body");
    let body =
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON ({status}): {text}"));
    (status, body)
}

fn message(body: &Value) -> &str {
    body["error"]["message"].as_str().unwrap_or("")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_turns_no_run_into_a_500_and_leaves_nothing_behind() {
    const APP: &str = "lastseat_faults_restart";
    let cluster = Cluster::start();
    let observer = observer(&cluster);
    let base = spawn_app(
        server_pool(&cluster, APP, 40).await,
        Duration::from_secs(30),
        "restart",
    )
    .await;
    let (status, body) = post_run(&base, DEADLOCK).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    // Nothing in flight: the pool keeps only connections that died with the old server, and
    // the next run and health check retry on fresh ones without a word.
    cluster.restart();
    let (status, body) = post_run(&base, DEADLOCK).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the first run after a restart: {body}"
    );
    assert_eq!(body["agree"], true, "{}", body["differences"]);
    cluster.restart();
    let health = reqwest::get(format!("{base}/api/health"))
        .await
        .expect("health");
    assert_eq!(health.status(), StatusCode::OK, "health after a restart");

    // Eight runs at once (four run, four queue for a turn), restarted while they wait on locks.
    let runs: Vec<_> = (0..8)
        .map(|_| {
            let base = base.clone();
            tokio::spawn(async move { post_run(&base, DEADLOCK).await })
        })
        .collect();
    waiting_on_a_lock(&observer, APP, 1).await;
    let restarted = Instant::now();
    cluster.restart();
    let restart_took = restarted.elapsed();
    let (mut ok, mut unavailable, mut errors) = (0, Vec::new(), Vec::new());
    for run in runs {
        let (status, body) = run.await.expect("a run's request");
        match status {
            StatusCode::OK => {
                assert_eq!(
                    body["agree"], true,
                    "a fault is never a disagreement: {body}"
                );
                ok += 1;
            }
            StatusCode::SERVICE_UNAVAILABLE => unavailable.push(message(&body).to_string()),
            _ => errors.push(format!("{status}: {body}")),
        }
    }
    let left_at_once = schemas(&observer).await.map(|s| s.len()).unwrap_or(0);
    let swept = settled(&observer, APP).await;
    let (total, _) = connections(&observer, APP).await.expect("pg_stat_activity");
    eprintln!(
        "figure: restart with 8 runs in flight (restart took {restart_took:.1?}): {ok} × 200, {} × 503, {} × other (500s: {}); \
         schemas left at once {left_at_once}, swept in {swept:.1?}; {total} idle connections of the server's pool left open",
        unavailable.len(),
        errors.len(),
        errors.iter().filter(|e| e.starts_with("500")).count()
    );
    for m in &unavailable {
        eprintln!("figure:   503: {m}");
    }
    assert!(
        errors.is_empty(),
        "answers that are neither 200 nor 503: {errors:#?}"
    );
    assert!(
        unavailable.iter().all(|m| m.contains("restarted")
            || m.contains("connection was lost")
            || m.contains("database is unavailable")),
        "a 503 that does not say the database went away: {unavailable:#?}"
    );
    swept.expect("after the restart, everything is given back");

    // A longer outage, with runs in flight: their clean-ups cannot reach the database before
    // they give up (the pool's acquire timeout is 5 s), so their schemas are the sweep's.
    let runs: Vec<_> = (0..4)
        .map(|_| {
            let base = base.clone();
            tokio::spawn(async move { post_run(&base, DEADLOCK).await })
        })
        .collect();
    waiting_on_a_lock(&observer, APP, 1).await;
    cluster.stop();
    let mut statuses = Vec::new();
    for run in runs {
        let (status, body) = run.await.expect("a run's request");
        assert!(
            status == StatusCode::SERVICE_UNAVAILABLE
                || (status == StatusCode::OK && body["agree"] == true),
            "{status}: {body}"
        );
        statuses.push(status.as_u16());
    }
    tokio::time::sleep(Duration::from_secs(6)).await;
    cluster.start_again();
    let left_when_back = schemas(&observer).await.map(|s| s.len()).unwrap_or(0);
    let swept = settled(&observer, APP)
        .await
        .expect("after the outage, everything is given back");
    eprintln!(
        "figure: 6 s outage with 4 runs in flight: answers {statuses:?}; {left_when_back} schema(s) left when the database came back, swept in {swept:.1?}"
    );
    let (status, body) = post_run(&base, DEADLOCK).await;
    assert_eq!(status, StatusCode::OK, "a run after it all: {body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_killed_mid_run_is_a_503_that_says_the_connection_was_lost() {
    const APP: &str = "lastseat_faults_killed";
    let cluster = Cluster::start();
    let observer = observer(&cluster);
    let base = spawn_app(
        server_pool(&cluster, APP, 20).await,
        Duration::from_secs(30),
        "killed",
    )
    .await;

    // A buyer ended while its statement waits on a lock: the statement's answer is 57P01.
    let run = tokio::spawn({
        let base = base.clone();
        async move { post_run(&base, DEADLOCK).await }
    });
    let pid = waiting_on_a_lock(&observer, APP, 1).await[0];
    terminate(&observer, pid).await;
    let (status, body) = run.await.expect("the run's request");
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(
        message(&body).contains("connection was lost during the run"),
        "{body}"
    );
    let waiting = settled(&observer, APP)
        .await
        .expect("after a waiting session was ended");

    // A buyer ended while idle in its transaction, with nothing more to send: no statement
    // answers with an error, but the run does not report what its absence did.
    let run = tokio::spawn({
        let base = base.clone();
        async move { post_run(&base, DEADLOCK_AND_IDLE).await }
    });
    waiting_on_a_lock(&observer, APP, 2).await;
    let idle: i32 = sqlx::query_scalar(
        "select pid from pg_stat_activity where application_name = $1 and state = 'idle in transaction'",
    )
    .bind(APP)
    .fetch_one(&observer)
    .await
    .expect("the buyer idle in its transaction");
    terminate(&observer, idle).await;
    let (status, body) = run.await.expect("the run's request");
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(
        message(&body).contains("connection was lost during the run"),
        "{body}"
    );
    let idle_settled = settled(&observer, APP)
        .await
        .expect("after an idle session was ended");
    eprintln!(
        "figure: a killed session: 503 both times; nothing left {waiting:.1?} (waiting) and {idle_settled:.1?} (idle) after the answer"
    );

    let (status, body) = post_run(&base, DEADLOCK).await;
    assert_eq!(status, StatusCode::OK, "a run after the kills: {body}");
    assert_eq!(body["agree"], true, "{}", body["differences"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_backend_is_answered_at_the_bound_and_cleaned_up_once_it_goes_on() {
    const APP: &str = "lastseat_faults_stopped";
    let limit = Duration::from_secs(3);
    let cluster = Cluster::start();
    let observer = observer(&cluster);
    let base = spawn_app(server_pool(&cluster, APP, 20).await, limit, "stopped").await;

    let started = Instant::now();
    let run = tokio::spawn({
        let base = base.clone();
        async move {
            let answer = post_run(&base, DEADLOCK).await;
            (answer, Instant::now())
        }
    });
    let pid = waiting_on_a_lock(&observer, APP, 1).await[0];
    cluster.stop_backend(pid);
    let ((status, body), answered) = run.await.expect("the run's request");
    let took = answered - started;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(message(&body).contains("did not finish in time"), "{body}");
    // The clean-up's own bounds add up to 45 s; the answer does not wait for them.
    assert!(
        took < limit + Duration::from_secs(15),
        "answered after {took:?} though the bound is {limit:?}"
    );
    let while_stopped = schemas(&observer).await.expect("pg_namespace").len();

    cluster.continue_backend(pid);
    let cleaned = settled(&observer, APP)
        .await
        .expect("after the backend went on");
    let (connections, _) = connections(&observer, APP).await.expect("pg_stat_activity");
    eprintln!(
        "figure: stopped backend: answered after {took:.1?} (bound {limit:?}); {while_stopped} schema(s) while stopped; \
         nothing left {cleaned:.1?} after SIGCONT ({connections} idle connections of the pool)"
    );
    let (status, body) = post_run(&base, DEADLOCK).await;
    assert_eq!(status, StatusCode::OK, "a run after it: {body}");

    // Stopped again, and killed instead of continued: PostgreSQL ends every session and
    // recovers as after a crash; the clean-up (or the sweep) still drops the schema.
    let started = Instant::now();
    let run = tokio::spawn({
        let base = base.clone();
        async move { post_run(&base, DEADLOCK).await }
    });
    let pid = waiting_on_a_lock(&observer, APP, 1).await[0];
    cluster.stop_backend(pid);
    let (status, body) = run.await.expect("the run's request");
    let took = started.elapsed();
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(message(&body).contains("did not finish in time"), "{body}");
    cluster.kill_backend(pid);
    let cleaned = settled(&observer, APP)
        .await
        .expect("after the backend was killed");
    eprintln!(
        "figure: stopped then killed backend: answered after {took:.1?}; nothing left {cleaned:.1?} after SIGKILL"
    );
    let (status, body) = post_run(&base, DEADLOCK).await;
    assert_eq!(status, StatusCode::OK, "a run after the crash: {body}");
    assert_eq!(body["agree"], true, "{}", body["differences"]);
}

/// The real `backend serve`, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_started_while_the_database_is_down_answers_503_then_recovers() {
    const APP: &str = "lastseat_faults_down";
    let cluster = Cluster::create();
    let dist = dist("down");
    let mut child = Command::new(env!("CARGO_BIN_EXE_backend"))
        .args(["serve", "--addr", "127.0.0.1:0", "--dist"])
        .arg(&dist)
        .env("DATABASE_URL", cluster.url(APP))
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("backend serve starts");
    let stdout = child.stdout.take().expect("its stdout");
    let stderr = child.stderr.take().expect("its stderr");
    let server = Server(child);
    let said = Arc::new(Mutex::new(String::new()));
    std::thread::spawn({
        let said = said.clone();
        move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut said = said.lock().unwrap_or_else(|p| p.into_inner());
                said.push_str(&line);
                said.push('\n');
            }
        }
    });
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(at) = line.strip_prefix("Last Seat is at ") {
                let _ = tx.send(at.to_string());
            }
        }
    });
    let base = rx.recv_timeout(PATIENCE).unwrap_or_else(|_| {
        let text = said.lock().unwrap().clone();
        panic!("backend serve did not start: {text}")
    });
    // Printed before the address, but read by another thread: give it a moment.
    let warned = Instant::now();
    loop {
        let text = said.lock().unwrap().clone();
        if text.contains("warning: PostgreSQL") {
            break;
        }
        assert!(warned.elapsed() < PATIENCE, "no clear warning: {text}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let page = reqwest::get(format!("{base}/")).await.expect("the page");
    assert_eq!(
        page.status(),
        StatusCode::OK,
        "the page is served without the database"
    );
    let health = reqwest::get(format!("{base}/api/health"))
        .await
        .expect("health");
    assert_eq!(health.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: Value = health.json().await.expect("JSON");
    assert!(message(&body).contains("not available yet"), "{body}");
    assert!(message(&body).contains("connection refused"), "{body}");
    let (status, body) = post_run(&base, DEADLOCK).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(message(&body).contains("not available yet"), "{body}");

    cluster.start_again();
    let up = Instant::now();
    let recovered = loop {
        let health = reqwest::get(format!("{base}/api/health"))
            .await
            .expect("health");
        if health.status() == StatusCode::OK {
            break up.elapsed();
        }
        let text = said.lock().unwrap().clone();
        assert!(
            up.elapsed() < PATIENCE,
            "the server never connected: {text}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let (status, body) = post_run(&base, DEADLOCK).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["agree"], true, "{}", body["differences"]);
    let migrations: i64 = sqlx::query_scalar("select count(*) from _sqlx_migrations where success")
        .fetch_one(&observer(&cluster))
        .await
        .expect("the migrations' table");
    assert!(migrations > 0);
    eprintln!("figure: database down at start: 503 with the reason, then up {recovered:.1?} after the cluster started");
    drop(server);
}
