//! A room whose Redis does not answer: the Redis hold says so and cannot start a round; every
//! other defence goes on working. (A test binary of its own: it points `REDIS_URL` at a port
//! where nothing listens.)

mod rooms {
    pub mod support;
}

use reqwest::StatusCode;
use rooms::support::{serve, Api, Db};
use serde_json::json;

#[tokio::test]
async fn without_redis_the_redis_hold_says_why_and_the_other_defences_work() {
    std::env::set_var("REDIS_URL", "redis://127.0.0.1:1");
    let db = Db::fresh().await;
    let api = Api::new(&serve(db.pool.clone()).await);
    let (code, secret) = api.room(json!({ "defence": "redis_hold" })).await;
    let state = api.state(&code).await;
    assert!(
        state["redis_unavailable"]
            .as_str()
            .unwrap()
            .contains("Redis at redis://127.0.0.1:1 is unavailable"),
        "{state}"
    );
    // The facilitator's form offers it as unavailable, with the same reason.
    let (_, options) = api.get("/api/rooms/options").await;
    for d in options["defences"].as_array().unwrap() {
        let why = d["unavailable"].as_str();
        if d["name"] == "redis_hold" {
            assert!(why.is_some_and(|w| w.contains("is unavailable")), "{d}");
        } else {
            assert!(why.is_none(), "{d}");
        }
    }
    let (status, body) = api
        .post(
            &format!("/api/rooms/{code}/rounds"),
            Some(&secret),
            json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("pick another defence"),
        "{body}"
    );
    let (status, body) = api
        .post(
            &format!("/api/rooms/{code}/settings"),
            Some(&secret),
            json!({ "defence": "atomic_update" }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    api.start(&code, &secret).await;
    let ana = api.join(&code, "Ana").await;
    let (status, body) = api.tap(&code, &ana, &["A3"]).await;
    assert_eq!(
        (status, body["holding"].clone()),
        (StatusCode::OK, json!(true)),
        "{body}"
    );
}
