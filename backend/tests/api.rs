//! The HTTP API on a real server (port 0) and a real database.

mod common;
#[path = "common/page.rs"]
mod page;

use std::path::PathBuf;
use std::time::Duration;

use backend::AppState;
use reqwest::StatusCode;
use serde_json::Value;
use sqlx::postgres::PgPoolOptions;
use sqlx::PgPool;

const GOOD: &str = r#"{ "version": 1, "name": "atomic update",
  "scenario": { "seats": [ { "id": "A12" } ] },
  "actors": { "first": [ { "op": "begin" }, { "op": "claim", "seats": ["A12"] }, { "op": "commit" } ],
              "second": [ { "op": "claim", "seats": ["A12"] } ] },
  "order": ["first", "first", "second", "first"],
  "expect": { "double_booked": false, "steps": ["ok", "ok:1", "waiting>ok:0", "ok"] } }"#;

/// A built page with an index.html, in a directory of its own.
fn dist() -> PathBuf {
    page::page_dir("api", page::PLAIN)
}

/// Starts the real server on port 0; its base URL.
async fn spawn_app(pool: PgPool) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port 0");
    let addr = listener.local_addr().expect("the bound address");
    tokio::spawn(backend::serve(listener, AppState::new(pool, Some(dist()))));
    format!("http://{addr}")
}

async fn post_run(base: &str, body: impl Into<reqwest::Body>) -> (StatusCode, Value) {
    let response = reqwest::Client::new()
        .post(format!("{base}/api/runs"))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .expect("the request");
    let status = response.status();
    (status, response.json().await.expect("a JSON body"))
}

fn error_field(body: &Value) -> &str {
    body["error"]["field"]
        .as_str()
        .unwrap_or_else(|| panic!("no error field in {body}"))
}

#[tokio::test]
async fn health_says_the_database_is_up() {
    let base = spawn_app(common::pool().await).await;
    let response = reqwest::get(format!("{base}/api/health"))
        .await
        .expect("the request");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        serde_json::json!({ "status": "ok", "database": "up" })
    );
}

#[tokio::test]
async fn a_run_returns_both_outcomes_compared() {
    let base = spawn_app(common::pool().await).await;
    let (status, body) = post_run(&base, GOOD).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["agree"], true, "{}", body["differences"]);
    assert_eq!(body["expect_ok"], true, "{}", body["expect_failures"]);
    assert_eq!(body["differences"], serde_json::json!([]));
    let steps: Vec<&str> = body["real"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["step"].as_str().unwrap())
        .collect();
    assert_eq!(steps, ["ok", "ok:1", "waiting>ok:0", "ok"]);
    assert_eq!(body["simulated"]["verdict"], body["real"]["verdict"]);
}

#[tokio::test]
async fn malformed_json_is_a_400_that_says_where() {
    let base = spawn_app(common::pool().await).await;
    let (status, body) = post_run(&base, r#"{ "version": 1, "scenario": "#).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(error_field(&body), "schedule");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("line 1"),
        "{body}"
    );
}

#[tokio::test]
async fn an_unknown_defence_is_a_400_naming_the_actor_field() {
    let base = spawn_app(common::pool().await).await;
    let bad = r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
                   "actors": { "adam": { "defence": "hope" } } }"#;
    let (status, body) = post_run(&base, bad).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(error_field(&body), "actors.adam.defence");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("atomic_update"),
        "the message lists the choices: {body}"
    );
}

#[tokio::test]
async fn an_oversized_body_is_a_413_in_json() {
    let base = spawn_app(common::pool().await).await;
    let huge = format!(
        r#"{{ "version": 1, "name": "{}" }}"#,
        "x".repeat(backend::http::RUN_BODY_LIMIT)
    );
    let (status, body) = post_run(&base, huge).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(error_field(&body), "body");
}

#[tokio::test]
async fn an_order_naming_a_waiting_actor_is_a_422_naming_the_entry() {
    let base = spawn_app(common::pool().await).await;
    let waiting = r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
        "actors": { "adam": { "defence": "lock_row" }, "omar": { "defence": "lock_row" } },
        "order": ["adam", "adam", "omar", "omar", "omar"] }"#;
    let (status, body) = post_run(&base, waiting).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_field(&body), "order[4]");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("waiting for adam"),
        "{body}"
    );
}

#[tokio::test]
async fn the_scenarios_are_listed_with_their_schedules() {
    let base = spawn_app(common::pool().await).await;
    let body: Value = reqwest::get(format!("{base}/api/scenarios"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let list = body.as_array().expect("a list");
    assert!(!list.is_empty());
    assert!(
        list.iter()
            .all(|s| s["id"].is_string() && s["file"]["version"] == 1),
        "{body}"
    );
}

#[tokio::test]
async fn the_page_is_served_and_any_other_path_falls_back_to_it() {
    let base = spawn_app(common::pool().await).await;
    // Every address is the page; a chapter's carries its own title (rendered by the server).
    for (path, title) in [
        ("/", "<title>Last Seat</title>"),
        ("/index.html", "<title>Last Seat</title>"),
        ("/chapter/3", "<title>Chapter 3: "),
        ("/chapter/nowhere", "<title>Last Seat</title>"),
    ] {
        let response = reqwest::get(format!("{base}{path}")).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let text = response.text().await.unwrap();
        assert!(text.contains(title), "{path}: {text}");
        assert!(text.contains("Last Seat</title>"), "{path}");
    }
    let response = reqwest::get(format!("{base}/api/nothing")).await.unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        response.json::<Value>().await.unwrap()["error"]["message"],
        "no such API route"
    );
}

#[tokio::test]
async fn a_database_that_is_down_is_a_503_that_says_so() {
    let down = PgPoolOptions::new()
        .acquire_timeout(Duration::from_secs(1))
        .connect_lazy("postgres://postgres@127.0.0.1:1/postgres")
        .expect("a lazy pool");
    let base = spawn_app(down).await;
    let response = reqwest::get(format!("{base}/api/health")).await.unwrap();
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: Value = response.json().await.unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("DATABASE_URL"),
        "{body}"
    );
    let (status, body) = post_run(&base, GOOD).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(
        !body.to_string().contains("127.0.0.1:1"),
        "the cause is logged, not sent: {body}"
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("database"),
        "{body}"
    );
}

#[tokio::test]
async fn health_asked_about_mariadb_names_it_and_a_bad_question_names_the_fix() {
    let pg = common::pool().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port 0");
    let addr = listener.local_addr().expect("the bound address");
    // A MariaDB that is not there: nothing listens on port 1.
    let away = sqlx::mysql::MySqlPoolOptions::new()
        .acquire_timeout(Duration::from_secs(1))
        .connect_lazy("mysql://root@127.0.0.1:1/test")
        .expect("a lazy pool");
    let state = AppState::new(pg, Some(dist())).with_mariadb(Some(away));
    tokio::spawn(backend::serve(listener, state));
    let base = format!("http://{addr}");
    let response = reqwest::get(format!("{base}/api/health?database=innodb"))
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: Value = response.json().await.unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("MariaDB"),
        "{body}"
    );
    assert!(
        !body.to_string().contains("127.0.0.1:1"),
        "the cause is logged, not sent: {body}"
    );
    // The real MariaDB (MYSQL_URL, or the local server): up.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port 0");
    let real_base = format!(
        "http://{}",
        listener.local_addr().expect("the bound address")
    );
    let real = backend::innodb::pool(&backend::innodb::url()).expect("MYSQL_URL is a URL");
    let state = AppState::new(common::pool().await, Some(dist())).with_mariadb(Some(real));
    tokio::spawn(backend::serve(listener, state));
    let response = reqwest::get(format!("{real_base}/api/health?database=innodb"))
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "MariaDB answers at MYSQL_URL"
    );
    let response = reqwest::get(format!("{base}/api/health?database=postgresql"))
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let response = reqwest::get(format!("{base}/api/health?database=oracle"))
        .await
        .unwrap();
    assert_eq!(response.status().as_u16() / 100, 4);
    let body: Value = response.json().await.unwrap();
    assert_eq!(error_field(&body), "database");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("?database=innodb"),
        "{body}"
    );
}
