//! What the live room's pages ask the server for beside the room API, and the phone's words
//! checked against a real server's state: the options a facilitator picks from (every defence
//! a room offers, with whether it takes a payment), a phone's line at every turn of a real
//! round (a live hold counting down, a seat taken, a ticket, sold out), and a finished round's
//! link into the sandbox, which opens as the page will open it.

mod rooms {
    pub mod support;
}

use reqwest::StatusCode;
use rooms::support::{serve, Api, Db};
use serde_json::{json, Value};
use shared::protocol::room::RoomState;
use shared::view::room::{Answer, Asked, Phone, Tone};
use shared::Defence;

#[tokio::test]
async fn the_options_offer_every_room_defence_with_its_summary_and_bounds() {
    let db = Db::fresh().await;
    let api = Api::new(&serve(db.pool.clone()).await);
    let (status, options) = api.get("/api/rooms/options").await;
    assert_eq!(status, StatusCode::OK, "{options}");
    let names: Vec<&str> = options["defences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    let offered: Vec<&str> = backend::room::settings::ROOM_DEFENCES
        .iter()
        .map(|d| d.id())
        .collect();
    assert_eq!(names, offered);
    for d in options["defences"].as_array().unwrap() {
        assert!(d["summary"].as_str().is_some_and(|s| !s.is_empty()), "{d}");
        // Its title, as every page shows it: never its identifier.
        let defence = Defence::parse(d["name"].as_str().unwrap()).unwrap();
        assert_eq!(d["title"], defence.title(), "{d}");
        let pays = matches!(d["name"].as_str(), Some("hold_confirm" | "redis_hold"));
        assert_eq!(d["pays"], pays, "{d}");
        // Redis answers on this machine: nothing is unavailable.
        assert_eq!(d["unavailable"], Value::Null, "{d}");
    }
    assert_eq!(options["limits"]["seats"], 500);
    assert_eq!(options["limits"]["bots"], 1000);
    assert_eq!(options["defaults"]["seats"], 8);
}

/// A phone as the page has it: its actor and token, and the server's answer to its last request.
struct Phoned {
    actor: String,
    token: String,
    last: Option<Answer>,
}

async fn join(api: &Api, code: &str, name: &str) -> Phoned {
    let (status, body) = api
        .post(
            &format!("/api/rooms/{code}/participants"),
            None,
            json!({ "name": name }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    Phoned {
        actor: body["actor"].as_str().unwrap().into(),
        token: body["token"].as_str().unwrap().into(),
        last: None,
    }
}

/// Sends `path` for `phone` and keeps the answer as the page does.
async fn ask(api: &Api, code: &str, phone: &mut Phoned, asked: Asked, path: &str, body: Value) {
    let (status, reply) = api
        .post(
            &format!("/api/rooms/{code}/{path}"),
            Some(&phone.token),
            body,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    phone.last = Some(Answer {
        asked,
        round: 1,
        holding: reply["holding"].as_bool().unwrap(),
        message: reply["message"].as_str().unwrap().into(),
    });
}

/// The phone's line on the server's state now, on the server's own clock.
async fn line(api: &Api, code: &str, phone: &Phoned) -> shared::view::room::Line {
    let state: RoomState = serde_json::from_value(api.state(code).await).expect("the state");
    Phone::of(&state, &phone.actor, state.now_ms, phone.last.as_ref()).line()
}

#[tokio::test]
async fn a_phones_line_follows_a_real_round_hold_taken_ticket_and_sold_out() {
    let db = Db::fresh().await;
    let api = Api::new(&serve(db.pool.clone()).await);
    let (code, secret) = api
        .room(json!({ "seats": 2, "defence": "hold_confirm", "hold_seconds": 90 }))
        .await;
    let mut ana = join(&api, &code, "Ana").await;
    let mut bo = join(&api, &code, "Bo").await;
    let lobby = line(&api, &code, &ana).await;
    assert_eq!(
        lobby.text,
        "you are in: wait for the facilitator to start the round"
    );
    api.start(&code, &secret).await;
    assert_eq!(line(&api, &code, &ana).await.text, "go: tap a free seat");
    ask(
        &api,
        &code,
        &mut ana,
        Asked::Tap,
        "taps",
        json!({ "seats": ["A1"] }),
    )
    .await;
    let held = line(&api, &code, &ana).await;
    assert!(
        held.text.starts_with("you hold A1 — 1:") && held.text.ends_with(" left, pay now"),
        "{held:?}"
    );
    assert!(
        held.can_pay && held.can_cancel && held.holding == ["A1"],
        "{held:?}"
    );
    ask(
        &api,
        &code,
        &mut bo,
        Asked::Tap,
        "taps",
        json!({ "seats": ["A1"] }),
    )
    .await;
    let taken = line(&api, &code, &bo).await;
    assert_eq!(
        (taken.text.as_str(), taken.tone),
        ("A1 is already taken", Tone::Bad)
    );
    assert!(!taken.can_pay && !taken.can_cancel);
    ask(&api, &code, &mut ana, Asked::Pay, "pay", json!({})).await;
    assert_eq!(
        line(&api, &code, &ana).await.text,
        "paid: your ticket is issued"
    );
    ask(
        &api,
        &code,
        &mut bo,
        Asked::Tap,
        "taps",
        json!({ "seats": ["A2"] }),
    )
    .await;
    ask(&api, &code, &mut bo, Asked::Pay, "pay", json!({})).await;
    let cy = join(&api, &code, "Cy").await;
    assert_eq!(
        line(&api, &code, &cy).await.text,
        "sold out: every seat is taken"
    );
    assert_eq!(
        line(&api, &code, &bo).await.text,
        "paid: your ticket is issued"
    );
}

#[tokio::test]
async fn a_finished_round_opens_in_the_sandbox_by_its_link() {
    let db = Db::fresh().await;
    let api = Api::new(&serve(db.pool.clone()).await);
    let (code, secret) = api.room(json!({ "seats": 2 })).await;
    let ana = join(&api, &code, "Ana").await;
    let bo = join(&api, &code, "Bo").await;
    api.start(&code, &secret).await;
    api.tap(&code, &ana.token, &["A1"]).await;
    api.tap(&code, &bo.token, &["A1"]).await;
    api.post(
        &format!("/api/rooms/{code}/finish"),
        Some(&secret),
        json!({}),
    )
    .await;
    let (status, round) = api
        .get(&format!("/api/rooms/{code}/rounds/1/sandbox"))
        .await;
    assert_eq!(status, StatusCode::OK, "{round}");
    let path = round["path"].as_str().unwrap();
    let token = path.strip_prefix("/chapter/5?s=").expect(path);
    let view = shared::link::decode(token).expect("the link opens");
    let schedule = view.schedule().expect("its schedule runs");
    assert_eq!(
        schedule.order().len() as u64,
        round["entries"].as_u64().unwrap()
    );
    assert_eq!(
        view.step,
        schedule.order().len(),
        "the playhead is at the end"
    );
    let actors: Vec<&str> = schedule.actors().iter().map(|a| a.name.as_str()).collect();
    assert!(
        actors.contains(&ana.actor.as_str()) && actors.contains(&bo.actor.as_str()),
        "{actors:?}"
    );
    // Each overlap comes with its sentence, written once, by the model's words.
    for overlap in round["overlaps"].as_array().unwrap() {
        let entries = [0, 1].map(|i| overlap["entries"][i].as_u64().unwrap() as usize);
        let words = shared::explain::overlap_line(&schedule, entries).expect("both entries ran");
        assert_eq!(overlap["words"], words.as_str(), "{overlap}");
    }
    let (status, body) = api
        .get(&format!("/api/rooms/{code}/rounds/9/sandbox"))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("has not been played"),
        "{body}"
    );
}
