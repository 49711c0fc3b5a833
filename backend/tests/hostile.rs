//! Hostile and careless clients against the real server (port 0, 127.0.0.x only): slow and
//! idle connections are closed, a flood of them leaves the server answering, a cross-site
//! request cannot start a run, every error is JSON, and runs are admitted fairly and priced
//! before they start. Every wait is bounded generously; speed is reported elsewhere
//! (`examples/flood.rs`), not asserted.

mod common;
#[path = "common/page.rs"]
mod page;

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use backend::http::admission::Rules;
use backend::http::Limits;
use backend::AppState;
use reqwest::StatusCode;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// A cheap run: three entries' worth of work.
const GOOD: &str = r#"{ "version": 1, "scenario": { "seats": [ { "id": "A12" } ] },
  "actors": { "first": [ { "op": "begin" }, { "op": "claim", "seats": ["A12"] }, { "op": "commit" } ],
              "second": [ { "op": "claim", "seats": ["A12"] } ] },
  "order": ["first", "first", "second", "first"] }"#;

/// A schedule of `rounds` deadlocks for each of `pairs` pairs of buyers who lock two seats in
/// opposite orders: each deadlock costs PostgreSQL its `deadlock_timeout`, a second.
fn deadlocks(pairs: usize, rounds: usize) -> String {
    let mut seats = Vec::new();
    let mut actors = Vec::new();
    let mut order = Vec::new();
    for p in 0..pairs {
        let (x, y) = (format!("S{}", 2 * p), format!("S{}", 2 * p + 1));
        seats.push(format!(r#"{{ "id": "{x}" }}, {{ "id": "{y}" }}"#));
        let program = |a: &str, b: &str| {
            let round = format!(
                r#"{{ "op": "begin" }}, {{ "op": "lock", "seats": ["{a}"] }}, {{ "op": "lock", "seats": ["{b}"] }}, {{ "op": "commit" }}"#
            );
            vec![round; rounds].join(", ")
        };
        actors.push(format!(
            r#""p{p}a": [{}], "p{p}b": [{}]"#,
            program(&x, &y),
            program(&y, &x)
        ));
        for _ in 0..rounds {
            for _ in 0..4 {
                order.push(format!(r#""p{p}a", "p{p}b""#));
            }
        }
    }
    format!(
        r#"{{ "version": 1, "scenario": {{ "seats": [{}] }}, "actors": {{ {} }}, "order": [{}] }}"#,
        seats.join(", "),
        actors.join(", "),
        order.join(", ")
    )
}

/// A built page whose HTML has an inline module script, as Trunk writes it.
fn dist(name: &str) -> PathBuf {
    page::page_dir(
        &format!("hostile-{name}"),
        "<!doctype html><title>Last Seat</title><script type=\"module\">\nimport init from '/app.js';\nawait init();\n</script>",
    )
}

/// Starts the real server on port 0 with `limits` and `rules`; its address.
async fn spawn_with(limits: Limits, rules: Option<Rules>, dist: Option<PathBuf>) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port 0");
    let addr = listener.local_addr().expect("the bound address");
    let mut state = AppState::new(common::pool().await, dist);
    if let Some(rules) = rules {
        state = state.with_admission(rules);
    }
    tokio::spawn(backend::http::serve_with(listener, state, limits));
    addr
}

/// Short timeouts, so that the tests that wait for them are quick.
fn quick() -> Limits {
    Limits {
        header_read_timeout: Duration::from_secs(1),
        body_read_timeout: Duration::from_secs(1),
        ..Limits::default()
    }
}

/// A connection from `from` (any 127.0.0.x is this machine).
async fn connect_from(from: &str, to: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(format!("{from}:0").parse().unwrap())?;
    socket.connect(to).await
}

/// Reads until the server closes the connection (within `limit`); what it sent.
async fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> Option<String> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return Some(String::from_utf8_lossy(&got).into_owned()),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
            Err(_) => return None,
        }
    }
}

fn client_from(ip: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(ip.parse::<IpAddr>().unwrap())
        .build()
        .unwrap()
}

async fn post_json(client: reqwest::Client, addr: SocketAddr, body: String) -> reqwest::Response {
    client
        .post(format!("http://{addr}/api/runs"))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .expect("the request")
}

async fn json_message(
    response: reqwest::Response,
) -> (StatusCode, reqwest::header::HeaderMap, Value) {
    let status = response.status();
    let headers = response.headers().clone();
    let body: Value = response.json().await.expect("a JSON body");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    (status, headers, body)
}

#[path = "hostile/connections.rs"]
mod connections;
#[path = "hostile/requests.rs"]
mod requests;
#[path = "hostile/runs.rs"]
mod runs;
