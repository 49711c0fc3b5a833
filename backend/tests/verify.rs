//! Every order of a schedule on the real server: `backend verify FILE` as a built binary, and
//! `POST /api/verify` on a real server (port 0), both against the real PostgreSQL; their
//! counts held to the explorer's, their bounds and their refusals.

mod common;

use std::process::Output;

use backend::http::VerifyRules;
use backend::AppState;
use reqwest::StatusCode;
use serde_json::Value;

use common::{backend, fixture};
use sqlx::PgPool;

/// Two buyers in READ COMMITTED transactions: a few dozen orders, some double-booking.
const SMALL: &str = "transaction-read-committed-still-double-books.json";

fn both(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The feasible orders of a schedule file, as the explorer counts them.
fn orders_of(name: &str) -> u64 {
    let text = std::fs::read_to_string(fixture(name)).expect("the fixture");
    let schedule = shared::Schedule::parse_json(&text).expect("a valid fixture");
    let (orders, complete) = shared::explorer::orders(&schedule, 1_000_000);
    assert!(complete);
    orders.len() as u64
}

/// The per-verdict lines of the command's table: (orders, agreed, race, disagreed).
fn table(stdout: &str) -> Vec<(u64, u64, u64, u64)> {
    stdout
        .lines()
        .filter_map(|line| {
            let n: Vec<u64> = line
                .split_whitespace()
                .take(4)
                .map_while(|w| w.parse().ok())
                .collect();
            (n.len() == 4).then(|| (n[0], n[1], n[2], n[3]))
        })
        .collect()
}

#[test]
fn verify_runs_every_order_of_a_small_schedule_and_they_all_agree() {
    let out = backend(&["verify", &fixture(SMALL), "--jobs", "3"]);
    let text = both(&out);
    assert!(out.status.success(), "{text}");
    let orders = orders_of(SMALL);
    assert!(
        text.contains(&format!("every feasible order ({orders})")),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "All {orders} orders: the model and PostgreSQL agree"
        )),
        "{text}"
    );
    let rows = table(&String::from_utf8_lossy(&out.stdout));
    assert!(rows.len() >= 2, "one line per verdict: {text}");
    assert_eq!(rows.iter().map(|r| r.0).sum::<u64>(), orders, "{text}");
    for (n, agreed, races, disagreed) in rows {
        assert_eq!(agreed + races + disagreed, n, "{text}");
        assert_eq!(disagreed, 0, "{text}");
    }
    assert!(text.contains("runs per second"), "{text}");
}

#[test]
fn verify_with_a_limit_below_the_count_runs_a_sample_and_says_so() {
    let out = backend(&["verify", &fixture(SMALL), "--limit", "5"]);
    let text = both(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(&format!(
            "a sample of 5 of the {} feasible orders",
            orders_of(SMALL)
        )),
        "{text}"
    );
    assert!(text.contains("All 5 orders"), "{text}");
}

#[test]
fn verify_of_a_missing_or_invalid_file_or_bad_arguments_says_why_without_a_panic() {
    let missing = backend(&["verify", "/nonexistent/schedule.json"]);
    assert_eq!(missing.status.code(), Some(2), "{}", both(&missing));
    assert!(
        both(&missing).contains("cannot read it"),
        "{}",
        both(&missing)
    );

    let path = std::env::temp_dir().join(format!("lastseat-verify-{}.json", std::process::id()));
    std::fs::write(
        &path,
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] }, "actors": { "adam": { "defence": "hope" } } }"#,
    )
    .unwrap();
    let invalid = backend(&["verify", path.to_str().unwrap()]);
    assert_eq!(invalid.status.code(), Some(2), "{}", both(&invalid));
    assert!(
        both(&invalid).contains("invalid schedule: actors.adam.defence"),
        "{}",
        both(&invalid)
    );

    for args in [["--jobs", "0"], ["--limit", "0"], ["--jobs", "many"]] {
        let out = backend(&["verify", &fixture(SMALL), args[0], args[1]]);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", both(&out));
        assert!(both(&out).contains(args[0]), "{args:?}: {}", both(&out));
        assert!(!both(&out).contains("panicked"), "{}", both(&out));
    }
}

/// Starts the real server on port 0 with `rules`; its base URL.
async fn spawn_app(pool: PgPool, rules: VerifyRules) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port 0");
    let addr = listener.local_addr().expect("the bound address");
    let state = AppState::new(pool, None).with_verify_rules(rules);
    tokio::spawn(backend::serve(listener, state));
    format!("http://{addr}")
}

async fn post_verify(base: &str, name: &str) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{base}/api/verify"))
        .header("content-type", "application/json")
        .body(std::fs::read_to_string(fixture(name)).unwrap())
        .send()
        .await
        .expect("the request")
}

/// The stream's lines, as they come: the first `n` of them (all if `None`).
async fn lines(response: &mut reqwest::Response, n: Option<usize>) -> Vec<Value> {
    let (mut out, mut pending) = (Vec::new(), Vec::new());
    while n.is_none_or(|n| out.len() < n) {
        let Some(chunk) = response.chunk().await.expect("the stream") else {
            break;
        };
        pending.extend_from_slice(&chunk);
        while let Some(end) = pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            out.push(serde_json::from_slice(&line).expect("a JSON line"));
        }
    }
    out
}

#[tokio::test]
async fn the_api_streams_progress_and_ends_with_every_order_agreeing() {
    let base = spawn_app(common::pool().await, VerifyRules::default()).await;
    let mut response = post_verify(&base, SMALL).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers()["content-type"],
        "application/x-ndjson",
        "one JSON object per line"
    );
    let lines = lines(&mut response, None).await;
    let orders = orders_of(SMALL);
    assert_eq!(lines[0]["start"]["orders"], orders, "{lines:?}");
    assert_eq!(lines[0]["start"]["every_order"], true);
    let progress: Vec<u64> = lines
        .iter()
        .filter_map(|l| l["progress"]["run"].as_u64())
        .collect();
    assert!(!progress.is_empty(), "no progress line: {lines:?}");
    assert!(progress.windows(2).all(|w| w[0] < w[1]), "{progress:?}");
    let summary = &lines.last().unwrap()["summary"];
    assert_eq!(summary["agree"], true, "{summary}");
    assert_eq!(summary["run"], orders);
    assert_eq!(summary["disagreed"], 0);
    let verdicts = summary["verdicts"].as_array().unwrap();
    let count = |key: &str| {
        verdicts
            .iter()
            .map(|v| v[key].as_u64().unwrap())
            .sum::<u64>()
    };
    assert_eq!(count("orders"), orders);
    assert_eq!(count("agreed") + count("races"), orders);
    assert!(verdicts
        .iter()
        .any(|v| v["verdict"]["double_booked"] == true));
    assert!(summary["runs_per_second"].as_f64().unwrap() > 0.0);
}

#[tokio::test]
async fn more_orders_than_the_limit_are_a_422_that_says_how_to_verify_them() {
    let rules = VerifyRules {
        max_orders: 3,
        ..VerifyRules::default()
    };
    let base = spawn_app(common::pool().await, rules).await;
    let response = post_verify(&base, SMALL).await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body: Value = response.json().await.expect("a JSON body");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("more than 3 feasible orders"), "{message}");
    assert!(message.contains("backend -- verify FILE"), "{message}");
}

#[tokio::test]
async fn a_verification_beyond_the_concurrent_bound_is_a_503_with_retry_after() {
    // A pool the test holds whole: the first verification has started (its first line is in)
    // but none of its runs can, so it is under way for as long as the test holds it.
    let pool = backend::db::connect(&backend::db::database_url(), 4)
        .await
        .expect("PostgreSQL");
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(pool.acquire().await.expect("a connection"));
    }
    let rules = VerifyRules {
        at_once: 1,
        ..VerifyRules::default()
    };
    let base = spawn_app(pool, rules).await;
    let mut first = post_verify(&base, SMALL).await;
    assert_eq!(first.status(), StatusCode::OK);
    assert!(lines(&mut first, Some(1)).await[0].get("start").is_some());
    let second = post_verify(&base, SMALL).await;
    assert_eq!(second.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(second.headers().contains_key("retry-after"));
    let body: Value = second.json().await.expect("a JSON body");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("already proving 1 schedule"), "{message}");
    drop(held);
    let rest = lines(&mut first, None).await;
    assert_eq!(rest.last().unwrap()["summary"]["agree"], true, "{rest:?}");
}

#[tokio::test]
async fn a_body_that_is_not_json_is_refused_before_anything_runs() {
    let base = spawn_app(common::pool().await, VerifyRules::default()).await;
    let response = reqwest::Client::new()
        .post(format!("{base}/api/verify"))
        .header("content-type", "text/plain")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let response = reqwest::Client::new()
        .post(format!("{base}/api/verify"))
        .header("content-type", "application/json")
        .body("{ \"version\": 1 ")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body: Value = response.json().await.unwrap();
    assert!(body["error"]["message"].is_string(), "{body}");
}

#[tokio::test]
async fn a_get_is_a_405_that_names_post() {
    let base = spawn_app(common::pool().await, VerifyRules::default()).await;
    let response = reqwest::get(format!("{base}/api/verify")).await.unwrap();
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(response.headers()["allow"], "POST");
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body["error"]["message"],
        "this route does not take GET: use POST"
    );
}

#[tokio::test]
async fn a_client_that_goes_away_leaves_its_place_free_again() {
    let rules = VerifyRules {
        at_once: 1,
        ..VerifyRules::default()
    };
    let base = spawn_app(common::pool().await, rules).await;
    let mut first = post_verify(&base, "transaction-three-buyers-one-seat.json").await;
    // Over the default limit of orders: refused, and nothing holds the place.
    assert_eq!(first.status(), StatusCode::UNPROCESSABLE_ENTITY);
    first = post_verify(&base, SMALL).await;
    assert_eq!(first.status(), StatusCode::OK);
    assert!(lines(&mut first, Some(1)).await[0].get("start").is_some());
    drop(first);
    // Its verification ends (aborted at the next line it cannot send, or done): then the
    // place is free again.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let mut next = post_verify(&base, SMALL).await;
        if next.status() == StatusCode::OK {
            let rest = lines(&mut next, None).await;
            assert_eq!(rest.last().unwrap()["summary"]["agree"], true, "{rest:?}");
            break;
        }
        assert_eq!(next.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(
            std::time::Instant::now() < deadline,
            "the first verification kept its place"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
