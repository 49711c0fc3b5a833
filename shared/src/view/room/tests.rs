//! Every state a phone can be in, worded: data in, the line out.

use super::*;
use crate::protocol::room::{Counter, Phase, RoomState, Seat, SeatStatus};

const RACE_AT: i64 = 1_000_000;

fn seat(id: &str, status: SeatStatus, actor: Option<&str>, until: Option<i64>) -> Seat {
    Seat {
        id: id.into(),
        status,
        holder: actor.map(|a| a.to_uppercase()),
        actor: actor.map(str::to_string),
        until,
        ticket: status == SeatStatus::Booked,
    }
}

fn answer(asked: Asked, holding: bool, message: &str) -> Answer {
    Answer {
        asked,
        round: 1,
        holding,
        message: message.into(),
    }
}

fn phone<'a>(phase: Phase, seats: &'a [Seat], last: Option<&'a Answer>, now: i64) -> Phone<'a> {
    Phone {
        phase,
        round: 1,
        me: "ana",
        seats,
        counter: None,
        pays: true,
        race_at_ms: Some(RACE_AT),
        now_ms: now,
        last,
    }
}

#[test]
fn the_lobby_and_the_countdown_say_what_to_wait_for() {
    let seats = [seat("A1", SeatStatus::Available, None, None)];
    let lobby = phone(Phase::Lobby, &seats, None, 0).line();
    assert_eq!(
        lobby.text,
        "you are in: wait for the facilitator to start the round"
    );
    let count = phone(Phase::Countdown, &seats, None, RACE_AT - 2_100).line();
    assert_eq!(count.text, "get ready: 3");
    // The server's deadline passed on the phone's estimate of its clock: the race is open.
    let open = phone(Phase::Countdown, &seats, None, RACE_AT).line();
    assert_eq!(open.text, "go: tap a free seat");
    assert!(!open.can_pay && !open.can_cancel);
}

#[test]
fn a_live_hold_counts_down_from_the_servers_deadline() {
    let seats = [seat("A7", SeatStatus::Held, Some("ana"), Some(60))];
    let tap = answer(Asked::Tap, true, "you hold A7: 60 s left, pay now");
    let line = phone(Phase::Race, &seats, Some(&tap), RACE_AT + 19_000).line();
    assert_eq!(line.text, "you hold A7 — 0:41 left, pay now");
    assert!(line.can_pay && line.can_cancel);
    assert_eq!(line.holding, ["A7"]);
    let mut no_pay = phone(Phase::Race, &seats, Some(&tap), RACE_AT + 59_500);
    no_pay.pays = false;
    let line = no_pay.line();
    assert_eq!(line.text, "you hold A7 — 0:01 left");
    assert!(!line.can_pay && line.can_cancel);
    // Past the deadline the phone never decides: the server's state still says held.
    let late = phone(Phase::Race, &seats, Some(&tap), RACE_AT + 70_000).line();
    assert_eq!(late.text, "you hold A7 — 0:00 left, pay now");
}

#[test]
fn someone_elses_hold_is_not_ours() {
    let seats = [
        seat("A1", SeatStatus::Held, Some("bo"), Some(60)),
        seat("A2", SeatStatus::Available, None, None),
    ];
    let taken = answer(Asked::Tap, false, "A1 is taken: pick another seat");
    let line = phone(Phase::Race, &seats, Some(&taken), RACE_AT).line();
    assert_eq!(line.text, "A1 is taken: pick another seat");
    assert_eq!(line.tone, Tone::Bad);
    assert!(!line.can_cancel);
    let busy = answer(Asked::Tap, false, "those seats are busy, pick again");
    assert_eq!(
        phone(Phase::Race, &seats, Some(&busy), RACE_AT).line().text,
        "those seats are busy, pick again"
    );
}

#[test]
fn no_free_seat_is_sold_out() {
    let seats = [
        seat("A1", SeatStatus::Booked, Some("bo"), None),
        seat("A2", SeatStatus::Held, Some("cy"), Some(60)),
    ];
    assert_eq!(
        phone(Phase::Race, &seats, None, RACE_AT).line().text,
        "sold out: every seat is taken"
    );
    let taken = answer(Asked::Tap, false, "A1 is taken: pick another seat");
    assert_eq!(
        phone(Phase::Race, &seats, Some(&taken), RACE_AT)
            .line()
            .text,
        "sold out: every seat is taken"
    );
    // An expired hold is free again: not sold out.
    let seats = [seat("A1", SeatStatus::Expired, Some("bo"), Some(10))];
    assert_eq!(
        phone(Phase::Race, &seats, None, RACE_AT).line().text,
        "go: tap a free seat"
    );
}

#[test]
fn a_hold_that_ran_out_says_so_and_a_late_payment_says_refund() {
    let seats = [seat("A7", SeatStatus::Expired, Some("ana"), Some(1))];
    let tap = answer(Asked::Tap, true, "you hold A7: 1 s left, pay now");
    let line = phone(Phase::Race, &seats, Some(&tap), RACE_AT + 5_000).line();
    assert_eq!(line.text, "your hold on A7 ran out: pick again");
    assert!(!line.can_pay);
    let paid = answer(Asked::Pay, false, "paid too late: refund on its way");
    let line = phone(Phase::Race, &seats, Some(&paid), RACE_AT + 5_000).line();
    assert_eq!(line.text, "paid too late: refund on its way");
    assert_eq!(line.tone, Tone::Bad);
}

#[test]
fn a_payment_a_ticket_and_a_cancel_are_the_servers_answers() {
    let seats = [seat("A7", SeatStatus::Booked, Some("ana"), None)];
    let paid = answer(Asked::Pay, true, "paid: your ticket is issued");
    let line = phone(Phase::Race, &seats, Some(&paid), RACE_AT).line();
    assert_eq!(
        (line.text.as_str(), line.tone),
        ("paid: your ticket is issued", Tone::Good)
    );
    let seats = [seat("A7", SeatStatus::Available, None, None)];
    let cancel = answer(Asked::Cancel, false, "released: the seat is free again");
    let line = phone(Phase::Race, &seats, Some(&cancel), RACE_AT).line();
    assert_eq!(line.text, "released: the seat is free again");
}

#[test]
fn an_answer_from_an_earlier_round_is_forgotten_and_results_say_the_round_is_over() {
    let seats = [seat("A1", SeatStatus::Available, None, None)];
    let mut old = answer(Asked::Tap, false, "A1 is taken: pick another seat");
    old.round = 0;
    assert_eq!(
        phone(Phase::Race, &seats, Some(&old), RACE_AT).line().text,
        "go: tap a free seat"
    );
    assert_eq!(
        phone(Phase::Results, &seats, None, RACE_AT).line().text,
        "the round is over: wait for the next one"
    );
}

#[test]
fn the_phone_reads_the_servers_state() {
    let state: RoomState = serde_json::from_value(serde_json::json!({
        "code": "ACDEF", "round": 1, "phase": "race", "race_at_ms": RACE_AT, "now_ms": RACE_AT,
        "clock": 0, "redis_unavailable": null, "bots_racing": 0,
        "settings": { "seats": 4, "defence": "hold_confirm", "gap_ms": 0, "hold_seconds": 60,
                      "late_payments": false, "duplicate_payments": false },
        "participants": { "people": 3, "bots": 0, "names": [] },
        "seats": [
            { "id": "A1", "status": "HELD", "holder": "Ana", "actor": "ana", "until": 60, "ticket": false },
            { "id": "A2", "status": "EXPIRED", "holder": "Bo", "actor": "bo", "until": 3, "ticket": false },
            { "id": "A3", "status": "BOOKED", "holder": "Cy", "actor": "cy", "until": null, "ticket": true },
            { "id": "A4", "status": "AVAILABLE", "holder": null, "actor": null, "until": null, "ticket": false },
        ],
        "scoreboard": { "sold": 1, "double_bookings": 0, "unique_refusals": 0, "refunds_owed": 0,
                        "holds_never_released": 1 },
        "feed": [],
    }))
    .unwrap();
    assert_eq!(state.seats.iter().filter(|s| s.free()).count(), 2);
    let line = Phone::of(&state, "ana", RACE_AT + 1_000, None).line();
    // The defence pays: the hold offers Pay.
    assert_eq!(line.text, "you hold A1 — 0:59 left, pay now");
    assert!(line.can_pay);
    assert_eq!(clock_words(61_000), "1:01");
    assert_eq!(clock_words(-5), "0:00");
}

fn section(tickets: i32, left: i64, sold: u64) -> Counter {
    Counter {
        section: "floor".into(),
        tickets,
        left,
        sold,
        oversold: sold.saturating_sub(tickets as u64),
    }
}

fn ga<'a>(phase: Phase, counter: &'a Counter, last: Option<&'a Answer>) -> Line {
    let mut p = phone(phase, &[], last, RACE_AT + 1_000);
    p.counter = Some(counter);
    p.pays = false;
    p.line()
}

#[test]
fn a_general_admission_phone_says_go_a_ticket_or_sold_out() {
    let open = section(3, 3, 0);
    let go = ga(Phase::Race, &open, None);
    assert_eq!((go.text.as_str(), go.tone), ("go: buy a ticket", Tone::Act));
    assert!(!go.can_pay && !go.can_cancel && go.holding.is_empty());
    let got = answer(Asked::Tap, true, "you got a ticket");
    let line = ga(Phase::Race, &section(3, 2, 1), Some(&got));
    assert_eq!(
        (line.text.as_str(), line.tone),
        ("you got a ticket", Tone::Good)
    );
    // A ticket stays news once the section is sold out, and oversold.
    let line = ga(Phase::Results, &section(3, -2, 5), Some(&got));
    assert_eq!(line.text, "you got a ticket");
    // A refusal while tickets are left says why; once none is left, sold out is the news.
    let busy = answer(
        Asked::Tap,
        false,
        "someone else was buying at that very moment: try again",
    );
    assert_eq!(
        ga(Phase::Race, &section(3, 1, 2), Some(&busy)).text,
        busy.message
    );
    let line = ga(Phase::Race, &section(3, 0, 3), Some(&busy));
    assert_eq!(
        (line.text.as_str(), line.tone),
        ("sold out: no tickets left", Tone::Bad)
    );
    assert_eq!(
        ga(Phase::Race, &section(3, 0, 3), None).text,
        "sold out: no tickets left"
    );
    let over = ga(Phase::Results, &section(3, 1, 2), None);
    assert_eq!(over.text, "the round is over: wait for the next one");
}
