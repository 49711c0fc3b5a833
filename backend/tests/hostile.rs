//! Hostile and careless clients against the real server (port 0, 127.0.0.x only): slow and
//! idle connections are closed, a flood of them leaves the server answering, a cross-site
//! request cannot start a run, every error is JSON, and runs are admitted fairly and priced
//! before they start. Every wait is bounded generously; speed is reported elsewhere
//! (`examples/flood.rs`), not asserted.

mod common;

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
    let dir = std::env::temp_dir().join(format!("lastseat-hostile-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary dist");
    std::fs::write(
        dir.join("index.html"),
        "<!doctype html><title>Last Seat</title><script type=\"module\">\nimport init from '/app.js';\nawait init();\n</script>",
    )
    .expect("index.html");
    dir
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

#[tokio::test]
async fn a_header_trickled_a_byte_at_a_time_is_cut_off_at_the_timeout() {
    let addr = spawn_with(quick(), None, None).await;
    let mut stream = connect_from("127.0.0.1", addr).await.unwrap();
    let started = Instant::now();
    let trickle = async {
        for byte in b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: "
            .iter()
            .cycle()
        {
            if stream.write_all(&[*byte]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            if started.elapsed() > Duration::from_secs(20) {
                panic!("the server took the trickle for 20 s");
            }
        }
    };
    trickle.await;
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "not before the timeout"
    );
}

#[tokio::test]
async fn a_body_shorter_than_its_content_length_is_a_408_in_json() {
    let addr = spawn_with(quick(), None, None).await;
    let mut stream = connect_from("127.0.0.1", addr).await.unwrap();
    stream
        .write_all(b"POST /api/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"version\": 1")
        .await
        .unwrap();
    let answer = read_until_closed(&mut stream, Duration::from_secs(15))
        .await
        .expect("answered and closed within 15 s");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.contains("application/json") && answer.contains("Content-Length"),
        "{answer}"
    );
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed() {
    let addr = spawn_with(quick(), None, None).await;
    let mut stream = connect_from("127.0.0.1", addr).await.unwrap();
    stream
        .write_all(b"GET /api/scenarios HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let answer = read_until_closed(&mut stream, Duration::from_secs(15))
        .await
        .expect("closed within 15 s of its answer");
    assert!(
        answer.starts_with("HTTP/1.1 200"),
        "answered first: {}",
        &answer[..40.min(answer.len())]
    );
}

/// The files this process has open.
fn open_files() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count())
}

#[tokio::test]
async fn a_flood_of_idle_connections_leaves_health_answering_from_anywhere() {
    let limits = Limits {
        max_connections: 600,
        max_per_client: 300,
        ..Limits::default()
    };
    let addr = spawn_with(limits, None, None).await;
    let before = open_files();
    // 2,000 from one address, 800 more from four others.
    let mut flood = Vec::new();
    for i in 0..2800 {
        let from = if i < 2000 {
            "127.0.0.1".to_string()
        } else {
            format!("127.0.0.{}", 2 + i % 4)
        };
        flood.push(
            connect_from(&from, addr)
                .await
                .expect("the kernel takes the connection"),
        );
    }
    for from in ["127.0.0.1", "127.0.0.9"] {
        let response = tokio::time::timeout(
            Duration::from_secs(10),
            client_from(from)
                .get(format!("http://{addr}/api/health"))
                .send(),
        )
        .await
        .unwrap_or_else(|_| panic!("health from {from} answers within 10 s"))
        .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "from {from}");
    }
    // The server keeps at most its cap of them open: the rest it closed.
    let deadline = Instant::now() + Duration::from_secs(15);
    let bound = before + flood.len() + 600 + 50;
    while open_files() > bound && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        open_files() <= bound,
        "{} files open, {bound} expected at most",
        open_files()
    );
}

#[tokio::test]
async fn a_text_plain_post_cannot_start_a_run_and_json_with_a_charset_can() {
    let addr = spawn_with(Limits::default(), None, None).await;
    let client = reqwest::Client::new();
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        let mut request = client.post(format!("http://{addr}/api/runs")).body(GOOD);
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        let (status, _, body) = json_message(request.send().await.unwrap()).await;
        assert_eq!(
            status,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "{content_type:?}"
        );
        assert_eq!(body["error"]["field"], "Content-Type");
        assert!(body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("application/json"));
    }
    let response = client
        .post(format!("http://{addr}/api/runs"))
        .header("content-type", "Application/JSON; charset=utf-8")
        .body(GOOD)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn every_response_carries_the_security_headers_and_the_page_its_script_hash() {
    let addr = spawn_with(Limits::default(), None, Some(dist("csp"))).await;
    for path in ["/api/health", "/api/nothing", "/", "/chapter/2"] {
        let response = reqwest::get(format!("http://{addr}{path}")).await.unwrap();
        let h = response.headers();
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(h["referrer-policy"], "no-referrer", "{path}");
        assert_eq!(h["x-frame-options"], "DENY", "{path}");
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        if !path.starts_with("/api") {
            assert!(
                csp.contains("script-src 'self' 'wasm-unsafe-eval' 'sha256-"),
                "{path}: {csp}"
            );
        }
    }
}

#[tokio::test]
async fn a_wrong_method_an_unknown_route_and_an_oversized_head_are_json() {
    let addr = spawn_with(Limits::default(), None, None).await;
    let client = reqwest::Client::new();
    let (status, headers, _) = json_message(
        client
            .get(format!("http://{addr}/api/runs"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(headers["allow"], "POST");
    let (status, ..) = json_message(
        client
            .delete(format!("http://{addr}/api/health"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    let (status, ..) = json_message(
        reqwest::get(format!("http://{addr}/no/such/page"))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let long = format!("http://{addr}/api/health?{}", "q".repeat(10_000));
    let (status, ..) = json_message(client.get(long).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::URI_TOO_LONG);
    let mut many = client.get(format!("http://{addr}/api/health"));
    for i in 0..150 {
        many = many.header(format!("x-h{i}"), "v");
    }
    let (status, ..) = json_message(many.send().await.unwrap()).await;
    assert_eq!(status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    let big = client
        .get(format!("http://{addr}/api/health"))
        .header("cookie", "c".repeat(20_000));
    let (status, _, body) = json_message(big.send().await.unwrap()).await;
    assert_eq!(
        status,
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        "{body}"
    );
}

#[tokio::test]
async fn a_run_that_finds_no_slot_in_time_is_a_503_with_retry_after() {
    let rules = Rules {
        queue_limit: Duration::from_secs(1),
        ..Rules::for_slots(1)
    };
    let addr = spawn_with(Limits::default(), Some(rules), None).await;
    let slow = tokio::spawn(post_json(client_from("127.0.0.1"), addr, deadlocks(1, 3)));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, headers, body) =
        json_message(post_json(client_from("127.0.0.2"), addr, GOOD.to_string()).await).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    let retry: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    assert_eq!(slow.await.unwrap().status(), StatusCode::OK);
}

#[tokio::test]
async fn a_run_priced_above_the_bound_is_refused_before_it_starts() {
    let addr = spawn_with(Limits::default(), None, None).await;
    let started = Instant::now();
    let response = post_json(reqwest::Client::new(), addr, deadlocks(2, 8)).await;
    let (status, _, body) = json_message(response).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("16 deadlocks") && message.contains("-- replay FILE"),
        "{message}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "refused, not run"
    );
}

#[tokio::test]
async fn a_second_client_is_served_before_the_first_clients_queue_is_done() {
    // Two slots, every run cheap: only the fair shares decide.
    let rules = Rules {
        cheap: Duration::from_secs(60),
        queue_limit: Duration::from_secs(40),
        ..Rules::for_slots(2)
    };
    let addr = spawn_with(Limits::default(), Some(rules), None).await;
    let finished = |from: &'static str, n: usize| {
        tokio::spawn(async move {
            let response = post_json(client_from("127.0.0.1"), addr, deadlocks(1, 2)).await;
            assert_eq!(response.status(), StatusCode::OK, "{from} {n}");
            Instant::now()
        })
    };
    let a: Vec<_> = (0..4).map(|n| finished("a", n)).collect();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let b = tokio::spawn(async move {
        let response = post_json(client_from("127.0.0.2"), addr, deadlocks(1, 2)).await;
        assert_eq!(response.status(), StatusCode::OK, "b");
        Instant::now()
    });
    let b = b.await.unwrap();
    let mut a_done = Vec::new();
    for t in a {
        a_done.push(t.await.unwrap());
    }
    a_done.sort();
    // First come, first served would run b after all four of a's.
    assert!(b < a_done[3], "b was served before a's last run");
}

#[tokio::test]
async fn cheap_runs_pass_while_slow_ones_hold_the_expensive_slots() {
    let addr = spawn_with(Limits::default(), Some(Rules::for_slots(2)), None).await;
    let slow: Vec<_> = (0..2)
        .map(|_| tokio::spawn(post_json(client_from("127.0.0.1"), addr, deadlocks(1, 3))))
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let response = post_json(client_from("127.0.0.2"), addr, GOOD.to_string()).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        slow.iter().any(|s| !s.is_finished()),
        "the cheap run did not wait for both slow ones"
    );
    for s in slow {
        assert_eq!(s.await.unwrap().status(), StatusCode::OK);
    }
}

#[tokio::test]
async fn a_large_report_is_sent_gzipped() {
    let addr = spawn_with(Limits::default(), None, None).await;
    let seats: Vec<String> = (0..64).map(|i| format!(r#"{{ "id": "S{i}" }}"#)).collect();
    let all: Vec<String> = (0..64).map(|i| format!(r#""S{i}""#)).collect();
    let read = format!(r#"{{ "op": "read", "seats": [{}] }}"#, all.join(", "));
    let program = vec![read; 16].join(", ");
    let actors: Vec<String> = (0..8).map(|a| format!(r#""b{a}": [{program}]"#)).collect();
    let order: Vec<String> = (0..128).map(|i| format!(r#""b{}""#, i % 8)).collect();
    let body = format!(
        r#"{{ "version": 1, "scenario": {{ "seats": [{}] }}, "actors": {{ {} }}, "order": [{}] }}"#,
        seats.join(", "),
        actors.join(", "),
        order.join(", ")
    );
    let sent = reqwest::Client::new()
        .post(format!("http://{addr}/api/runs"))
        .header("content-type", "application/json")
        .header("accept-encoding", "gzip")
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), StatusCode::OK);
    assert_eq!(sent.headers()["content-encoding"], "gzip");
    let wire = sent.bytes().await.unwrap().len();
    let plain = post_json(reqwest::Client::new(), addr, body)
        .await
        .bytes()
        .await
        .unwrap()
        .len();
    eprintln!("report: {plain} bytes plain, {wire} gzipped");
    assert!(wire * 10 < plain, "{wire} gzipped against {plain}");
}

#[tokio::test]
async fn a_request_hyper_cannot_parse_is_answered_400_and_closed() {
    // hyper answers these itself, before any of our code runs, with an empty body: it writes a
    // bare status line for a parse error and has no way to be given a body (see listener.rs).
    let addr = spawn_with(quick(), None, None).await;
    let mut stream = connect_from("127.0.0.1", addr).await.unwrap();
    stream
        .write_all(b"GET /\x01 HTTP/1.1\r\n\r\n")
        .await
        .unwrap();
    let answer = read_until_closed(&mut stream, Duration::from_secs(15))
        .await
        .expect("answered and closed");
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
}

#[tokio::test]
async fn a_client_that_stops_reading_its_answer_is_cut_off() {
    let dist = dist("stall");
    let big: Vec<u8> = (0..32_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(dist.join("big.bin"), &big).unwrap();
    let limits = Limits {
        write_stall_timeout: Duration::from_secs(1),
        ..Limits::default()
    };
    let addr = spawn_with(limits, None, Some(dist)).await;
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    stream
        .write_all(b"GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    // Read nothing for a while: the server's writes stall, then it gives up.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let mut got = 0usize;
    let mut buf = vec![0u8; 1 << 16];
    let closed = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => got += n,
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "the connection was closed");
    assert!(
        got < big.len(),
        "cut off after {got} of {} bytes",
        big.len()
    );
}
