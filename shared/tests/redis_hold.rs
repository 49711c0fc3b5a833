//! The Redis hold (`redis_hold`, `redis_release`): a SET NX with a TTL on the virtual clock,
//! simulated on the client side like the payment provider, and what the verdicts make of a
//! claim that only Redis stands behind.

use shared::assess::assess;
use shared::engine::simulate;
use shared::export::{entry_commands, entry_sql, psql_scripts};
use shared::outcome::Outcome;
use shared::Schedule;

/// Show 77, seats C1–C3 all AVAILABLE, holds of 2 minutes; `actors` is the inside of the
/// actors object, `order` the actor names separated by spaces.
fn schedule(actors: &str, order: &str) -> Schedule {
    let order: Vec<String> = order
        .split_whitespace()
        .map(|a| format!("\"{a}\""))
        .collect();
    let json = format!(
        r#"{{"version": 1, "scenario": {{"show": 77, "hold_minutes": 2,
             "seats": [{{"id": "C1"}}, {{"id": "C2"}}, {{"id": "C3"}}]}},
            "actors": {{{actors}}}, "order": [{}]}}"#,
        order.join(",")
    );
    Schedule::parse_json(&json).unwrap_or_else(|e| panic!("{e}\n{json}"))
}

fn outcome(s: &Schedule) -> Outcome {
    assess(s, simulate(s).unwrap_or_else(|e| panic!("{e}")))
}

fn told(o: &Outcome, seat: &str) -> Vec<String> {
    o.seats[seat].told.clone()
}

const HOLD_PAY_UPDATE: &str = r#"
    "p1": {"defence": "redis_update", "seats": ["C3"]},
    "p2": {"defence": "redis_update", "seats": ["C3"]},
    "clock": [{"op": "advance", "minutes": 3}]"#;

const HOLD_PAY_BOOK: &str = r#"
    "p1": {"defence": "redis_hold", "seats": ["C3"]},
    "p2": {"defence": "redis_hold", "seats": ["C3"]},
    "clock": [{"op": "advance", "minutes": 3}]"#;

#[test]
fn set_nx_gives_the_key_to_one_phone_and_refuses_the_other_while_it_lives() {
    let s = schedule(HOLD_PAY_BOOK, "p1 p2 p1 p1 p2 p2 clock");
    let o = outcome(&s);
    assert_eq!(
        o.steps(),
        [
            "held",
            "unavailable",
            "ok",
            "ok:1",
            "skipped",
            "skipped",
            "ok"
        ]
    );
    assert_eq!(told(&o, "C3"), ["p1"]);
    assert!(!o.verdict.double_booked);
    // p2 was refused the hold: it neither pays nor books (`if: held`), so no refund is owed.
    assert!(o.verdict.refund_due.is_empty());
}

#[test]
fn a_key_that_ran_out_mid_payment_lets_a_plain_update_sell_the_seat_twice() {
    let s = schedule(HOLD_PAY_UPDATE, "p1 clock p2 p2 p2 p1 p1");
    let o = outcome(&s);
    assert_eq!(
        o.steps(),
        ["held", "ok", "held", "ok", "ok:1", "ok", "ok:1"]
    );
    // The database row ends BOOKED by p1, but both were told they got it.
    assert!(o.verdict.double_booked);
    assert_eq!(told(&o, "C3"), ["p1", "p2"]);
    assert_eq!(o.seats["C3"].holder.as_deref(), Some("p1"));
}

#[test]
fn the_unique_key_has_the_last_word_when_redis_and_the_database_disagree() {
    let s = schedule(HOLD_PAY_BOOK, "p1 clock p2 p2 p2 p1 p1");
    let o = outcome(&s);
    assert_eq!(
        o.steps(),
        ["held", "ok", "held", "ok", "ok:1", "ok", "error:23505"]
    );
    assert!(!o.verdict.double_booked);
    assert_eq!(told(&o, "C3"), ["p2"]);
    assert_eq!(o.verdict.refund_due, ["p1"]);
}

#[test]
fn redis_gives_out_a_seat_the_database_already_sold_until_the_insert_refuses_it() {
    // p1 books in time; its key runs out afterwards and Redis lets p2 hold C3 again.
    let s = schedule(HOLD_PAY_BOOK, "p1 p1 p1 clock p2 p2 p2");
    let o = outcome(&s);
    assert_eq!(
        o.steps(),
        ["held", "ok", "ok:1", "ok", "held", "ok", "error:23505"]
    );
    // Right after p2's SET NX, both phones are told C3 is theirs.
    assert_eq!(o.entries[4].told["C3"], ["p1", "p2"]);
    // The insert refuses p2: its claim ends there, and its money goes back.
    assert_eq!(told(&o, "C3"), ["p1"]);
    assert!(!o.verdict.double_booked);
    assert_eq!(o.verdict.refund_due, ["p2"]);
}

#[test]
fn a_key_that_ran_out_is_taken_by_the_next_set_nx_and_ends_the_first_claim() {
    let actors = r#""p1": [{"op": "redis_hold", "seats": ["C1"]}],
                    "p2": [{"op": "redis_hold", "seats": ["C1"]}],
                    "clock": [{"op": "advance", "minutes": 2}, {"op": "advance", "minutes": 1}]"#;
    // At minute 2 the key still lives (it runs out after its last minute, as PX does).
    let o = outcome(&schedule(actors, "p1 clock p2"));
    assert_eq!(o.steps(), ["held", "ok", "unavailable"]);
    assert_eq!(told(&o, "C1"), ["p1"]);
    assert_eq!(o.verdict.unpaid_hold, ["p1"]);
    let o = outcome(&schedule(actors, "p1 clock clock p2"));
    assert_eq!(o.steps(), ["held", "ok", "ok", "held"]);
    assert_eq!(told(&o, "C1"), ["p2"]);
    assert_eq!(o.verdict.unpaid_hold, ["p2"]);
}

#[test]
fn several_seats_are_held_all_or_nothing() {
    let actors = r#""p1": [{"op": "redis_hold", "seats": ["C2"]}],
                    "p2": [{"op": "redis_hold", "seats": ["C1", "C2"]}],
                    "p3": [{"op": "redis_hold", "seats": ["C1"]}]"#;
    let o = outcome(&schedule(actors, "p1 p2 p3"));
    assert_eq!(o.steps(), ["held", "unavailable", "held"]);
    assert_eq!(told(&o, "C1"), ["p3"]);
    assert_eq!(told(&o, "C2"), ["p1"]);
}

#[test]
fn deleting_the_key_on_leaving_frees_the_seat_and_a_second_delete_finds_nothing() {
    let actors = r#""p1": [{"op": "redis_hold", "seats": ["C1"]}, {"op": "redis_release"},
                           {"op": "redis_release"}],
                    "p2": [{"op": "redis_hold", "seats": ["C1"]}]"#;
    let o = outcome(&schedule(actors, "p1 p1 p1 p2"));
    assert_eq!(o.steps(), ["held", "released", "expired", "held"]);
    assert_eq!(told(&o, "C1"), ["p2"]);
    // Expiry alone: the buyer who comes back is locked out by their own key.
    let o = outcome(&schedule(
        r#""p1": {"defence": "redis_expiry_only", "seats": ["C1"]}"#,
        "p1 p1",
    ));
    assert_eq!(o.steps(), ["held", "unavailable"]);
}

#[test]
fn a_delete_removes_only_the_keys_of_the_current_hold() {
    // Two holds, two hold ids: the delete carries the second one, so C1's key stays.
    let actors = r#""p1": [{"op": "redis_hold", "seats": ["C1"]}, {"op": "redis_hold", "seats": ["C2"]},
                           {"op": "redis_release"}],
                    "p2": [{"op": "redis_hold", "seats": ["C1"]}, {"op": "redis_hold", "seats": ["C2"]}]"#;
    let o = outcome(&schedule(actors, "p1 p1 p1 p2 p2"));
    assert_eq!(
        o.steps(),
        ["held", "held", "released", "unavailable", "held"]
    );
    assert_eq!(told(&o, "C1"), ["p1"]);
    assert_eq!(told(&o, "C2"), ["p2"]);
    assert_eq!(o.verdict.unpaid_hold, ["p1", "p2"]);
}

#[test]
fn redis_never_reaches_the_database_and_its_commands_are_shown_not_sent() {
    let s = schedule(HOLD_PAY_BOOK, "p1 p1 p1 clock p2 p2 p2");
    let o = outcome(&s);
    let sql = entry_sql(&s, &o);
    assert_eq!(sql[0], None);
    assert!(sql[2]
        .as_deref()
        .is_some_and(|q| q.contains("insert into booking_seats")));
    let commands = entry_commands(&s, &o);
    assert_eq!(
        commands[0].as_deref(),
        Some("SET hold:77:C3 p1:1 NX PX 120000")
    );
    assert_eq!(commands[2], sql[2]);
    // The tables never show a Redis hold: C3 stays AVAILABLE in the database.
    assert!(o.entries[0]
        .trace
        .tables
        .seats
        .iter()
        .all(|r| r.holder.is_none()));
    let scripts = psql_scripts(&s, &o);
    let p1 = &scripts
        .iter()
        .find(|(label, _)| label == "p1")
        .expect("p1")
        .1;
    assert!(p1.contains("SET hold:77:C3 p1:1 NX PX 120000"), "{p1}");
}

#[test]
fn a_redis_op_inside_a_transaction_is_refused_with_the_way_out() {
    let json = r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]},
        "actors": {"adam": [{"op": "begin"}, {"op": "redis_hold", "seats": ["A7"]},
                            {"op": "commit"}]}}"#;
    let err = Schedule::parse_json(json).expect_err("refused").to_string();
    assert!(err.contains("redis_hold is one call"), "{err}");
    assert!(err.contains("move it outside begin"), "{err}");
    let json = r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]},
        "actors": {"adam": [{"op": "redis_release"}]}}"#;
    let err = Schedule::parse_json(json).expect_err("refused").to_string();
    assert!(err.contains("actors.adam[0].op"), "{err}");
    assert!(err.contains("add a redis_hold first"), "{err}");
}
