//! Counter schedules through `POST /api/runs` on a real server (port 0) and the real
//! PostgreSQL: a good one runs both ways and agrees (a balance taken below zero by two
//! decrements after one stale check), and every refusal of the counter format is a 400 whose
//! error names the field (`scenario.kind`, `scenario.take`, `scenario.seats[i].value`, a status
//! on a row, an op or a defence that does not fit) and says how to fix it.

mod common;

use backend::AppState;
use reqwest::StatusCode;
use serde_json::Value;
use sqlx::PgPool;

/// Starts the real server on port 0, without a page; its base URL.
async fn spawn_app(pool: PgPool) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port 0");
    let addr = listener.local_addr().expect("the bound address");
    tokio::spawn(backend::serve(listener, AppState::new(pool, None)));
    format!("http://{addr}")
}

async fn post_run(base: &str, body: String) -> (StatusCode, Value) {
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

/// A file of `scenario` and `actors` (JSON text), with `order` (JSON text, `[]` for none).
fn file(scenario: &str, actors: &str, order: &str) -> String {
    format!(
        r#"{{"version": 1, "name": "counter", "scenario": {scenario}, "actors": {actors}, "order": {order}}}"#
    )
}

const BALANCE: &str =
    r#"{"kind": "balance", "take": 100, "seats": [{"id": "joint", "value": 150}]}"#;
const TWO_TRANSACTIONS: &str =
    r#"{"adam": {"defence": "transaction"}, "omar": {"defence": "transaction"}}"#;

#[tokio::test]
async fn a_balance_taken_below_zero_runs_alike_on_postgres_and_in_the_model() {
    let base = spawn_app(common::pool().await).await;
    let order = r#"["adam","omar","adam","omar","adam","omar","adam","omar"]"#;
    let (status, body) = post_run(&base, file(BALANCE, TWO_TRANSACTIONS, order)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["agree"], true, "{}", body["differences"]);
    assert_eq!(body["real"]["verdict"]["double_booked"], true, "{body}");
    let last = body["real"]["entries"].as_array().unwrap().last().unwrap();
    assert_eq!(last["tables"]["seats"][0]["value"], -50, "{last}");
}

#[tokio::test]
async fn every_refusal_of_the_counter_format_is_a_400_naming_its_field() {
    let base = spawn_app(common::pool().await).await;
    let cases = [
        (
            file(
                r#"{"kind": "coupons", "seats": [{"id": "SAVE50", "value": 1}]}"#,
                TWO_TRANSACTIONS,
                "[]",
            ),
            "scenario.kind",
            "did you mean \"coupon\"?",
        ),
        (
            file(
                r#"{"kind": "balance", "take": 0, "seats": [{"id": "joint", "value": 150}]}"#,
                TWO_TRANSACTIONS,
                "[]",
            ),
            "scenario.take",
            "out of range",
        ),
        (
            file(
                r#"{"take": 3, "seats": [{"id": "A7"}]}"#,
                TWO_TRANSACTIONS,
                "[]",
            ),
            "scenario.take",
            "a request takes one seat",
        ),
        (
            file(
                r#"{"kind": "balance", "seats": [{"id": "joint"}]}"#,
                TWO_TRANSACTIONS,
                "[]",
            ),
            "scenario.seats[0]",
            "needs its value",
        ),
        (
            file(
                r#"{"kind": "rate_limit", "seats": [{"id": "key42", "value": 2000000}]}"#,
                TWO_TRANSACTIONS,
                "[]",
            ),
            "scenario.seats[0].value",
            "out of range",
        ),
        (
            file(
                r#"{"seats": [{"id": "A7", "value": 1}]}"#,
                TWO_TRANSACTIONS,
                "[]",
            ),
            "scenario.seats[0].value",
            "a seat has a status, not a value",
        ),
        (
            file(
                r#"{"kind": "general_admission", "seats": [{"id": "GA", "value": 1, "status": "BOOKED", "holder": "adam"}]}"#,
                TWO_TRANSACTIONS,
                "[]",
            ),
            "scenario.seats[0]",
            "has a value, not a status",
        ),
        (
            file(
                BALANCE,
                r#"{"adam": [{"op": "hold", "seats": ["joint"]}]}"#,
                "[]",
            ),
            "actors.adam[0].op",
            "does not apply to a balance scenario",
        ),
        (
            file(BALANCE, r#"{"adam": {"defence": "hold_confirm"}}"#, "[]"),
            "actors.adam.defence",
            "atomic_update",
        ),
    ];
    for (body, field, words) in cases {
        let (status, answer) = post_run(&base, body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {answer}");
        assert_eq!(answer["error"]["field"], field, "{body}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(words), "{body}: {message}");
    }
}
