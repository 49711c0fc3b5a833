//! A live room's event stream, on real servers sharing a fresh database: it starts with the
//! whole state, follows changes made through another server (LISTEN/NOTIFY) and resynchronises
//! a screen that reconnects.

mod rooms {
    pub mod support;
}

use std::time::Duration;

use reqwest::StatusCode;
use rooms::support::{serve, Api, Db};
use serde_json::{json, Value};

/// Reads server-sent events of `response` until one whose state satisfies `want`.
async fn next_state(
    response: &mut reqwest::Response,
    buffer: &mut String,
    want: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            if let Some(data) = event
                .lines()
                .find_map(|l| l.strip_prefix("data: ").or_else(|| l.strip_prefix("data:")))
            {
                let state: Value = serde_json::from_str(data).expect("an event's state is JSON");
                if want(&state) {
                    return state;
                }
            }
        }
        let chunk = tokio::time::timeout_at(deadline, response.chunk())
            .await
            .expect("an event within 20 s")
            .expect("the stream");
        buffer.push_str(&String::from_utf8_lossy(
            &chunk.expect("the stream goes on"),
        ));
    }
}

#[tokio::test]
async fn events_start_with_the_whole_state_follow_another_servers_changes_and_resynchronise() {
    let db = Db::fresh().await;
    let one = Api::new(&serve(db.pool.clone()).await);
    let two = Api::new(&serve(db.another_pool().await).await);
    let (code, secret) = one.room(json!({ "seats": 4 })).await;
    let mut stream = two
        .http
        .get(format!("{}/api/rooms/{code}/events", two.base))
        .send()
        .await
        .unwrap();
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    let mut buffer = String::new();
    let first = next_state(&mut stream, &mut buffer, |_| true).await;
    assert_eq!(
        (
            first["phase"].clone(),
            first["participants"]["people"].clone()
        ),
        (json!("lobby"), json!(0)),
        "{first}"
    );
    // A join on the first server reaches the second's stream through NOTIFY.
    let ana = one.join(&code, "Ana").await;
    next_state(&mut stream, &mut buffer, |s| {
        s["participants"]["people"] == 1
    })
    .await;
    one.start(&code, &secret).await;
    next_state(&mut stream, &mut buffer, |s| s["round"] == 1).await;
    drop(stream);
    // Changes made while the phone was away are in the first event of its new stream.
    let (status, body) = one.tap(&code, &ana, &["A2"]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mut stream = two
        .http
        .get(format!("{}/api/rooms/{code}/events", two.base))
        .send()
        .await
        .unwrap();
    let mut buffer = String::new();
    let again = next_state(&mut stream, &mut buffer, |_| true).await;
    assert_eq!(again["seats"][1]["holder"], "Ana", "{}", again["seats"]);
    assert_eq!(again["feed"][0]["who"], "Ana", "{}", again["feed"]);
    assert!(
        again["feed"][0]["sql"]
            .as_str()
            .unwrap()
            .contains("update show_seats"),
        "{}",
        again["feed"]
    );
    // Someone who joins after the second server counted the room is counted and named there
    // (each server counts again only when the room's highest participant number moves).
    one.join(&code, "Bo").await;
    let counted = next_state(&mut stream, &mut buffer, |s| {
        s["participants"]["people"] == 2
    })
    .await;
    assert_eq!(
        counted["participants"]["names"],
        json!([{ "n": 1, "name": "Ana" }, { "n": 2, "name": "Bo" }]),
        "{counted}"
    );
}
