//! The exports, run for real. Each buyer's psql script, taken step by step in the order of the
//! schedule on a connection of its own, gets the answers the outcome recorded (the same rows,
//! the same errors, the same waits) and leaves the same tables; the isolation spec, run by
//! PostgreSQL's own isolation tester, prints exactly the expected output; the JSON fixture
//! replays on PostgreSQL and meets its `expect`. The cases include every counter shape (a
//! section's tickets, a balance, a rate limit, a coupon), whose setup seeds the counter's table.

mod common;

use std::collections::BTreeMap;
use std::process::Stdio;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use backend::db;
use backend::executor::execute;
use futures::TryStreamExt;
use shared::assess::{assess, check_expect};
use shared::export::{fixture_json, isolation_spec_in, psql_scripts_in, setup_label};
use shared::outcome::{Answer, Outcome, SeatRow};
use shared::schedule::{Op, SeatStatus, CLOCK};
use shared::{engine, scenarios, sql, Defence, Schedule};
use sqlx::postgres::PgRow;
use sqlx::{Connection, Either, PgConnection, Row};
use tokio::io::AsyncWriteExt;
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

/// How long an answer the outcome expects may take (a deadlock is broken after 1 s).
const ANSWER_LIMIT: Duration = Duration::from_secs(10);

static SCHEMAS: AtomicU32 = AtomicU32::new(0);

/// The tests of this file take turns, so that a deadlock is broken on time: its victim is the
/// session whose `deadlock_timeout` runs out first once the cycle is closed.
static ONE_AT_A_TIME: Mutex<()> = Mutex::const_new(());

/// A fresh schema name, named like the executor's and dropped at the end of each case.
fn schema_name() -> String {
    format!(
        "run_{}_exports_{}",
        std::process::id(),
        SCHEMAS.fetch_add(1, Ordering::Relaxed)
    )
}

/// A built-in with the given order (its own when empty).
fn builtin(id: &str, order: &[&str]) -> (String, Schedule) {
    let b = scenarios::get(id).expect("a built-in");
    let mut file = b.file.clone();
    if !order.is_empty() {
        file.order = order.iter().map(|s| s.to_string()).collect();
        file.expect = None;
    }
    let schedule = Schedule::parse(file).unwrap_or_else(|e| panic!("{id}: {e}"));
    (format!("{id} {order:?}"), schedule)
}

/// A counter built-in with every buyer on `defence`, in `order` (taking turns when empty).
fn counter(id: &str, defence: Defence, order: &[&str]) -> (String, Schedule) {
    let b = scenarios::get(id).expect("a built-in");
    let mut file = b.file_with_defence(Some(defence));
    file.order = order.iter().map(|s| s.to_string()).collect();
    let schedule = Schedule::parse(file).unwrap_or_else(|e| panic!("{id}: {e}"));
    (format!("{id} with {defence} {order:?}"), schedule)
}

fn exported(file: &str) -> (String, Schedule) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schedules")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    (file.to_string(), common::schedule(&text))
}

/// A deadlock followed by a third buyer's steps: the isolation spec must wait for the deadlock
/// to be broken before it sends them.
const DEADLOCK_THEN_A_THIRD_BUYER: &str = r#"{ "version": 1, "name": "a deadlock, then carl",
  "scenario": { "seats": [ { "id": "A1" }, { "id": "A2" } ] },
  "actors": {
    "ana": [ { "op": "begin" }, { "op": "lock", "seats": ["A1"] }, { "op": "lock", "seats": ["A2"] }, { "op": "commit" } ],
    "ben": [ { "op": "begin" }, { "op": "lock", "seats": ["A2"] }, { "op": "lock", "seats": ["A1"] }, { "op": "commit" } ],
    "carl": [ { "op": "read", "seats": ["A1", "A2"] }, { "op": "claim", "seats": ["A2"] } ] },
  "order": ["ana", "ben", "ana", "ben", "ana", "ben", "carl", "carl", "ana", "ben"] }"#;

fn cases() -> Vec<(String, Schedule)> {
    vec![
        builtin("ch4-check_then_act", &[]),
        builtin("ch4-check_then_act", &["adam", "adam", "omar", "omar"]),
        builtin(
            "ch4-lock_row",
            &[
                "adam", "adam", "omar", "omar", "adam", "adam", "omar", "omar",
            ],
        ),
        builtin("ch4-transaction", &[]),
        builtin(
            "ch4-repeatable_read",
            &[
                "adam", "adam", "omar", "omar", "adam", "omar", "adam", "omar",
            ],
        ),
        builtin("ch4-serializable", &[]),
        builtin("ch4-unique_constraint", &[]),
        builtin("ch1-unique-safety-net", &[]),
        builtin("ch1-family-nowait", &[]),
        builtin("ch1-confirm-three-answers", &[]),
        builtin("ch2-expiry_only", &[]),
        builtin("ch2-release_on_exit", &[]),
        builtin("ch3-retry-never-extends", &[]),
        builtin("ch3-now-transaction", &[]),
        builtin("ch3-now-evaluation", &[]),
        builtin("ch4-late-payment", &[]),
        exported("deadlock-victim-is-the-first-waiter.json"),
        (
            "a deadlock, then carl".to_string(),
            common::schedule(DEADLOCK_THEN_A_THIRD_BUYER),
        ),
        // Both check 150 first, both withdraw 100: the second waits, then takes 50 to -50.
        counter(
            "shapes-balance",
            Defence::Transaction,
            &[
                "adam", "omar", "adam", "omar", "adam", "omar", "adam", "omar",
            ],
        ),
        counter(
            "shapes-balance",
            Defence::RepeatableRead,
            &[
                "adam", "omar", "adam", "omar", "adam", "omar", "adam", "omar",
            ],
        ),
        counter("shapes-general_admission", Defence::LockRow, &[]),
        counter("shapes-general_admission", Defence::AtomicUpdate, &[]),
        counter("shapes-rate_limit", Defence::LockNowait, &[]),
        counter("shapes-rate_limit", Defence::SkipLocked, &[]),
        counter(
            "shapes-coupon",
            Defence::CheckThenAct,
            &["adam", "omar", "adam", "omar"],
        ),
    ]
}

/// Usernames, for the isolation tester: a check that finds the name free or taken, an account
/// created twice, the key's refusal after a wait, the claim that does nothing on a conflict.
fn username_cases() -> Vec<(String, Schedule)> {
    vec![
        counter(
            "shapes-username",
            Defence::CheckThenAct,
            &["adam", "omar", "adam", "omar"],
        ),
        counter("shapes-username", Defence::UniqueConstraint, &[]),
        counter("shapes-username", Defence::AtomicUpdate, &[]),
        counter("shapes-username", Defence::LockRow, &[]),
        counter("shapes-username", Defence::Serializable, &[]),
    ]
}

fn simulated(schedule: &Schedule) -> Outcome {
    assess(
        schedule,
        engine::simulate(schedule).expect("the cases can run"),
    )
}

// ---- psql scripts ----

/// A script cut at its step headings: what runs before step 1, then each step's SQL (`None`
/// for a step that sends nothing).
struct Script {
    preamble: String,
    steps: BTreeMap<usize, Option<String>>,
}

fn cut(text: &str) -> Script {
    let mut preamble = String::new();
    let mut steps = BTreeMap::new();
    let mut current: Option<(usize, String)> = None;
    let mut flush = |current: Option<(usize, String)>| {
        if let Some((n, sql)) = current {
            steps.insert(n, (!sql.is_empty()).then_some(sql));
        }
    };
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("-- step ") {
            let n = rest.split(' ').next().and_then(|n| n.parse().ok());
            flush(current.take());
            current = Some((n.expect("a step number"), String::new()));
        } else if let Some((_, sql)) = &mut current {
            if !line.starts_with("--") && !line.trim().is_empty() {
                sql.push_str(line);
                sql.push('\n');
            }
        } else {
            preamble.push_str(line);
            preamble.push('\n');
        }
    }
    flush(current);
    Script { preamble, steps }
}

/// What a statement returned: its rows, and the rows it changed.
type Answered = Result<(Vec<PgRow>, u64), sqlx::Error>;

async fn run_sql(conn: Arc<Mutex<PgConnection>>, sql: String) -> Answered {
    let mut conn = conn.lock().await;
    let mut rows = Vec::new();
    let mut affected = 0;
    let mut stream = sqlx::raw_sql(&sql).fetch_many(&mut *conn);
    while let Some(item) = stream.try_next().await? {
        match item {
            Either::Left(done) => affected += done.rows_affected(),
            Either::Right(row) => rows.push(row),
        }
    }
    Ok((rows, affected))
}

/// One script's connection.
struct Terminal {
    conn: Arc<Mutex<PgConnection>>,
    pid: i32,
    /// The entry whose statement it is running, and its answer to come.
    pending: Option<(usize, JoinHandle<Answered>)>,
}

/// A step as `expect.steps` writes it, and the rows a read returned.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Step {
    step: String,
    completed_after: Option<usize>,
    rows: Vec<Seen>,
}

/// A row a read or lock returned: seat, status, holder, deadline (a counter's: its key and its
/// value).
type Seen = (String, String, Option<String>, Option<i64>);

/// Per actor: inside a transaction, and whether an error has aborted it.
#[derive(Clone, Copy, Default)]
struct Tx {
    open: bool,
    failed: bool,
}

fn read_answer(op: &Op, answered: Answered, tx: &mut Tx) -> (String, Vec<Seen>) {
    let (rows, affected) = match answered {
        Ok(answer) => answer,
        Err(sqlx::Error::Database(e)) => {
            // A failed commit ends its transaction; any other error aborts it.
            *tx = match op {
                Op::Commit | Op::Rollback => Tx::default(),
                _ => Tx {
                    open: tx.open,
                    failed: tx.open,
                },
            };
            let code = e.code().map(|c| c.into_owned()).unwrap_or_default();
            return (format!("error:{code}"), Vec::new());
        }
        Err(e) => panic!("{} did not answer: {e}", op.name()),
    };
    let text =
        |rows: &[PgRow]| -> String { rows[0].try_get::<String, _>(0).expect("a text answer") };
    let step = match op {
        Op::Begin { .. } => {
            *tx = Tx {
                open: true,
                failed: false,
            };
            "ok".to_string()
        }
        Op::Commit | Op::Rollback => {
            let failed = tx.failed && matches!(op, Op::Commit);
            *tx = Tx::default();
            if failed { "rolled_back" } else { "ok" }.to_string()
        }
        // A counter's row: its key and its value (a coupon's flag as 1 while unused).
        Op::Read { .. } | Op::Lock { .. } if rows.first().is_some_and(|r| r.len() == 2) => {
            let seen = rows
                .iter()
                .map(|r| {
                    let value = r
                        .try_get::<i64, _>(1)
                        .or_else(|_| r.try_get::<bool, _>(1).map(|used| i64::from(!used)))
                        .expect("a counter's value");
                    (r.try_get(0).expect("a key"), value.to_string(), None, None)
                })
                .collect::<Vec<_>>();
            return (format!("ok:{}", rows.len()), seen);
        }
        Op::Read { .. } | Op::Lock { .. } => {
            let seen = rows
                .iter()
                .map(|r| {
                    (
                        r.try_get(0).expect("seat_id"),
                        r.try_get(1).expect("status"),
                        r.try_get(2).expect("holder"),
                        r.try_get(3).expect("held_until"),
                    )
                })
                .collect::<Vec<_>>();
            return (format!("ok:{}", rows.len()), seen);
        }
        Op::Write { .. } | Op::Claim { .. } | Op::Book { .. } | Op::Sweep => {
            format!("ok:{affected}")
        }
        Op::Hold { .. } | Op::Confirm { .. } => text(&rows),
        Op::Release if affected > 0 => Answer::Released.as_str().to_string(),
        Op::Release => Answer::Expired.as_str().to_string(),
        Op::Advance { .. } | Op::Pay { .. } => "ok".to_string(),
        Op::RedisHold { .. } | Op::RedisRelease => {
            panic!("a {} sends no SQL: its script step is a comment", op.name())
        }
    };
    (step, Vec::new())
}

async fn is_blocked(monitor: &mut PgConnection, pid: i32, pids: &[i32]) -> bool {
    sqlx::query_scalar("select pg_isolation_test_session_is_blocked($1, $2)")
        .bind(pid)
        .bind(pids)
        .fetch_one(monitor)
        .await
        .expect("the blocking check")
}

/// The scripts of one schedule, each on a connection of its own, taken step by step.
struct Harness<'s> {
    schedule: &'s Schedule,
    outcome: &'s Outcome,
    schema: String,
    monitor: PgConnection,
    /// By script label.
    terminals: BTreeMap<String, Terminal>,
    scripts: BTreeMap<String, Script>,
    pids: Vec<i32>,
    /// Per entry of the order: its actor and operation.
    ops: Vec<(usize, &'s Op)>,
    txs: Vec<Tx>,
    steps: Vec<Step>,
}

impl<'s> Harness<'s> {
    /// Opens a connection per script and runs each script up to its step 1.
    async fn open(schedule: &'s Schedule, outcome: &'s Outcome) -> Harness<'s> {
        let url = db::database_url();
        let schema = schema_name();
        let mut harness = Harness {
            schedule,
            outcome,
            monitor: PgConnection::connect(&url).await.expect("a connection"),
            terminals: BTreeMap::new(),
            scripts: BTreeMap::new(),
            pids: Vec::new(),
            ops: entry_ops(schedule),
            txs: vec![Tx::default(); schedule.actors().len()],
            steps: vec![Step::default(); schedule.order().len()],
            schema,
        };
        for (label, text) in psql_scripts_in(schedule, outcome, &harness.schema) {
            let script = cut(&text);
            let mut conn = PgConnection::connect(&url).await.expect("a connection");
            sqlx::raw_sql(&script.preamble)
                .execute(&mut conn)
                .await
                .unwrap_or_else(|e| panic!("the preamble of {label}: {e}"));
            // A machine sends the steps: the run's own settings, not the typing-speed ones.
            sqlx::raw_sql(sql::SESSION_SETTINGS)
                .execute(&mut conn)
                .await
                .expect("the session settings");
            let pid: i32 = sqlx::query_scalar("select pg_backend_pid()")
                .fetch_one(&mut conn)
                .await
                .expect("a pid");
            harness.pids.push(pid);
            let conn = Arc::new(Mutex::new(conn));
            let terminal = Terminal {
                conn,
                pid,
                pending: None,
            };
            harness.terminals.insert(label.clone(), terminal);
            harness.scripts.insert(label, script);
        }
        harness
    }

    /// Takes step `k + 1` in its script's terminal, then waits until the answers the outcome
    /// says arrive during it have arrived and every other statement is blocked.
    async fn take(&mut self, k: usize) {
        let (a, _) = self.ops[k];
        let name = &self.schedule.actors()[a].name;
        let label = if name == CLOCK {
            setup_label(self.schedule)
        } else {
            name.clone()
        };
        let sql = self.scripts[&label]
            .steps
            .get(&(k + 1))
            .unwrap_or_else(|| panic!("{label}'s script has no step {}", k + 1))
            .clone();
        let Some(sql) = sql else {
            // Nothing sent: a skipped write or a payment, as the outcome says.
            self.steps[k] = Step {
                step: self.outcome.entries[k].step.clone(),
                completed_after: Some(k),
                rows: Vec::new(),
            };
            return;
        };
        let t = self.terminals.get_mut(&label).expect("a terminal");
        assert!(t.pending.is_none(), "step {}: {label} is still busy", k + 1);
        t.pending = Some((k, tokio::spawn(run_sql(t.conn.clone(), sql))));
        let due: Vec<usize> = (0..=k)
            .filter(|&j| self.outcome.entries[j].trace.completed_after == Some(k))
            .collect();
        let start = Instant::now();
        while !self.settled(k, &due).await {
            assert!(
                start.elapsed() < ANSWER_LIMIT,
                "step {}: a statement neither answered nor blocked",
                k + 1
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        if self.terminals[&label].pending.is_some() {
            self.steps[k].step = "waiting".to_string();
            // Which of two sessions in a deadlock is the victim turns on whose timer runs out
            // first: the one that waited first, as long as it did so by more than the
            // scheduler's jitter (the executor holds the next statement back as long). A
            // person never sends the next step within a millisecond.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Records the answers that have arrived (as arriving during entry `k`); whether nothing
    /// is left but statements blocked on a lock that the outcome does not expect now.
    async fn settled(&mut self, k: usize, due: &[usize]) -> bool {
        let mut settled = true;
        for t in self.terminals.values_mut() {
            let Some((j, handle)) = &t.pending else {
                continue;
            };
            let j = *j;
            if handle.is_finished() {
                let (_, handle) = t.pending.take().expect("pending");
                let (a, op) = self.ops[j];
                let answered = handle.await.expect("the task");
                let (step, rows) = read_answer(op, answered, &mut self.txs[a]);
                let step = if j == k {
                    step
                } else {
                    format!("waiting>{step}")
                };
                let completed_after = Some(k);
                self.steps[j] = Step {
                    step,
                    completed_after,
                    rows,
                };
            } else if due.contains(&j) || !is_blocked(&mut self.monitor, t.pid, &self.pids).await {
                settled = false;
            }
        }
        settled
    }

    /// The seats at the end; then everything is rolled back, closed and dropped.
    async fn close(mut self) -> (Vec<Step>, Vec<SeatRow>) {
        sqlx::raw_sql(&format!("set search_path to \"{}\"", self.schema))
            .execute(&mut self.monitor)
            .await
            .expect("the run's schema");
        let mut seats: Vec<SeatRow> = sqlx::query(sql::SNAPSHOT_SEATS)
            .bind(self.schedule.scenario().show)
            .fetch_all(&mut self.monitor)
            .await
            .expect("the seats")
            .into_iter()
            .map(|r| SeatRow {
                id: r.get(0),
                status: SeatStatus::from_sql(r.get(1)).expect("a status"),
                holder: r.get(2),
                hold_id: r.get(3),
                until: r.get(4),
                value: None,
            })
            .collect();
        // A script of seats creates the booking schema alone (`sql::ddl_of`).
        let counters = if self.schedule.scenario().kind.is_counter() {
            sqlx::query(&sql::counter::snapshot_all())
                .fetch_all(&mut self.monitor)
                .await
                .expect("the counters")
        } else {
            Vec::new()
        };
        seats.extend(
            counters
                .into_iter()
                .map(|r| SeatRow::counter(r.get(0), r.get::<i64, _>(1))),
        );
        for (_, t) in std::mem::take(&mut self.terminals) {
            if let Some((_, handle)) = t.pending {
                sqlx::query("select pg_cancel_backend($1)")
                    .bind(t.pid)
                    .execute(&mut self.monitor)
                    .await
                    .expect("a cancel");
                let _ = handle.await;
            }
            let mut conn = t.conn.lock().await;
            let _ = sqlx::raw_sql("rollback").execute(&mut *conn).await;
        }
        sqlx::raw_sql(&format!("drop schema \"{}\" cascade", self.schema))
            .execute(&mut self.monitor)
            .await
            .expect("the schema dropped");
        (self.steps, seats)
    }
}

/// Per entry of the order: its actor and the operation it sends.
fn entry_ops(schedule: &Schedule) -> Vec<(usize, &Op)> {
    let mut next = vec![0usize; schedule.actors().len()];
    schedule
        .order()
        .iter()
        .map(|&a| {
            next[a] += 1;
            (a, &schedule.actors()[a].program[next[a] - 1])
        })
        .collect()
}

/// Runs the scripts of `schedule` step by step: each entry's step, and the seats at the end.
async fn run_scripts(schedule: &Schedule, outcome: &Outcome) -> (Vec<Step>, Vec<SeatRow>) {
    let mut harness = Harness::open(schedule, outcome).await;
    for k in 0..schedule.order().len() {
        harness.take(k).await;
    }
    harness.close().await
}

#[tokio::test]
async fn each_psql_script_taken_step_by_step_gets_the_answers_of_the_outcome() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let mut failed = Vec::new();
    for (name, schedule) in cases() {
        let outcome = simulated(&schedule);
        let (steps, seats) = run_scripts(&schedule, &outcome).await;
        let want: Vec<Step> = outcome
            .entries
            .iter()
            .map(|e| Step {
                step: e.step.clone(),
                completed_after: e.trace.completed_after,
                rows: e
                    .trace
                    .seen
                    .iter()
                    .map(|r| match r.value {
                        Some(v) => (r.seat.clone(), v.to_string(), None, None),
                        None => (
                            r.seat.clone(),
                            r.status.as_sql().to_string(),
                            r.holder.clone(),
                            r.until,
                        ),
                    })
                    .collect(),
            })
            .collect();
        if steps != want {
            failed.push(format!("{name}: psql {steps:#?}\noutcome {want:#?}"));
        }
        let mut final_seats = outcome.final_tables().seats.clone();
        final_seats.sort_by(|a, b| a.id.cmp(&b.id));
        let mut seats = seats;
        seats.sort_by(|a, b| a.id.cmp(&b.id));
        if seats != final_seats {
            failed.push(format!(
                "{name}: the seats end as {seats:?}, not {final_seats:?}"
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

// ---- the isolation tester ----

/// PostgreSQL's isolation tester: `ISOLATIONTESTER`, or where Debian's client package puts it.
fn isolationtester() -> std::path::PathBuf {
    if let Ok(path) = std::env::var("ISOLATIONTESTER") {
        return path.into();
    }
    let mut found: Vec<std::path::PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|v| v.path().join("lib/pgxs/src/test/isolation/isolationtester"))
        .filter(|p| p.is_file())
        .collect();
    found.sort_by_key(|p| {
        p.components()
            .nth(4)
            .and_then(|c| c.as_os_str().to_str()?.parse::<u32>().ok())
    });
    found.pop().unwrap_or_else(|| {
        panic!(
            "PostgreSQL's isolationtester was not found: install PostgreSQL's client programs \
             (Debian: postgresql-client-15), or set ISOLATIONTESTER to its path"
        )
    })
}

#[tokio::test]
async fn the_isolation_tester_prints_exactly_the_expected_output() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let tester = isolationtester();
    let mut failed = Vec::new();
    for (name, schedule) in cases().into_iter().chain(username_cases()) {
        let outcome = simulated(&schedule);
        let (spec, expected) = isolation_spec_in(&schedule, &outcome, &schema_name());
        let mut child = tokio::process::Command::new(&tester)
            .arg(db::database_url())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", tester.display()));
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(spec.as_bytes()).await.expect("the spec");
        drop(stdin);
        let output = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
            .await
            .expect("the tester finished")
            .expect("the tester ran");
        let printed = String::from_utf8_lossy(&output.stdout);
        let errors = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() || printed != expected || !errors.is_empty() {
            failed.push(format!(
                "{name}: the tester printed\n{printed}\n{errors}\nexpected\n{expected}\nfor the spec\n{spec}"
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

// ---- the fixture ----

#[tokio::test]
async fn each_exported_fixture_replays_on_postgres_and_meets_its_expect() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let pool = common::pool().await;
    let mut failed = Vec::new();
    for (name, schedule) in cases() {
        let outcome = simulated(&schedule);
        if outcome.entries.iter().any(|e| e.step.ends_with("40P01")) {
            // The executor sends the step that closes a cycle within a millisecond or two of
            // the first wait, so on a loaded machine either session may be the victim (see
            // `Harness::take`); `schedules.rs` replays the deadlock fixture on its own.
            continue;
        }
        let json = fixture_json(&schedule, &outcome);
        let fixture = Schedule::parse_json(&json).unwrap_or_else(|e| panic!("{name}: {e}"));
        let real = assess(
            &fixture,
            execute(&pool, &fixture).await.expect("a real run"),
        );
        let failures = check_expect(&fixture, &real);
        if !failures.is_empty() {
            failed.push(format!("{name}: {failures:?}\n{json}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}
