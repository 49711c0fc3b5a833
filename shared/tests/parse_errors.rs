//! Bad schedule files get an error that names the field and says how to fix it.

use shared::Schedule;

mod parse;

use parse::{error_of, with_actors};

#[test]
fn a_file_that_is_not_json_names_the_line_and_column() {
    let (field, message) = error_of("{ \"version\": 1,");
    assert_eq!(field, "schedule");
    assert!(message.contains("line 1"), "{message}");
}

#[test]
fn an_unsupported_version_says_which_one_to_write() {
    let json = with_actors(r#"{"adam": [{"op": "read", "seats": ["A7"]}]}"#, "[]")
        .replace("\"version\": 1", "\"version\": 2");
    let (field, message) = error_of(&json);
    assert_eq!(field, "version");
    assert!(message.contains("\"version\": 1"), "{message}");
}

#[test]
fn an_unknown_op_names_its_place_and_lists_the_known_ones() {
    let (field, message) = error_of(&with_actors(
        r#"{"adam": [{"op": "grab", "seats": ["A7"]}]}"#,
        "[]",
    ));
    assert_eq!(field, "actors.adam[0].op");
    assert!(
        message.contains("\"grab\" is not an operation") && message.contains("claim"),
        "{message}"
    );
}

#[test]
fn a_misspelt_argument_is_refused_rather_than_ignored() {
    let (field, message) = error_of(&with_actors(
        r#"{"adam": [{"op": "read", "seat": ["A7"]}]}"#,
        "[]",
    ));
    assert_eq!(field, "actors.adam[0].seat");
    assert!(
        message.contains("did you mean \"seats\"?") && message.contains("a read operation"),
        "{message}"
    );
}

#[test]
fn an_unknown_seat_lists_the_scenario_seats() {
    let (field, message) = error_of(&with_actors(
        r#"{"adam": [{"op": "claim", "seats": ["Z9"]}]}"#,
        "[]",
    ));
    assert_eq!(field, "actors.adam[0].seats[0]");
    assert!(
        message.contains("Z9") && message.contains("A7, A8"),
        "{message}"
    );
}

#[test]
fn an_unknown_actor_in_the_order_lists_the_actors() {
    let (field, message) = error_of(&with_actors(
        r#"{"adam": [{"op": "read", "seats": ["A7"]}]}"#,
        r#"["adam", "omar"]"#,
    ));
    assert_eq!(field, "order[1]");
    assert!(
        message.contains("\"omar\"") && message.contains("adam"),
        "{message}"
    );
}

#[test]
fn an_order_longer_than_a_program_says_so() {
    let (field, message) = error_of(&with_actors(
        r#"{"adam": [{"op": "read", "seats": ["A7"]}]}"#,
        r#"["adam", "adam"]"#,
    ));
    assert_eq!(field, "order[1]");
    assert!(message.contains("only 1 operations"), "{message}");
}

#[test]
fn an_unknown_defence_lists_the_defences() {
    let (field, message) = error_of(&with_actors(r#"{"adam": {"defence": "hope"}}"#, "[]"));
    assert_eq!(field, "actors.adam.defence");
    assert!(message.contains("atomic_update"), "{message}");
}

#[test]
fn commit_without_begin_and_one_call_ops_inside_a_transaction_are_refused() {
    let (field, _) = error_of(&with_actors(r#"{"adam": [{"op": "commit"}]}"#, "[]"));
    assert_eq!(field, "actors.adam[0]");
    let (field, message) = error_of(&with_actors(
        r#"{"adam": [{"op": "begin"}, {"op": "hold", "seats": ["A7"]}, {"op": "commit"}]}"#,
        "[]",
    ));
    assert_eq!(field, "actors.adam[1]");
    assert!(message.contains("own transaction"), "{message}");
}

#[test]
fn clock_operations_belong_to_the_clock_actor_only() {
    let (field, message) = error_of(&with_actors(
        r#"{"adam": [{"op": "advance", "minutes": 5}]}"#,
        "[]",
    ));
    assert_eq!(field, "actors.adam[0].op");
    assert!(message.contains("\"clock\""), "{message}");
    let (field, _) = error_of(&with_actors(
        r#"{"clock": [{"op": "read", "seats": ["A7"]}]}"#,
        "[]",
    ));
    assert_eq!(field, "actors.clock[0].op");
}

#[test]
fn too_many_actors_are_refused_with_the_limit() {
    let actors: Vec<String> = (0..9)
        .map(|i| format!(r#""b{i}": [{{"op": "read", "seats": ["A7"]}}]"#))
        .collect();
    let (field, message) = error_of(&with_actors(&format!("{{{}}}", actors.join(",")), "[]"));
    assert_eq!(field, "actors");
    assert!(message.contains("limit of 8"), "{message}");
}

#[test]
fn a_held_seat_needs_a_holder_and_a_deadline() {
    let json = r#"{"version": 1, "scenario": {"seats": [{"id": "A14", "status": "HELD"}]}, "actors": {"a": [{"op": "confirm"}]}}"#;
    let (field, message) = error_of(json);
    assert_eq!(field, "scenario.seats[0]");
    assert!(
        message.contains("holder") && message.contains("until"),
        "{message}"
    );
}

#[test]
fn a_bad_seat_id_or_actor_name_says_what_is_allowed() {
    let json = r#"{"version": 1, "scenario": {"seats": [{"id": "A 7"}]}, "actors": {"a": [{"op": "confirm"}]}}"#;
    assert_eq!(error_of(json).0, "scenario.seats[0].id");
    let (field, message) = error_of(&with_actors(
        r#"{"Adam": [{"op": "read", "seats": ["A7"]}]}"#,
        "[]",
    ));
    assert_eq!(field, "actors.Adam");
    assert!(message.contains("lowercase"), "{message}");
}

#[test]
fn expect_steps_must_match_the_order_length() {
    let json = r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]},
        "actors": {"adam": [{"op": "read", "seats": ["A7"]}]}, "order": ["adam"],
        "expect": {"steps": ["ok:1", "ok:1"]}}"#;
    let (field, message) = error_of(json);
    assert_eq!(field, "expect.steps");
    assert!(message.contains("one step per entry"), "{message}");
}

#[test]
fn a_valid_file_parses_with_seats_sorted_and_defaults_filled() {
    let json = with_actors(
        r#"{"adam": [{"op": "claim", "seats": ["A8", "A7", "A8"]}], "omar": {"defence": "atomic_update"}}"#,
        "[]",
    );
    let schedule = Schedule::parse_json(&json).expect("valid");
    assert_eq!(schedule.actors()[0].program[0].seats(), ["A7", "A8"]);
    assert_eq!(schedule.scenario().show, 501);
    assert_eq!(schedule.scenario().hold_minutes, 10);
    // No order given: one operation of each actor in turn.
    assert_eq!(schedule.order(), [0, 1]);
    assert_eq!(
        schedule.actors()[1].defence,
        Some(shared::Defence::AtomicUpdate)
    );
}

/// A counter file: `scenario` (JSON text) and `actors`, one buyer by default.
fn counter_file(scenario: &str, actors: &str) -> String {
    format!(r#"{{"version": 1, "scenario": {scenario}, "actors": {actors}}}"#)
}

const ONE_BUYER: &str = r#"{"adam": {"defence": "check_then_act"}}"#;

#[test]
fn an_unknown_kind_names_scenario_kind_and_suggests_the_nearest() {
    let (field, message) = error_of(&counter_file(
        r#"{"kind": "balanse", "seats": [{"id": "joint", "value": 150}]}"#,
        ONE_BUYER,
    ));
    assert_eq!(field, "scenario.kind");
    assert!(
        message.contains("balanse") && message.contains("did you mean \"balance\"?"),
        "{message}"
    );
}

#[test]
fn a_take_out_of_range_or_on_seats_names_scenario_take() {
    for (scenario, words) in [
        (
            r#"{"kind": "balance", "take": 0, "seats": [{"id": "joint", "value": 150}]}"#,
            "0 is out of range",
        ),
        (
            r#"{"kind": "balance", "take": 1000001, "seats": [{"id": "joint", "value": 150}]}"#,
            "1 to 1000000",
        ),
        (
            r#"{"kind": "coupon", "take": 2, "seats": [{"id": "SAVE50", "value": 1}]}"#,
            "a coupon takes 1 to 1",
        ),
        (
            r#"{"take": 2, "seats": [{"id": "A7"}]}"#,
            "a request takes one seat",
        ),
    ] {
        let (field, message) = error_of(&counter_file(scenario, ONE_BUYER));
        assert_eq!(field, "scenario.take", "{scenario}: {message}");
        assert!(message.contains(words), "{scenario}: {message}");
    }
}

#[test]
fn a_rows_value_missing_out_of_range_or_on_a_seat_names_its_place() {
    for (scenario, field_wanted, words) in [
        (
            r#"{"kind": "balance", "seats": [{"id": "joint", "value": 150}, {"id": "savings"}]}"#,
            "scenario.seats[1]",
            "needs its value",
        ),
        (
            r#"{"kind": "balance", "seats": [{"id": "joint", "value": -5}]}"#,
            "scenario.seats[0].value",
            "-5 is out of range",
        ),
        (
            r#"{"kind": "coupon", "seats": [{"id": "SAVE50", "value": 2}]}"#,
            "scenario.seats[0].value",
            "0 to 1",
        ),
        (
            r#"{"seats": [{"id": "A7"}, {"id": "A8", "value": 3}]}"#,
            "scenario.seats[1].value",
            "a seat has a status, not a value",
        ),
    ] {
        let (field, message) = error_of(&counter_file(scenario, ONE_BUYER));
        assert_eq!(field, field_wanted, "{scenario}: {message}");
        assert!(message.contains(words), "{scenario}: {message}");
    }
}

#[test]
fn a_status_or_holder_on_a_counter_row_names_the_row() {
    for row in [
        r#"{"id": "GA", "value": 1, "status": "HELD", "holder": "omar", "until": 10}"#,
        r#"{"id": "GA", "value": 1, "status": "BOOKED"}"#,
    ] {
        let scenario = format!(r#"{{"kind": "general_admission", "seats": [{row}]}}"#);
        let (field, message) = error_of(&counter_file(&scenario, ONE_BUYER));
        assert_eq!(field, "scenario.seats[0]", "{row}: {message}");
        assert!(
            message.contains("has a value, not a status"),
            "{row}: {message}"
        );
    }
}

#[test]
fn an_op_or_a_defence_that_does_not_fit_a_counter_names_its_field() {
    let scenario = r#"{"kind": "rate_limit", "seats": [{"id": "key42", "value": 10}]}"#;
    for op in [
        r#"{"op": "hold", "seats": ["key42"]}"#,
        r#"{"op": "book", "seats": ["key42"]}"#,
        r#"{"op": "release"}"#,
    ] {
        let actors = format!(r#"{{"adam": [{{"op": "read", "seats": ["key42"]}}, {op}]}}"#);
        let (field, message) = error_of(&counter_file(scenario, &actors));
        assert_eq!(field, "actors.adam[1].op", "{op}: {message}");
        assert!(
            message.contains("does not apply to a rate_limit scenario")
                && message.contains("read, lock, write and claim"),
            "{op}: {message}"
        );
    }
    for defence in ["unique_constraint", "hold_confirm", "redis_hold"] {
        let actors = format!(r#"{{"adam": {{"defence": "{defence}"}}}}"#);
        let (field, message) = error_of(&counter_file(scenario, &actors));
        assert_eq!(field, "actors.adam.defence", "{defence}: {message}");
        assert!(
            message.contains(defence) && message.contains("atomic_update"),
            "{defence}: {message}"
        );
    }
}

#[test]
fn a_counters_final_state_is_its_value_and_a_seats_its_status() {
    let balance = |fin: &str| {
        format!(
            r#"{{"version": 1, "scenario": {{"kind": "balance", "take": 100, "seats": [{{"id": "joint", "value": 150}}]}},
                "actors": {{"adam": {{"defence": "atomic_update"}}}},
                "expect": {{"final": {{"joint": {fin}}}}}}}"#
        )
    };
    assert!(Schedule::parse_json(&balance(r#"{"value": 50}"#)).is_ok());
    let e = Schedule::parse_json(&balance(r#"{"status": "AVAILABLE"}"#)).unwrap_err();
    assert_eq!(e.field, "expect.final.joint");
    assert!(e.message.contains("ends with a value"), "{}", e.message);
    let e = Schedule::parse_json(&balance(r#"{"value": 50, "holder": "adam"}"#)).unwrap_err();
    assert_eq!(e.field, "expect.final.joint.holder");
    let e = Schedule::parse_json(&balance(r#"{"value": "50"}"#)).unwrap_err();
    assert_eq!(e.field, "expect.final.joint.value");
    assert!(e.message.contains("without quotes"), "{}", e.message);
    let seat = r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]},
        "actors": {"adam": {"defence": "atomic_update"}},
        "expect": {"final": {"A7": {"value": 1}}}}"#;
    let e = Schedule::parse_json(seat).unwrap_err();
    assert_eq!(e.field, "expect.final.A7");
    assert!(
        e.message.contains("a seat ends with a status"),
        "{}",
        e.message
    );
}
