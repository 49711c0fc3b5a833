//! A PostgreSQL restart in the middle of a round, on a private cluster the test starts (never
//! the shared server): the server keeps running, its pools and its LISTEN connection reconnect,
//! every booking and hold committed before the restart is intact, a tap during the outage is a
//! 503 that says the database is restarting (never a 500), the event stream tells its screens
//! that it is reconnecting and then sends the true state, and the round carries on. And a
//! request whose record is still being sent again after a restart keeps its participant's
//! lease, though it predates the restart: their next request is a 503 until that record is in.

#[allow(dead_code)]
#[path = "common/cluster.rs"]
mod cluster;
mod rooms {
    pub mod support;
}

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use backend::db;
use cluster::Cluster;
use reqwest::StatusCode;
use rooms::support::{serve, Api};
use serde_json::{json, Value};
use sqlx::{Connection, PgConnection};

/// The participants who keep tapping while the database restarts, each on a seat of their own.
const TAPPERS: usize = 40;

/// Reads the room's event stream into `events` (name and data, in order) until it ends.
async fn record_events(mut response: reqwest::Response, events: Arc<Mutex<Vec<(String, Value)>>>) {
    let mut buffer = String::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            let field = |name: &str| {
                event.lines().find_map(|l| {
                    l.strip_prefix(&format!("{name}: "))
                        .or_else(|| l.strip_prefix(&format!("{name}:")))
                        .map(str::to_string)
                })
            };
            if let (Some(name), Some(data)) = (field("event"), field("data")) {
                let data = serde_json::from_str(&data).expect("an event's data is JSON");
                events.lock().unwrap().push((name, data));
            }
        }
    }
}

fn seat<'a>(state: &'a Value, id: &str) -> &'a Value {
    state["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no seat {id} in {}", state["seats"]))
}

/// A pool on `cluster`'s database for these tests, its migrations run.
async fn migrated_pool(cluster: &Cluster) -> sqlx::PgPool {
    let pool = db::connect(&cluster.url("rooms_restart"), 20)
        .await
        .unwrap_or_else(|e| panic!("the private cluster: {e}\n{}", cluster.log()));
    sqlx::migrate!("../migrations")
        .run(&pool)
        .await
        .expect("the migrations");
    pool
}

/// Taps until the answer is not a 503 (for at most 20 s): the database is back.
async fn tap_until_answered(api: &Api, code: &str, token: &str, seats: &[&str]) -> Value {
    let give_up = Instant::now() + Duration::from_secs(20);
    loop {
        let (status, body) = api.tap(code, token, seats).await;
        if status != StatusCode::SERVICE_UNAVAILABLE {
            assert_eq!(status, StatusCode::OK, "{body}");
            return body;
        }
        assert!(
            Instant::now() < give_up,
            "still 503 20 s after the restart: {body}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_mid_round_loses_no_booking_answers_503_and_the_stream_reconnects() {
    let cluster = Arc::new(Cluster::start());
    let pool = migrated_pool(&cluster).await;
    let api = Api::new(&serve(pool.clone()).await);
    let (code, secret) = api
        .room(json!({ "seats": 50, "defence": "hold_confirm", "hold_seconds": 300 }))
        .await;
    let (ana, bo, cy) = (
        api.join(&code, "Ana").await,
        api.join(&code, "Bo").await,
        api.join(&code, "Cy").await,
    );
    let dee = api.join(&code, "Dee").await;
    let mut tappers = Vec::new();
    for i in 0..TAPPERS {
        tappers.push(api.join(&code, &format!("Tapper {i}")).await);
    }
    api.start(&code, &secret).await;

    let events = Arc::new(Mutex::new(Vec::new()));
    let stream = api
        .http
        .get(format!("{}/api/rooms/{code}/events", api.base))
        .send()
        .await
        .expect("the event stream");
    assert_eq!(stream.status(), StatusCode::OK);
    tokio::spawn(record_events(stream, events.clone()));

    // Committed before the restart: two tickets and a hold.
    for (token, id) in [(&ana, "A1"), (&bo, "A2")] {
        let (status, body) = api.tap(&code, token, &[id]).await;
        assert_eq!(
            (status, body["holding"].clone()),
            (StatusCode::OK, json!(true)),
            "{body}"
        );
        let (status, body) = api
            .post(&format!("/api/rooms/{code}/pay"), Some(token), json!({}))
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["message"], "paid: your ticket is issued", "{body}");
    }
    let (status, body) = api.tap(&code, &cy, &["A3"]).await;
    assert_eq!(
        (status, body["holding"].clone()),
        (StatusCode::OK, json!(true)),
        "{body}"
    );

    // The restart, slow enough to outlast a request's wait for a connection (5 s): the
    // server is stopped, and started again 8 s later, while the tappers tap one after
    // another, 200 ms apart, each on a seat of their own.
    let stopped = {
        let cluster = cluster.clone();
        tokio::task::spawn_blocking(move || cluster.stop())
    };
    let seats: Vec<String> = backend::room::settings::seat_ids(50)[10..10 + TAPPERS].to_vec();
    let mut taps = Vec::new();
    for (i, (token, id)) in tappers.iter().zip(&seats).enumerate() {
        let (api, code, token, id) = (Api::new(&api.base), code.clone(), token.clone(), id.clone());
        taps.push(tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200 * i as u64)).await;
            let (status, body) = api.tap(&code, &token, &[&id]).await;
            (token, id, status, body)
        }));
    }
    stopped.await.expect("the stop");
    tokio::time::sleep(Duration::from_secs(8)).await;
    let started = {
        let cluster = cluster.clone();
        tokio::task::spawn_blocking(move || cluster.start_again())
    };
    let mut during = Vec::new();
    for tap in taps {
        during.push(tap.await.expect("a tap"));
    }
    started.await.expect("the start");

    // Never a 500: answered, or a 503 that says why.
    let refused: Vec<_> = during
        .iter()
        .filter(|(_, _, s, _)| *s == StatusCode::SERVICE_UNAVAILABLE)
        .collect();
    for (_, id, status, body) in &during {
        assert!(
            *status == StatusCode::OK || *status == StatusCode::SERVICE_UNAVAILABLE,
            "a tap on {id} during the restart: {status} {body}"
        );
    }
    assert!(
        !refused.is_empty(),
        "no tap met the restart: {:?}",
        during.iter().map(|d| d.2).collect::<Vec<_>>()
    );
    for (_, id, _, body) in &refused {
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("the database is restarting"),
            "the 503 of a tap on {id}: {body}"
        );
    }

    // The round carries on: everyone refused taps again and gets their seat; Cy pays.
    for (token, id, status, _) in &during {
        if *status == StatusCode::SERVICE_UNAVAILABLE {
            let body = tap_until_answered(&api, &code, token, &[id]).await;
            assert_eq!(body["holding"], true, "{id} after the restart: {body}");
        }
    }
    let (status, body) = api
        .post(&format!("/api/rooms/{code}/pay"), Some(&cy), json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["message"], "paid: your ticket is issued", "{body}");

    // Nothing committed was lost.
    let state = api.state(&code).await;
    for (id, who) in [("A1", "Ana"), ("A2", "Bo"), ("A3", "Cy")] {
        let s = seat(&state, id);
        assert_eq!(
            (s["status"].as_str(), s["holder"].as_str()),
            (Some("BOOKED"), Some(who)),
            "{s}"
        );
        assert_eq!(s["ticket"], true, "{s}");
    }
    for (i, id) in seats.iter().enumerate() {
        let s = seat(&state, id);
        assert_eq!(s["status"], "HELD", "{s}");
        assert_eq!(s["holder"], format!("Tapper {i}"), "{s}");
    }
    assert_eq!(
        state["scoreboard"]["double_bookings"], 0,
        "{}",
        state["scoreboard"]
    );
    assert_eq!(state["scoreboard"]["sold"], 3, "{}", state["scoreboard"]);

    // The stream said it was reconnecting, then sent the true state, and followed on.
    let give_up = Instant::now() + Duration::from_secs(10);
    loop {
        let seen = events.lock().unwrap().clone();
        let reconnecting = seen.iter().position(|(name, _)| name == "reconnecting");
        if let Some(at) = reconnecting {
            let message = seen[at].1["message"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            assert!(message.contains("reconnecting"), "{}", seen[at].1);
            let last = seen[at..].iter().rev().find(|(name, _)| name == "state");
            if let Some((_, last)) = last {
                if seat(last, "A3")["ticket"] == true
                    && seats.iter().all(|id| seat(last, id)["status"] == "HELD")
                {
                    break;
                }
            }
        }
        assert!(
            Instant::now() < give_up,
            "the stream's events after the restart: {:?}",
            seen.iter()
                .map(|(name, data)| format!(
                    "{name} {}",
                    data.get("message").unwrap_or(&Value::Null)
                ))
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // And a quick restart (`pg_ctl restart -m fast`) with a tap in flight: answered, or a
    // 503 and then answered; never a 500.
    let restarting = {
        let cluster = cluster.clone();
        tokio::task::spawn_blocking(move || cluster.restart())
    };
    let body = tap_until_answered(&api, &code, &dee, &["A5"]).await;
    restarting.await.expect("the restart");
    assert_eq!(body["holding"], true, "{body}");
    let body = tap_until_answered(&api, &code, &dee, &["A6"]).await;
    assert_eq!(body["holding"], true, "{body}");
}

/// Waits (for at most 20 s) until a record of the room is sent and waits for a lock.
async fn until_a_record_waits(url: &str) {
    let mut conn = PgConnection::connect(url).await.expect("a connection");
    let give_up = Instant::now() + Duration::from_secs(20);
    loop {
        let waiting: i64 = sqlx::query_scalar(
            "select count(*) from pg_stat_activity
              where wait_event_type = 'Lock' and query like '%insert into lastseat_rooms.requests%'",
        )
        .fetch_one(&mut conn)
        .await
        .expect("pg_stat_activity");
        if waiting > 0 {
            return;
        }
        assert!(Instant::now() < give_up, "no record waits for the lock");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_sent_again_after_a_restart_keeps_its_lease_from_the_next_request() {
    let cluster = Arc::new(Cluster::start());
    let url = cluster.url("rooms_restart");
    // A prepared transaction, whose locks outlast a restart, keeps the records waiting.
    let mut admin = PgConnection::connect(&url)
        .await
        .expect("the private cluster");
    sqlx::query("alter system set max_prepared_transactions = 2")
        .execute(&mut admin)
        .await
        .expect("alter system");
    drop(admin);
    cluster.restart();
    let pool = migrated_pool(&cluster).await;
    let api = Api::new(&serve(pool.clone()).await);
    let (code, secret) = api
        .room(json!({ "seats": 10, "defence": "hold_confirm" }))
        .await;
    let dee = api.join(&code, "Dee").await;
    api.start(&code, &secret).await;

    // The room's row locked: a record (its requests refer to the room) waits until let go.
    let mut blocker = PgConnection::connect(&url).await.expect("a connection");
    sqlx::raw_sql("begin").execute(&mut blocker).await.unwrap();
    sqlx::query("select 1 from lastseat_rooms.rooms where code = $1 for update")
        .bind(&code)
        .execute(&mut blocker)
        .await
        .unwrap();
    sqlx::raw_sql("prepare transaction 'records_wait'")
        .execute(&mut blocker)
        .await
        .unwrap();

    // Dee holds A5; the record of it waits, the restart cuts it off, and it is sent again
    // (and waits again) on the new server: the lease it took predates that server's start.
    let first = {
        let (api, code, dee) = (Api::new(&api.base), code.clone(), dee.clone());
        tokio::spawn(async move { api.tap(&code, &dee, &["A5"]).await })
    };
    until_a_record_waits(&url).await;
    {
        let cluster = cluster.clone();
        tokio::task::spawn_blocking(move || cluster.restart())
            .await
            .expect("the restart");
    }
    // Sent again, so its first try met the restart: Dee is settling.
    until_a_record_waits(&url).await;

    // Dee's next request (another tab) neither takes that lease nor waits: a 503 that says why.
    let (status, body) =
        tokio::time::timeout(Duration::from_secs(10), api.tap(&code, &dee, &["A6"]))
            .await
            .expect(
                "the second tap waited behind the first one's record: it took over the lease \
                 that predates the restart",
            );
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("your last request is still being saved"),
        "{body}"
    );

    // Once the record is in, the first tap is answered and Dee carries on.
    let mut blocker = PgConnection::connect(&url).await.expect("a connection");
    sqlx::raw_sql("rollback prepared 'records_wait'")
        .execute(&mut blocker)
        .await
        .unwrap();
    let (status, body) = first.await.expect("the first tap");
    assert_eq!(
        (status, body["holding"].clone()),
        (StatusCode::OK, json!(true)),
        "{body}"
    );
    let body = tap_until_answered(&api, &code, &dee, &["A6"]).await;
    assert_eq!(body["holding"], true, "{body}");
    let (status, body) = api
        .post(&format!("/api/rooms/{code}/pay"), Some(&dee), json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["message"], "paid: your ticket is issued", "{body}");
    let state = api.state(&code).await;
    assert_eq!(seat(&state, "A5")["holder"], "Dee", "{state}");
    assert_eq!(seat(&state, "A6")["ticket"], true, "{state}");
    assert_eq!(state["scoreboard"]["double_bookings"], 0, "{state}");
}
