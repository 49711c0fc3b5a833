//! Who may do what in a live room, on a real server and a fresh database: only the
//! facilitator's secret changes a room and a participant acts only as themselves; bad input
//! says what is wrong; a participant is held to their rate and to one request at a time; an
//! idle room is swept with its seats.

mod rooms {
    pub mod support;
}

use std::time::Duration;

use reqwest::StatusCode;
use rooms::support::{serve, Api, Db};
use serde_json::json;

#[tokio::test]
async fn only_the_facilitator_changes_a_room_and_a_participant_acts_only_as_themselves() {
    let db = Db::fresh().await;
    let api = Api::new(&serve(db.pool.clone()).await);
    let (code, secret) = api
        .room(json!({ "seats": 2, "defence": "hold_confirm" }))
        .await;
    let (other, other_secret) = api.room(json!({})).await;
    let ana = api.join(&code, "Ana").await;
    for path in ["rounds", "reset", "finish", "settings", "bots"] {
        for bearer in [None, Some(ana.as_str()), Some(other_secret.as_str())] {
            let (status, body) = api
                .post(&format!("/api/rooms/{code}/{path}"), bearer, json!({}))
                .await;
            assert_eq!(
                status,
                StatusCode::UNAUTHORIZED,
                "{path} with {bearer:?}: {body}"
            );
            assert_eq!(body["error"]["field"], "Authorization", "{body}");
        }
    }
    api.start(&code, &secret).await;
    // A token is good only in its own room, and a tap acts as the token's owner alone.
    let (status, body) = api.tap(&other, &ana, &["A1"]).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    let (status, _) = api.tap(&code, "not-a-token", &["A1"]).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, body) = api.tap(&code, &ana, &["A1"]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body["message"], "A1 is held for you for 60 s: pay now",
        "{body}"
    );
    let bo = api.join(&code, "Bo").await;
    let (status, body) = api
        .post(&format!("/api/rooms/{code}/pay"), Some(&bo), json!({}))
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "Bo has nothing to pay: {body}"
    );
    let (status, body) = api
        .post(&format!("/api/rooms/{code}/pay"), Some(&ana), json!({}))
        .await;
    assert_eq!(
        (status, body["message"].clone()),
        (StatusCode::OK, json!("paid: your ticket is issued")),
        "{body}"
    );
    let state = api.state(&code).await;
    assert_eq!(state["seats"][0]["holder"], "Ana", "{}", state["seats"]);
    assert_eq!(state["scoreboard"]["sold"], 1);
}

#[tokio::test]
async fn bad_input_is_refused_with_a_message_that_names_it() {
    let db = Db::fresh().await;
    let api = Api::new(&serve(db.pool.clone()).await);
    let cases = [
        (json!({ "seats": 501 }), "seats", "1 to 500"),
        (json!({ "defence": "hope" }), "defence", "atomic_update"),
        (json!({ "gap_ms": -1 }), "gap_ms", "0 to 5000"),
        (json!({ "colour": "red" }), "body", "unknown field"),
    ];
    for (body, field, words) in cases {
        let (status, answer) = api.post("/api/rooms", None, body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {answer}");
        assert_eq!(answer["error"]["field"], field, "{answer}");
        assert!(
            answer["error"]["message"].as_str().unwrap().contains(words),
            "{answer}"
        );
    }
    let (code, secret) = api.room(json!({ "seats": 8 })).await;
    let (status, answer) = api
        .post(
            &format!("/api/rooms/{code}/participants"),
            None,
            json!({ "name": "x'); drop table rooms; --" }),
        )
        .await;
    assert_eq!(
        (status, answer["error"]["field"].clone()),
        (StatusCode::BAD_REQUEST, json!("name")),
        "{answer}"
    );
    let (status, answer) = api
        .post(
            "/api/rooms/QQQQQ/participants",
            None,
            json!({ "name": "Ana" }),
        )
        .await;
    assert_eq!(
        (status, answer["error"]["field"].clone()),
        (StatusCode::BAD_REQUEST, json!("code")),
        "{answer}"
    );
    let ana = api.join(&code, "Ana").await;
    let (status, answer) = api.tap(&code, &ana, &["A1"]).await;
    assert_eq!(status, StatusCode::CONFLICT, "no round yet: {answer}");
    api.start(&code, &secret).await;
    for (seats, words) in [
        (vec!["Z9"], "not a seat"),
        (vec![], "1 to 4"),
        (vec!["A1", "A1"], "twice"),
    ] {
        let (status, answer) = api.tap(&code, &ana, &seats).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{seats:?}: {answer}");
        assert!(
            answer["error"]["message"].as_str().unwrap().contains(words),
            "{answer}"
        );
    }
    // A refused tap leaves the participant free for the next one.
    let (status, answer) = api.tap(&code, &ana, &["A1"]).await;
    assert_eq!(status, StatusCode::OK, "after the refused taps: {answer}");
    let response = api
        .http
        .post(format!("{}/api/rooms", api.base))
        .header("content-type", "text/plain")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
}

#[tokio::test]
async fn an_idle_room_is_swept_with_its_seats() {
    let db = Db::fresh().await;
    let api = Api::new(&serve(db.pool.clone()).await);
    let (code, secret) = api.room(json!({})).await;
    api.start(&code, &secret).await;
    let schema = format!("room_{}_r1", code.to_lowercase());
    let exists = |pool: sqlx::PgPool, schema: String| async move {
        sqlx::query_scalar::<_, bool>(
            "select exists (select 1 from pg_namespace where nspname = $1)",
        )
        .bind(schema)
        .fetch_one(&pool)
        .await
        .unwrap()
    };
    assert!(exists(db.pool.clone(), schema.clone()).await);
    let gone = backend::room::ticker::sweep_idle(&db.pool, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(gone, std::slice::from_ref(&code));
    assert!(!exists(db.pool.clone(), schema).await);
    let (status, body) = api.get(&format!("/api/rooms/{code}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
}

#[tokio::test]
async fn a_participant_is_held_to_their_rate_and_to_one_request_at_a_time() {
    let db = Db::fresh().await;
    let api = Api::new(&serve(db.pool.clone()).await);
    let (code, secret) = api
        .room(json!({ "seats": 8, "defence": "check_then_act", "gap_ms": 300 }))
        .await;
    let ana = api.join(&code, "Ana").await;
    api.start(&code, &secret).await;
    // Sixty at once: however slowly a busy machine sends them, within a few seconds at most
    // 20 + 10 a second get past the limiter.
    let taps = (0..60).map(|_| api.tap(&code, &ana, &["A1"]));
    let answers = futures::future::join_all(taps).await;
    let count = |s: StatusCode| answers.iter().filter(|(status, _)| *status == s).count();
    assert!(count(StatusCode::TOO_MANY_REQUESTS) >= 10, "{answers:?}");
    assert!(
        count(StatusCode::CONFLICT) >= 1,
        "one request at a time: {answers:?}"
    );
    assert!(count(StatusCode::OK) >= 1, "{answers:?}");
    let limited = answers
        .iter()
        .find(|(s, _)| *s == StatusCode::TOO_MANY_REQUESTS)
        .unwrap();
    assert!(
        limited.1["error"]["message"]
            .as_str()
            .unwrap()
            .contains("10 requests a second"),
        "{limited:?}"
    );
}
