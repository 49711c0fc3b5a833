//! Slow, idle, stalled, garbled and flooding connections.

use super::*;

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
