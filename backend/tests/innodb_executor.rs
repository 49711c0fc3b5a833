//! The executor on MariaDB, on a private `mariadbd` that the test starts (never the shared
//! server): a run's database is dropped after the run, a stale one is swept, a connection
//! killed mid-run and a run with the server stopped are faults, not panics nor traces (and
//! `POST /api/runs` answers 503 naming MariaDB).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use backend::AppState;
use shared::Schedule;
use sqlx::mysql::MySqlPool;
use sqlx::postgres::PgPoolOptions;

/// Two buyers who lock two seats in opposite orders: InnoDB breaks the deadlock as it closes.
const DEADLOCK: &str = r#"{ "version": 1, "engine": "innodb",
  "scenario": { "seats": [ { "id": "A1" }, { "id": "A2" } ] },
  "actors": {
    "ana": [ { "op": "begin" }, { "op": "lock", "seats": ["A1"] }, { "op": "lock", "seats": ["A2"] }, { "op": "commit" } ],
    "ben": [ { "op": "begin" }, { "op": "lock", "seats": ["A2"] }, { "op": "lock", "seats": ["A1"] }, { "op": "commit" } ] },
  "order": ["ana", "ben", "ana", "ben", "ana", "ben", "ana", "ben"] }"#;

/// Ben waits for Ana's lock on A1 until she commits.
const WAIT: &str = r#"{ "version": 1, "engine": "innodb",
  "scenario": { "seats": [ { "id": "A1" } ] },
  "actors": {
    "ana": [ { "op": "begin" }, { "op": "lock", "seats": ["A1"] }, { "op": "commit" } ],
    "ben": [ { "op": "begin" }, { "op": "lock", "seats": ["A1"] }, { "op": "commit" } ] },
  "order": ["ana", "ana", "ben", "ben", "ana", "ben"] }"#;

/// A mariadbd of the test's own, in a throwaway data directory, on a free port.
struct PrivateMariaDb {
    child: Option<Child>,
    dir: PathBuf,
    port: u16,
}

impl PrivateMariaDb {
    fn start(name: &str) -> PrivateMariaDb {
        let bin = ["/usr/sbin/mariadbd", "/usr/bin/mariadbd"]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
            .expect("mariadbd (Debian's mariadb-server; scripts/test installs it)");
        let dir = std::env::temp_dir().join(format!("lastseat-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let root = unsafe { libc::geteuid() } == 0;
        let user: &[&str] = if root { &["--user=root"] } else { &[] };
        let data = dir.join("data");
        let install = Command::new("mariadb-install-db")
            .arg("--no-defaults")
            .args(user)
            .arg(format!("--datadir={}", data.display()))
            .args(["--auth-root-authentication-method=normal", "--skip-test-db"])
            .output()
            .expect("mariadb-install-db");
        assert!(
            install.status.success(),
            "mariadb-install-db: {}",
            String::from_utf8_lossy(&install.stderr)
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(bin)
            .arg("--no-defaults")
            .args(user)
            .arg(format!("--datadir={}", data.display()))
            .arg(format!("--port={port}"))
            .arg("--bind-address=127.0.0.1")
            .arg(format!("--socket={}", dir.join("mysqld.sock").display()))
            .arg(format!("--log-error={}", dir.join("error.log").display()))
            .args(["--skip-log-bin", "--innodb-buffer-pool-size=32M"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("mariadbd");
        PrivateMariaDb {
            child: Some(child),
            dir,
            port,
        }
    }

    fn url(&self) -> String {
        format!("mysql://root@127.0.0.1:{}/mysql", self.port)
    }

    /// Waits until it answers; its pool.
    async fn ready(&self) -> MySqlPool {
        let pool = backend::innodb::pool(&self.url()).expect("a URL");
        for _ in 0..300 {
            if sqlx::query("select 1").execute(&pool).await.is_ok() {
                return pool;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!(
            "the private mariadbd does not answer: {}",
            std::fs::read_to_string(self.dir.join("error.log")).unwrap_or_default()
        );
    }

    /// Stops it (SIGKILL: a server that goes away without a word) and waits for it to go.
    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for PrivateMariaDb {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn run_databases(pool: &MySqlPool) -> Vec<String> {
    sqlx::query_scalar(
        "select cast(schema_name as char) from information_schema.schemata \
         where schema_name like 'lastseat\\_run\\_%'",
    )
    .fetch_all(pool)
    .await
    .expect("the schemata")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_drops_its_database_and_a_run_on_a_stopped_server_is_a_fault() {
    let schedule = Schedule::parse_json(DEADLOCK).expect("an InnoDB schedule");
    let mut server = PrivateMariaDb::start("innodb-executor");
    let pool = server.ready().await;

    // A run: the deadlock broken at once (one victim, 1213), and its database dropped after.
    let trace = backend::innodb::execute(&pool, &schedule)
        .await
        .expect("the run");
    let victims = trace
        .entries
        .iter()
        .filter(|e| matches!(&e.result, Some(shared::outcome::StepResult::Error { code, .. }) if code.is_deadlock()))
        .count();
    assert_eq!(victims, 1, "one deadlock victim: {:#?}", trace.entries);
    assert_eq!(run_databases(&pool).await, Vec::<String>::new());

    // A database no run owns (its name's lock free) is swept.
    sqlx::query("create database lastseat_run_1_0_00000000")
        .execute(&pool)
        .await
        .expect("a stale database");
    assert_eq!(
        backend::innodb::sweep_stale_databases(&pool)
            .await
            .expect("the sweep"),
        1
    );
    assert_eq!(run_databases(&pool).await, Vec::<String>::new());

    // A session killed while its statement waits: a fault, and the run's database still goes.
    // The killer looks for the waiting statement while the run goes on; on a machine too busy
    // for it to kill the wait in time, the run ends as the model's and is tried again.
    let wait = Schedule::parse_json(WAIT).expect("an InnoDB schedule");
    let mut faulted = false;
    for _ in 0..5 {
        let killer = {
            let pool = pool.clone();
            tokio::spawn(async move {
                loop {
                    let waiting: Option<i64> = sqlx::query_scalar(
                        "select cast(id as signed) from information_schema.processlist \
                         where db like 'lastseat\\_run\\_%' and info like '%for update%' \
                         and time_ms > 5 limit 1",
                    )
                    .fetch_optional(&pool)
                    .await
                    .expect("the processlist");
                    if let Some(id) = waiting {
                        sqlx::query(&format!("kill connection {id}"))
                            .execute(&pool)
                            .await
                            .expect("kill");
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
            })
        };
        match backend::innodb::execute(&pool, &wait).await {
            Err(err) => {
                assert!(err.is_fault(), "a killed session is a fault: {err:?}");
                killer.await.expect("the killer");
                faulted = true;
                break;
            }
            Ok(trace) => {
                // The killer saw the wait too late (a busy machine: the statement went on, the
                // run ended, then the kill landed on a finished session), or not at all. Either
                // way the run it did not stop must be the model's exactly: a killed wait
                // passed off as an answer would differ from it.
                killer.abort();
                let simulated = shared::engine::simulate(&wait).expect("the model runs it");
                let differences = shared::assess::compare_in(
                    &wait,
                    &shared::assess::assess(&wait, simulated),
                    &shared::assess::assess(&wait, trace),
                );
                assert_eq!(differences, Vec::<String>::new(), "a run the kill missed");
            }
        }
    }
    assert!(faulted, "in five runs the killer never found the wait");
    assert_eq!(run_databases(&pool).await, Vec::<String>::new());

    // The server goes away: a run is a fault, never a panic nor a trace.
    server.stop();
    let err = backend::innodb::execute(&pool, &schedule)
        .await
        .expect_err("no server, no run");
    assert!(err.is_fault(), "a fault: {err:?}");

    // Through the API: 503, naming MariaDB. PostgreSQL is not needed for an InnoDB run.
    let pg = PgPoolOptions::new()
        .connect_lazy("postgres://postgres@127.0.0.1:1/postgres")
        .expect("a lazy pool");
    let state = AppState::new(pg, None).with_mariadb(Some(pool));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port 0");
    let addr = listener.local_addr().expect("the bound address");
    tokio::spawn(backend::serve(listener, state));
    let response = reqwest::Client::new()
        .post(format!("http://{addr}/api/runs"))
        .header("content-type", "application/json")
        .body(DEADLOCK)
        .send()
        .await
        .expect("the request");
    assert_eq!(response.status(), reqwest::StatusCode::SERVICE_UNAVAILABLE);
    let body = response.text().await.expect("a body");
    assert!(body.contains("MariaDB is not reachable"), "{body}");
}
