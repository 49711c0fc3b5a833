//! General-admission rounds of a live room on a real server (port 0), a fresh PostgreSQL
//! database per test and the real Redis: a section of three under check-then-act with a wide
//! gap sells more than three and the projector's counter says by how many; the atomic update
//! and the row lock never oversell under a hundred bots; settings that do not fit are refused
//! naming the field; a recorded round replays in the model as it happened live; `backend load
//! --tickets` races a section and counts the oversold.

mod rooms {
    pub mod support;
}

use reqwest::StatusCode;
use rooms::support::{bots_done, serve, Api, Db};
use serde_json::{json, Value};

/// Asks for one ticket: a general-admission tap names no seat.
async fn buy(api: &Api, code: &str, token: &str) -> (StatusCode, Value) {
    api.tap(code, token, &[]).await
}

#[tokio::test]
async fn check_then_act_with_a_wide_gap_oversells_a_section_of_three() {
    let db = Db::fresh().await;
    let api = Api::new(&serve(db.pool.clone()).await);
    let settings = json!({ "kind": "general_admission", "tickets": 3,
                           "defence": "check_then_act", "gap_ms": 1000 });
    let (code, secret) = api.room(settings).await;
    let names = ["Ana", "Bo", "Cy", "Dee", "Eve", "Fay"];
    let mut tokens = Vec::new();
    for name in names {
        tokens.push(api.join(&code, name).await);
    }
    api.start(&code, &secret).await;
    let state = api.state(&code).await;
    assert_eq!(state["seats"], json!([]), "{state}");
    assert_eq!(state["counter"]["left"], 3, "{state}");
    // Six buyers read "3 left" within the second between their check and their decrement.
    let answers = futures::future::join_all(tokens.iter().map(|t| buy(&api, &code, t))).await;
    let mut got = 0;
    for (status, body) in &answers {
        assert_eq!(*status, StatusCode::OK, "{body}");
        if body["holding"] == true {
            got += 1;
            assert_eq!(body["message"], "you got a ticket", "{body}");
        } else {
            assert_eq!(
                body["message"], "sold out: no ticket left for you",
                "{body}"
            );
        }
    }
    assert!(got > 3, "only {got} of six were told they got a ticket");
    let state = api.state(&code).await;
    let counter = &state["counter"];
    assert_eq!(counter["tickets"], 3, "{counter}");
    assert_eq!(counter["sold"], got, "{counter}");
    assert_eq!(counter["oversold"], got - 3, "{counter}");
    // Every decrement was sent after a stale check: the row went below zero.
    assert_eq!(counter["left"], 3 - got, "{counter}");
    assert_eq!(state["scoreboard"]["sold"], got, "{}", state["scoreboard"]);
    assert_eq!(state["scoreboard"]["double_bookings"], got - 3);
    // The feed says who sent what to the section's row.
    let feed = state["feed"].as_array().unwrap();
    assert!(
        feed.iter()
            .any(|r| names.contains(&r["who"].as_str().unwrap())
                && r["sql"].as_str().unwrap_or("").contains("tickets_left")),
        "{}",
        state["feed"]
    );
    // A general-admission ticket is not held: nothing to cancel or pay.
    let (status, body) = api
        .post(
            &format!("/api/rooms/{code}/cancel"),
            Some(&tokens[0]),
            json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
}

#[tokio::test]
async fn the_atomic_update_and_the_row_lock_never_oversell_under_a_hundred_bots() {
    let db = Db::fresh().await;
    let api = Api::new(&serve(db.pool.clone()).await);
    for defence in ["atomic_update", "lock_row"] {
        let settings = json!({ "kind": "general_admission", "tickets": 10,
                               "defence": defence, "gap_ms": 200 });
        let (code, secret) = api.room(settings).await;
        api.start(&code, &secret).await;
        let (status, body) = api
            .post(
                &format!("/api/rooms/{code}/bots"),
                Some(&secret),
                json!({ "count": 100 }),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let state = bots_done(&api, &code).await;
        let counter = &state["counter"];
        assert_eq!(
            (&counter["sold"], &counter["oversold"], &counter["left"]),
            (&json!(10), &json!(0), &json!(0)),
            "{defence}: {counter}"
        );
        let told: i64 = sqlx::query_scalar(
            "select count(*) from lastseat_rooms.told where room = $1 and round = 1 and booked",
        )
        .bind(&code)
        .fetch_one(&db.pool)
        .await
        .unwrap();
        assert_eq!(told, 10, "{defence}");
    }
}

#[tokio::test]
async fn settings_that_do_not_fit_a_general_admission_round_are_refused_naming_the_field() {
    let db = Db::fresh().await;
    let api = Api::new(&serve(db.pool.clone()).await);
    let ga = "general_admission";
    let cases = [
        (
            json!({ "kind": "stadium" }),
            "kind",
            "seats or general_admission",
        ),
        (json!({ "kind": ga, "tickets": 0 }), "tickets", "1 to 500"),
        (json!({ "kind": ga, "tickets": 501 }), "tickets", "1 to 500"),
        (
            json!({ "kind": ga, "defence": "hold_confirm" }),
            "defence",
            "atomic_update",
        ),
        (
            json!({ "kind": ga, "defence": "redis_hold" }),
            "defence",
            "does not fit",
        ),
    ];
    for (body, field, words) in cases {
        let (status, answer) = api.post("/api/rooms", None, body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {answer}");
        assert_eq!(answer["error"]["field"], field, "{body}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(words), "{body}: {message}");
    }
    // A room of holds switched to general admission: the kind is what no longer fits.
    let (code, secret) = api.room(json!({ "defence": "hold_confirm" })).await;
    let settings = format!("/api/rooms/{code}/settings");
    let (status, answer) = api
        .post(&settings, Some(&secret), json!({ "kind": ga }))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert_eq!(answer["error"]["field"], "kind", "{answer}");
    let change = json!({ "kind": ga, "tickets": 5, "defence": "lock_nowait" });
    let (status, answer) = api.post(&settings, Some(&secret), change).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["settings"]["kind"], ga);
    assert_eq!(answer["settings"]["tickets"], 5);
    // The options say which defences fit, and why the others do not.
    let (status, options) = api.get(&format!("/api/rooms/options?kind={ga}")).await;
    assert_eq!(status, StatusCode::OK, "{options}");
    for d in options["defences"].as_array().unwrap() {
        let fits = [
            "check_then_act",
            "transaction",
            "serializable_retry",
            "atomic_update",
            "lock_row",
            "lock_nowait",
        ]
        .contains(&d["name"].as_str().unwrap());
        let why = d["unavailable"].as_str().unwrap_or("");
        assert_eq!(fits, why.is_empty(), "{d}");
        assert!(
            fits || why.contains("does not fit a general-admission round"),
            "{d}"
        );
    }
    assert_eq!(options["limits"]["tickets"], 500);
    let (status, answer) = api.get("/api/rooms/options?kind=stadium").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert_eq!(answer["error"]["field"], "kind", "{answer}");
    // A tap that names a seat in a round without seats says how to ask for a ticket.
    let ana = api.join(&code, "Ana").await;
    api.start(&code, &secret).await;
    let (status, answer) = api.tap(&code, &ana, &["A1"]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert_eq!(answer["error"]["field"], "seats", "{answer}");
    let (status, answer) = buy(&api, &code, &ana).await;
    assert_eq!(
        (status, &answer["holding"]),
        (StatusCode::OK, &json!(true)),
        "{answer}"
    );
    // The round counts buyers told yes against its tickets: one ticket per phone.
    let (status, answer) = buy(&api, &code, &ana).await;
    assert_eq!(status, StatusCode::CONFLICT, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains("one per phone"), "{answer}");
}

#[tokio::test]
async fn a_general_admission_round_replays_in_the_model_as_it_happened_live() {
    let db = Db::fresh().await;
    let api = Api::new(&serve(db.pool.clone()).await);
    let settings = json!({ "kind": "general_admission", "tickets": 2, "defence": "lock_row" });
    let (code, secret) = api.room(settings).await;
    let tokens = [
        api.join(&code, "Ana").await,
        api.join(&code, "Bo").await,
        api.join(&code, "Cy").await,
    ];
    // A statement sent while the clock's advance is in flight overlaps it: then play the round
    // again (the model's outcome is only claimed for rounds without overlaps).
    for round in 1..=3 {
        api.start(&code, &secret).await;
        let mut holding = Vec::new();
        for t in &tokens {
            holding.push(buy(&api, &code, t).await.1["holding"].clone());
        }
        assert_eq!(holding, [json!(true), json!(true), json!(false)]);
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
        let file = &body["schedule"];
        assert_eq!(file["scenario"]["kind"], "general_admission", "{file}");
        assert_eq!(
            file["scenario"]["seats"],
            json!([{ "id": "floor", "value": 2 }]),
            "{file}"
        );
        if !body["overlaps"].as_array().unwrap().is_empty() {
            continue;
        }
        let schedule = shared::Schedule::parse_json(&file.to_string())
            .unwrap_or_else(|e| panic!("{e}: {file}"));
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
        assert_eq!(model, live, "{file}");
        let outcome = shared::assess::assess(&schedule, trace);
        assert!(!outcome.verdict.double_booked, "{file}");
        // The section the model ends with is the one PostgreSQL has.
        let end = &outcome.entries.last().unwrap().trace.tables;
        let floor = end.seats.iter().find(|s| s.id == "floor").unwrap();
        assert_eq!(
            floor.value,
            Some(api.state(&code).await["counter"]["left"].as_i64().unwrap())
        );
        // And the round opens in the sandbox.
        let (status, link) = api
            .get(&format!("/api/rooms/{code}/rounds/{round}/sandbox"))
            .await;
        assert_eq!(status, StatusCode::OK, "{link}");
        assert!(
            link["path"].as_str().unwrap().starts_with("/chapter/"),
            "{link}"
        );
        return;
    }
    panic!("three rounds in a row had overlapping statements");
}

/// `backend load --tickets N`: a general-admission round driven through the room API, what the
/// buyers were told added up against the section and the server's scoreboard.
#[tokio::test]
async fn backend_load_races_a_section_and_counts_the_oversold() {
    let db = Db::fresh().await;
    let base = serve(db.pool.clone()).await;
    for (defence, gap_ms) in [("atomic_update", 0), ("check_then_act", 1000)] {
        let load = backend::load::Load {
            url: base.clone(),
            defence: defence.into(),
            buyers: 6,
            seats: 0,
            gap_ms,
            duration: None,
            release: false,
            tickets: Some(3),
        };
        let report = backend::load::run(&load).await.expect("the load run");
        assert_eq!(report.attempts, 6, "{defence}");
        let told = report
            .told
            .get(backend::load::SECTION)
            .copied()
            .unwrap_or(0);
        let words = backend::load::describe(&load, &report);
        assert_eq!(
            report.scoreboard["double_bookings"],
            report.double_bookings(),
            "{defence}: the buyers and the server count the same oversold: {words}"
        );
        assert!(words.contains("a section of 3 tickets"), "{words}");
        if defence == "atomic_update" {
            // The bounded decrement: three told yes, three told it is sold out.
            assert_eq!((told, report.double_bookings()), (3, 0), "{words}");
            assert!(
                words.contains("oversold: 0 (told by the buyers)"),
                "{words}"
            );
        } else {
            // Six checks of "3 left" within the second before any decrement.
            assert!(told > 3, "{words}");
            assert_eq!(report.double_bookings() as u64, told - 3, "{words}");
        }
    }
}
