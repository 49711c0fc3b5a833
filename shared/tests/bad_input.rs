//! Each way a hand gets a file wrong is refused naming the exact field, what was found there,
//! what is accepted and the nearest valid word; unknown keys at every level, a file that is
//! not one object; a byte-order mark is fine.

use shared::Schedule;

mod parse;

use parse::{error_of, with_actors};

/// A file of one buyer whose program is `op` (with the seats A7 and A8).
fn with_op(op: &str) -> String {
    with_actors(&format!(r#"{{"a": [{op}]}}"#), "[]")
}

#[test]
fn a_misspelt_isolation_level_blames_isolation_and_suggests_the_level() {
    let (field, message) = error_of(&with_op(
        r#"{"op": "begin", "isolation": "serialisable"}, {"op": "commit"}"#,
    ));
    assert_eq!(field, "actors.a[0].isolation");
    assert!(
        message.contains("\"serialisable\" is not an isolation level")
            && message.contains("did you mean \"serializable\"?")
            && message.contains("\"read committed\", \"repeatable read\" or \"serializable\""),
        "{message}"
    );
}

#[test]
fn every_word_of_the_format_that_is_one_letter_off_blames_its_own_field() {
    let cases = [
        (
            r#"{"op": "lock", "seats": ["A7"], "wait": "no_wait"}"#,
            "actors.a[0].wait",
            "nowait",
        ),
        (
            r#"{"op": "lock", "seats": ["A7"], "wait": "skiplocked"}"#,
            "actors.a[0].wait",
            "skip_locked",
        ),
        (
            r#"{"op": "write", "seats": ["A7"], "status": "BOOKD"}"#,
            "actors.a[0].status",
            "BOOKED",
        ),
        (
            r#"{"op": "write", "seats": ["A7"], "status": "booked"}"#,
            "actors.a[0].status",
            "BOOKED",
        ),
        (
            r#"{"op": "pay", "outcome": "declned"}"#,
            "actors.a[0].outcome",
            "declined",
        ),
        (
            r#"{"op": "claim", "seats": ["A7"], "now": "statment"}"#,
            "actors.a[0].now",
            "statement",
        ),
        (
            r#"{"op": "confirm", "now": "Evaluation"}"#,
            "actors.a[0].now",
            "evaluation",
        ),
        (
            r#"{"op": "hodl", "seats": ["A7"]}"#,
            "actors.a[0].op",
            "hold",
        ),
        (
            r#"{"op": "claim", "seats": ["A7"]}, {"op": "pay", "if": "hled"}"#,
            "actors.a[1].if",
            "held",
        ),
    ];
    for (op, want_field, want_word) in cases {
        let (field, message) = error_of(&with_op(op));
        assert_eq!(field, want_field, "{op}: {message}");
        assert!(
            message.contains(&format!("did you mean \"{want_word}\"?")),
            "{op}: {message}"
        );
    }
}

#[test]
fn a_value_of_the_wrong_kind_says_what_was_found_and_what_goes_there() {
    let cases = [
        (
            r#"{"op": "advance", "minutes": "5"}"#,
            "clock",
            "actors.clock[0].minutes",
            "without quotes",
        ),
        (
            r#"{"op": "advance", "minutes": 2.5}"#,
            "clock",
            "actors.clock[0].minutes",
            "not a whole number",
        ),
        (
            r#"{"op": "read", "seats": "A7"}"#,
            "a",
            "actors.a[0].seats",
            "write [\"A7\"]",
        ),
        (
            r#"{"op": "read", "seats": [7]}"#,
            "a",
            "actors.a[0].seats[0]",
            "found 7",
        ),
        (
            r#"{"op": "begin", "isolation": 3}, {"op": "commit"}"#,
            "a",
            "actors.a[0].isolation",
            "found 3",
        ),
        (r#""read""#, "a", "actors.a[0]", "an operation, an object"),
    ];
    for (op, actor, want_field, want) in cases {
        let (field, message) = error_of(&with_actors(&format!(r#"{{"{actor}": [{op}]}}"#), "[]"));
        assert_eq!(field, want_field, "{op}: {message}");
        assert!(message.contains(want), "{op}: {message}");
    }
    let json = r#"{"version": "1", "scenario": {"seats": [{"id": "A7"}]}, "actors": {}}"#;
    let (field, message) = error_of(json);
    assert_eq!(field, "version");
    assert!(message.contains("without quotes"), "{message}");
    let json =
        r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}], "show": true}, "actors": {}}"#;
    assert_eq!(error_of(json).0, "scenario.show");
    let json = r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]}, "actors": {"a": 5}}"#;
    let (field, message) = error_of(json);
    assert_eq!(field, "actors.a");
    assert!(
        message.contains("a list of operations") && message.contains("defence"),
        "{message}"
    );
}

#[test]
fn an_unknown_key_is_refused_at_every_level_naming_the_nearest_key() {
    let base = r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}, {"id": "A2"}]}, "actors": {"adam": {"defence": "lock_row"}}}"#;
    let (field, message) =
        error_of(&base.replace("\"actors\"", "\"oder\": [\"adam\"], \"actors\""));
    assert_eq!(field, "oder");
    assert!(
        message.contains("did you mean \"order\"?") && message.contains("a schedule file"),
        "{message}"
    );
    let (field, message) = error_of(&base.replace(
        r#""defence": "lock_row""#,
        r#""defence": "lock_row", "sets": ["A2"]"#,
    ));
    assert_eq!(field, "actors.adam.sets");
    assert!(message.contains("did you mean \"seats\"?"), "{message}");
    let (field, _) =
        error_of(&base.replace(r#""seats": [{"id": "A7"}"#, r#""seat": [{"id": "A7"}"#));
    assert_eq!(field, "scenario.seat");
    let (field, message) =
        error_of(&base.replace(r#"{"id": "A2"}"#, r#"{"id": "A2", "stauts": "HELD"}"#));
    assert_eq!(field, "scenario.seats[1].stauts");
    assert!(message.contains("did you mean \"status\"?"), "{message}");
    let (field, _) = error_of(&base.replace(
        "}}}",
        r#"}}, "expect": {"double_booked": false, "lost": true}}"#,
    ));
    assert_eq!(field, "expect.lost");
    let (field, message) = error_of(&with_op(r#"{"opp": "read", "seats": ["A7"]}"#));
    assert_eq!(field, "actors.a[0].opp");
    assert!(message.contains("did you mean \"op\"?"), "{message}");
    let (field, message) = error_of(&with_op(r#"{"op": "confirm", "seats": ["A7"]}"#));
    assert_eq!(field, "actors.a[0].seats");
    assert!(
        message.contains("a confirm operation") && message.contains("\"now\""),
        "{message}"
    );
}

#[test]
fn a_defence_given_the_wrong_seat_blames_its_seats() {
    let base = r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]}, "actors": {"adam": {"defence": "lock_row", "seats": ["A8"]}}}"#;
    let (field, message) = error_of(base);
    assert_eq!(field, "actors.adam.seats[0]");
    assert!(message.contains("unknown seat \"A8\""), "{message}");
    let (field, message) = error_of(&base.replace(r#"["A8"]"#, "[]"));
    assert_eq!(field, "actors.adam.seats");
    assert!(message.contains("no seats"), "{message}");
    let (field, message) =
        error_of(&base.replace(r#""lock_row", "seats": ["A8"]"#, r#""lock_rows""#));
    assert_eq!(field, "actors.adam.defence");
    assert!(message.contains("did you mean \"lock_row\"?"), "{message}");
}

#[test]
fn a_file_that_is_not_one_object_says_so() {
    let object = with_op(r#"{"op": "read", "seats": ["A7"]}"#);
    let (field, message) = error_of(&format!("[{object}]"));
    assert_eq!(field, "schedule");
    assert!(
        message.contains("the file is a list") && message.contains("remove the [ and ]"),
        "{message}"
    );
    for json in ["[]", "7", "\"schedule\"", "null"] {
        let (field, message) = error_of(json);
        assert_eq!(field, "schedule", "{json}");
        assert!(message.contains("one JSON object"), "{json}: {message}");
    }
}

#[test]
fn a_byte_order_mark_before_the_file_is_accepted() {
    let json = with_op(r#"{"op": "read", "seats": ["A7"]}"#);
    let plain = Schedule::parse_json(&json).expect("valid");
    assert_eq!(Schedule::parse_json(&format!("\u{feff}{json}")), Ok(plain));
}

#[test]
fn a_missing_key_names_the_object_that_needs_it_and_how_to_write_it() {
    let (field, message) = error_of(&with_op(r#"{"op": "lock"}"#));
    assert_eq!(field, "actors.a[0]");
    assert!(
        message.contains("missing \"seats\"") && message.contains("[\"A7\"]"),
        "{message}"
    );
    let (field, message) = error_of(r#"{"scenario": {"seats": [{"id": "A7"}]}, "actors": {}}"#);
    assert_eq!(field, "schedule");
    assert!(
        message.contains("missing \"version\"") && message.contains("\"version\": 1"),
        "{message}"
    );
    let (field, message) =
        error_of(r#"{"version": 1, "scenario": {"seats": [{"status": "HELD"}]}, "actors": {}}"#);
    assert_eq!(field, "scenario.seats[0]");
    assert!(message.contains("missing \"id\""), "{message}");
}

#[test]
fn expectations_blame_the_exact_name_or_seat() {
    let base = r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]},
        "actors": {"adam": [{"op": "claim", "seats": ["A7"]}]}, "expect": EXPECT}"#;
    let cases = [
        (
            r#"{"refund_due": ["adam", "omar"]}"#,
            "expect.refund_due[1]",
        ),
        (r#"{"told": {"A7": ["adm"]}}"#, "expect.told.A7[0]"),
        (r#"{"told": {"Z9": ["adam"]}}"#, "expect.told.Z9"),
        (
            r#"{"final": {"A7": {"status": "SOLD"}}}"#,
            "expect.final.A7.status",
        ),
        (
            r#"{"final": {"A7": {"holder": "adam"}}}"#,
            "expect.final.A7",
        ),
        (r#"{"double_booked": "no"}"#, "expect.double_booked"),
    ];
    for (expect, want) in cases {
        let (field, message) = error_of(&base.replace("EXPECT", expect));
        assert_eq!(field, want, "{expect}: {message}");
    }
    let (_, message) = error_of(&base.replace("EXPECT", r#"{"told": {"A7": ["adm"]}}"#));
    assert!(message.contains("did you mean \"adam\"?"), "{message}");
}

#[test]
fn a_held_seats_holder_is_named_by_the_seats_place() {
    let json = r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}, {"id": "A14", "status": "HELD", "holder": "Bea", "until": 5}]}, "actors": {"a": [{"op": "confirm"}]}}"#;
    assert_eq!(error_of(json).0, "scenario.seats[1].holder");
}

#[test]
fn no_message_speaks_rust() {
    let bad = [
        r#"{"version": -1}"#,
        r#"{"version": 1, "scenario": [], "actors": {}}"#,
        r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]}, "actors": []}"#,
        r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]}, "actors": {"a": [{"op": "read", "seats": ["A7"]}]}, "order": "a"}"#,
        r#"{"version": 1, "scenario": {"seats": [{"id": "A7", "until": "5"}]}, "actors": {}}"#,
        r#"{"version": 99999999999999999999, "scenario": {}, "actors": {}}"#,
        r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}], "hold_minutes": 1e3}, "actors": {}}"#,
        r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]}, "actors": {"a": {"seats": ["A7"]}}}"#,
    ];
    for json in bad {
        let (field, message) = error_of(json);
        for word in [
            "enum",
            "struct",
            "i64",
            "u32",
            "u8",
            "untagged",
            "variant",
            "sequence",
            "map",
            "invalid type",
        ] {
            assert!(
                !message
                    .split(|c: char| !c.is_ascii_alphanumeric())
                    .any(|w| w == word),
                "{json}: {field}: {message}"
            );
        }
        assert!(!field.is_empty(), "{json}");
    }
}
