//! Live rooms on a real server (port 0), a fresh PostgreSQL database per test and the real
//! Redis: double bookings under check-then-act with a gap are counted; every correct defence
//! sells each seat once under many concurrent bots; only the facilitator changes a room and a
//! participant acts only as themselves; bad input says what is wrong; the event stream starts
//! with the whole state and follows changes made through another server; a round without
//! overlapping statements replays in the model exactly as it happened live.

mod rooms {
    pub mod support;
}

use std::time::Duration;

use reqwest::StatusCode;
use rooms::support::{bots_done, serve, Api, Db};
use serde_json::{json, Value};

#[tokio::test]
async fn check_then_act_with_a_gap_sells_one_seat_twice_and_the_scoreboard_counts_it() {
    let db = Db::fresh().await;
    let api = Api::new(&serve(db.pool.clone()).await);
    let (code, secret) = api
        .room(json!({ "seats": 1, "defence": "check_then_act", "gap_ms": 1000 }))
        .await;
    let (ana, bo) = (api.join(&code, "Ana").await, api.join(&code, "Bo").await);
    api.start(&code, &secret).await;
    // Both read A1 as free within the second between the check and the write.
    let ((s1, a), (s2, b)) =
        tokio::join!(api.tap(&code, &ana, &["A1"]), api.tap(&code, &bo, &["A1"]));
    assert_eq!((s1, s2), (StatusCode::OK, StatusCode::OK), "{a} {b}");
    assert_eq!(
        (a["holding"].clone(), b["holding"].clone()),
        (json!(true), json!(true)),
        "{a} {b}"
    );
    assert_eq!(a["message"], "A1 is yours");
    let state = api.state(&code).await;
    assert_eq!(
        state["scoreboard"]["double_bookings"], 1,
        "{}",
        state["scoreboard"]
    );
    // And bots on one more round: the double bookings that happen are counted, never hidden.
    api.start(&code, &secret).await;
    let (status, body) = api
        .post(
            &format!("/api/rooms/{code}/bots"),
            Some(&secret),
            json!({ "count": 30 }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let state = bots_done(&api, &code).await;
    assert_eq!(
        state["scoreboard"]["double_bookings"], 1,
        "{}",
        state["scoreboard"]
    );
    let told: i64 = sqlx::query_scalar(
        "select count(*) from lastseat_rooms.told where room = $1 and round = 2 and seat = 'A1'",
    )
    .bind(&code)
    .fetch_one(&db.pool)
    .await
    .unwrap();
    assert!(told >= 2, "{told} bots were told they got A1");
}

#[tokio::test]
async fn every_correct_defence_sells_each_seat_once_under_many_concurrent_bots() {
    let db = Db::fresh().await;
    let api = Api::new(&serve(db.pool.clone()).await);
    let (code, secret) = api.room(json!({ "seats": 3 })).await;
    for (round, defence) in [
        "atomic_update",
        "lock_row",
        "lock_nowait",
        "unique_constraint",
        "serializable_retry",
        "hold_confirm",
        "redis_hold",
    ]
    .into_iter()
    .enumerate()
    {
        let (status, body) = api
            .post(
                &format!("/api/rooms/{code}/settings"),
                Some(&secret),
                json!({ "defence": defence, "gap_ms": 20 }),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        api.start(&code, &secret).await;
        let (status, body) = api
            .post(
                &format!("/api/rooms/{code}/bots"),
                Some(&secret),
                json!({ "count": 40 }),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let state = bots_done(&api, &code).await;
        assert_eq!(
            state["scoreboard"]["double_bookings"], 0,
            "{defence}: {}",
            state["scoreboard"]
        );
        // No one told they have a seat has lost it: each seat's one holder is the one the
        // database says.
        let told: Vec<(String, String, i64)> = sqlx::query_as(
            "select t.seat, p.actor, count(*) over (partition by t.seat) from lastseat_rooms.told t
               join lastseat_rooms.participants p on p.room = t.room and p.n = t.n
              where t.room = $1 and t.round = $2",
        )
        .bind(&code)
        .bind(round as i32 + 1)
        .fetch_all(&db.pool)
        .await
        .unwrap();
        assert!(!told.is_empty(), "{defence}: nobody got a seat");
        let seats = state["seats"].as_array().unwrap();
        for (seat, actor, holders) in &told {
            assert_eq!(*holders, 1, "{defence}: {seat} told to {holders}");
            let row = seats.iter().find(|s| s["id"] == seat.as_str()).unwrap();
            let holder = row["holder"].as_str().map(str::to_string);
            let ticketed = row["ticket"] == true;
            assert!(
                holder.as_deref() == Some(actor.as_str()) || ticketed,
                "{defence}: {seat} told to {actor}, but the database has {row}"
            );
        }
        let (status, body) = api
            .post(
                &format!("/api/rooms/{code}/finish"),
                Some(&secret),
                json!({}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
}

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
    assert_eq!(body["message"], "you hold A1: 60 s left, pay now", "{body}");
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
}

#[tokio::test]
async fn a_round_without_overlapping_statements_replays_in_the_model_as_it_happened_live() {
    let db = Db::fresh().await;
    let api = Api::new(&serve(db.pool.clone()).await);
    // Payments land late: each after its one-second hold has run out.
    let settings =
        json!({ "seats": 3, "defence": "hold_confirm", "hold_seconds": 1, "late_payments": true });
    let (code, secret) = api.room(settings).await;
    let (ana, bo) = (api.join(&code, "Ana").await, api.join(&code, "Bo").await);
    // A statement sent while the clock's advance is in flight overlaps it: then play the round
    // again (the model's outcome is only claimed for rounds without overlaps).
    for round in 1..=3 {
        api.start(&code, &secret).await;
        let pay = format!("/api/rooms/{code}/pay");
        assert_eq!(api.tap(&code, &ana, &["A1"]).await.1["holding"], true);
        assert_eq!(api.tap(&code, &bo, &["A1"]).await.1["holding"], false);
        assert_eq!(api.tap(&code, &bo, &["A2"]).await.1["holding"], true);
        let (_, paid) = api.post(&pay, Some(&ana), json!({})).await;
        assert_eq!(
            paid["message"], "paid too late: refund on its way",
            "{paid}"
        );
        api.post(
            &format!("/api/rooms/{code}/finish"),
            Some(&secret),
            json!({}),
        )
        .await;
        let (status, body) = api
            .get(&format!("/api/rooms/{code}/rounds/{round}/schedule"))
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        if !body["overlaps"].as_array().unwrap().is_empty() {
            continue;
        }
        let schedule = shared::Schedule::parse_json(&body["schedule"].to_string())
            .unwrap_or_else(|e| panic!("{e}: {}", body["schedule"]));
        let trace = shared::engine::simulate(&schedule).expect("the model runs the round");
        let model: Vec<String> = trace
            .entries
            .iter()
            .map(|e| e.result.as_ref().map_or("waiting".into(), |r| r.short()))
            .collect();
        let live: Vec<String> = body["live"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["result"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(model, live, "{}", body["schedule"]);
        let outcome = shared::assess::assess(&schedule, trace);
        assert!(!outcome.verdict.double_booked);
        // The seats the model ends with are the ones PostgreSQL has.
        let state = api.state(&code).await;
        let end = &outcome.entries.last().unwrap().trace.tables;
        for seat in &end.seats {
            let live = state["seats"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["id"] == seat.id.as_str())
                .unwrap();
            assert_eq!(
                live["status"].as_str().unwrap().replace("EXPIRED", "HELD"),
                seat.status.as_sql(),
                "{seat:?} vs {live}"
            );
        }
        return;
    }
    panic!("three rounds in a row had overlapping statements");
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
    let taps = (0..30).map(|_| api.tap(&code, &ana, &["A1"]));
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

#[tokio::test]
async fn backend_load_drives_the_room_api_and_reports_what_the_buyers_were_told() {
    let db = Db::fresh().await;
    let base = serve(db.pool.clone()).await;
    let load = backend::load::Load {
        url: base,
        defence: "atomic_update".into(),
        buyers: 6,
        seats: 2,
        gap_ms: 0,
        duration: None,
    };
    let report = backend::load::run(&load).await.expect("the load run");
    assert_eq!(report.attempts, 6);
    assert_eq!(report.told.values().sum::<u64>(), 2, "{:?}", report.told);
    assert_eq!(report.double_bookings(), 0);
    assert_eq!(report.scoreboard["double_bookings"], 0);
    let words = backend::load::describe(&load, &report);
    assert!(
        words.contains("6 attempts") && words.contains("double bookings: 0"),
        "{words}"
    );
}
