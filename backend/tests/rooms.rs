//! Live rooms on a real server (port 0), a fresh PostgreSQL database per test and the real
//! Redis (`REDIS_URL`): double bookings under check-then-act with a gap are counted; every
//! correct defence sells each seat once under many concurrent bots; a round without
//! overlapping statements replays in the model exactly as it happened live; a request still
//! running when the next round starts leaves that round's lease and payment alone; `backend
//! load` drives the API. (Who may do what: `rooms_guard.rs`; the event stream:
//! `rooms_events.rs`.)

mod rooms {
    pub mod support;
}

use std::time::Duration;

use reqwest::StatusCode;
use rooms::support::{bots_done, serve, Api, Db};
use serde_json::json;

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
    assert_eq!(a["message"], "booked: A1 is yours");
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
            paid["message"],
            "too late for a ticket: your hold had ended, so your money is being refunded",
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
        // The round's clock counts seconds, and so does every sentence of its replay.
        assert_eq!(
            schedule.scenario().clock_unit,
            shared::schedule::ClockUnit::Second
        );
        let story = shared::explain::verdict_story(&schedule, &outcome).join("\n");
        assert!(story.contains("until second "), "{story}");
        assert!(!story.contains("minute"), "{story}");
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
async fn a_request_still_running_when_the_next_round_starts_leaves_that_rounds_payment_alone() {
    let db = Db::fresh().await;
    let api = Api::new(&serve(db.pool.clone()).await);
    let (code, secret) = api
        .room(json!({ "seats": 4, "defence": "check_then_act", "gap_ms": 5000 }))
        .await;
    let dee = api.join(&code, "Dee").await;
    api.start(&code, &secret).await;
    let busy = || async {
        sqlx::query_scalar::<_, bool>(
            "select busy_until is not null from lastseat_rooms.participants
              where room = $1 and name = 'Dee'",
        )
        .bind(&code)
        .fetch_one(&db.pool)
        .await
        .unwrap()
    };
    // Round 1: Dee's tap checks A1 and waits five seconds before it writes.
    let first = {
        let (api, code, dee) = (Api::new(&api.base), code.clone(), dee.clone());
        tokio::spawn(async move { api.tap(&code, &dee, &["A1"]).await })
    };
    while !busy().await {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Meanwhile the facilitator moves on to a round that pays, which frees every lease: Dee
    // holds A2 there, with its payment still to make.
    let host = format!("/api/rooms/{code}");
    let (status, body) = api
        .post(&format!("{host}/finish"), Some(&secret), json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = api
        .post(
            &format!("{host}/settings"),
            Some(&secret),
            json!({ "defence": "hold_confirm", "gap_ms": 0 }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // The start returns once round 1's pool is closed, after the tap in flight there.
    let second = {
        let (api, code, secret) = (Api::new(&api.base), code.clone(), secret.clone());
        tokio::spawn(async move { api.start(&code, &secret).await })
    };
    loop {
        let round: i32 =
            sqlx::query_scalar("select round from lastseat_rooms.rooms where code = $1")
                .bind(&code)
                .fetch_one(&db.pool)
                .await
                .unwrap();
        if round == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let (status, body) = api.tap(&code, &dee, &["A2"]).await;
    assert_eq!(
        (status, body["holding"].clone()),
        (StatusCode::OK, json!(true)),
        "{body}"
    );
    assert!(!first.is_finished(), "round 1's tap is still running");
    let (status, late) = first.await.unwrap();
    assert_eq!(status, StatusCode::OK, "{late}");
    assert!(
        !busy().await,
        "both taps are answered: no lease is left taken"
    );
    second.await.unwrap();
    // The late record of round 1 neither freed round 2's lease nor overwrote its payment.
    let (status, body) = api
        .post(&format!("{host}/pay"), Some(&dee), json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["message"], "paid: your ticket is issued", "{body}");
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
        release: false,
        tickets: None,
    };
    let report = backend::load::run(&load).await.expect("the load run");
    assert_eq!(report.attempts, 6);
    // Each buyer taps one of the two seats at random (all six pick the same one about one run
    // in 32): every seat tapped was told to exactly one buyer.
    assert!(
        (1..=2).contains(&report.told.len()) && report.told.values().all(|&n| n == 1),
        "{:?}",
        report.told
    );
    assert_eq!(report.double_bookings(), 0);
    assert_eq!(report.scoreboard["double_bookings"], 0);
    let words = backend::load::describe(&load, &report);
    assert!(
        words.contains("6 attempts") && words.contains("double bookings: 0"),
        "{words}"
    );
}
