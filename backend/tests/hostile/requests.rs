//! What a request may be: JSON only for a run, a head of bounded size, and every answer with
//! its security headers and, if an error, a JSON message.

use super::*;

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
