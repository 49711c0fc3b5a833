//! The wire held to what README's "A live room" and the pages read: every key of the state, the
//! words of the phases and seats, a defence as its identifier.

use serde_json::{json, Value};

use super::*;
use crate::Defence;

fn state() -> RoomState {
    RoomState {
        code: "ACDEF".into(),
        round: 1,
        phase: Phase::Countdown,
        race_at_ms: Some(1_000),
        now_ms: 900,
        clock: 0,
        settings: Settings::default(),
        redis_unavailable: None,
        bots_racing: 0,
        participants: Participants {
            people: 1,
            bots: 0,
            names: vec![Named {
                n: 1,
                name: "Ana".into(),
            }],
        },
        seats: vec![Seat::available("A1".into())],
        counter: None,
        scoreboard: Scoreboard::default(),
        feed: vec![FeedRow {
            who: "Ana".into(),
            op: "claim".into(),
            sql: None,
            answer: "ok:1".into(),
            waited_ms: 0.4,
        }],
    }
}

fn keys(v: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    keys
}

#[test]
fn the_state_has_the_keys_the_screens_read() {
    let v = serde_json::to_value(state()).unwrap();
    assert_eq!(
        keys(&v),
        [
            "bots_racing",
            "clock",
            "code",
            "counter",
            "feed",
            "now_ms",
            "participants",
            "phase",
            "race_at_ms",
            "redis_unavailable",
            "round",
            "scoreboard",
            "seats",
            "settings"
        ]
    );
    assert_eq!(v["phase"], "countdown");
    assert_eq!(v["settings"]["defence"], "atomic_update");
    assert_eq!(
        v["seats"][0],
        json!({"id": "A1", "status": "AVAILABLE", "holder": null, "actor": null, "until": null, "ticket": false})
    );
    assert_eq!(
        v["participants"]["names"][0],
        json!({"n": 1, "name": "Ana"})
    );
    assert_eq!(
        keys(&v["scoreboard"]),
        [
            "double_bookings",
            "holds_never_released",
            "refunds_owed",
            "sold",
            "unique_refusals"
        ]
    );
    assert_eq!(
        keys(&v["feed"][0]),
        ["answer", "op", "sql", "waited_ms", "who"]
    );
    let back: RoomState = serde_json::from_value(v).unwrap();
    assert_eq!(back, state());
}

#[test]
fn seat_words_and_phases_read_as_they_are_written() {
    for s in [
        SeatStatus::Available,
        SeatStatus::Held,
        SeatStatus::Expired,
        SeatStatus::Booked,
    ] {
        assert_eq!(serde_json::to_value(s).unwrap(), s.word());
        assert_eq!(SeatStatus::parse(s.word()), Some(s));
    }
    assert_eq!(SeatStatus::parse("SOLD"), None);
    for (p, word) in [
        (Phase::Lobby, "lobby"),
        (Phase::Countdown, "countdown"),
        (Phase::Race, "race"),
        (Phase::Results, "results"),
    ] {
        assert_eq!(
            serde_json::to_value(PhaseNow { phase: p }).unwrap(),
            json!({ "phase": word })
        );
    }
}

#[test]
fn a_change_refuses_unknown_keys_and_an_option_says_the_defence_in_words() {
    let bad = serde_json::from_value::<Change>(json!({"defense": "lock_row"}));
    assert!(bad.unwrap_err().to_string().contains("defense"));
    let change: Change = serde_json::from_value(json!({"gap_ms": null, "seats": 3})).unwrap();
    assert_eq!(change.seats, Some(3));
    let option = DefenceOption {
        name: Defence::HoldConfirm,
        unavailable: None,
    };
    let wire = serde_json::to_value(&option).unwrap();
    assert_eq!(
        wire,
        json!({"name": "hold_confirm", "title": "Hold, pay, confirm", "summary": Defence::HoldConfirm.summary(), "pays": true, "unavailable": null})
    );
    assert_eq!(
        serde_json::from_value::<DefenceOption>(wire).unwrap(),
        option
    );
}

#[test]
fn a_general_admission_round_carries_its_kind_its_tickets_and_its_counter() {
    let mut s = state();
    s.settings.kind = crate::schedule::Shape::GeneralAdmission;
    s.settings.tickets = 100;
    s.seats = vec![];
    s.counter = Some(Counter {
        section: "floor".into(),
        tickets: 100,
        left: -3,
        sold: 103,
        oversold: 3,
    });
    let v = serde_json::to_value(&s).unwrap();
    assert_eq!(v["settings"]["kind"], "general_admission");
    assert_eq!(v["settings"]["tickets"], 100);
    assert_eq!(
        v["counter"],
        json!({"section": "floor", "tickets": 100, "left": -3, "sold": 103, "oversold": 3})
    );
    assert_eq!(serde_json::from_value::<RoomState>(v).unwrap(), s);
    // Settings written before there was a choice are a round of seats with the default tickets.
    let old: Settings = serde_json::from_value(json!({"seats": 8, "defence": "atomic_update",
        "gap_ms": 0, "hold_seconds": 60, "late_payments": false, "duplicate_payments": false}))
    .unwrap();
    assert_eq!(old, Settings::default());
    let change: Change =
        serde_json::from_value(json!({"kind": "general_admission", "tickets": 3})).unwrap();
    assert_eq!(
        (change.kind.as_deref(), change.tickets),
        (Some("general_admission"), Some(3))
    );
}
