//! A file without an order gets one that runs: every buyer in turn, a buyer whose statement
//! waits passing its turn; past a dead end of taking turns if another order finishes; refused
//! in words if none does.

use shared::Schedule;

/// Parses `json` and returns the error's field and message (the test fails if it parses).
fn error_of(json: &str) -> (String, String) {
    match Schedule::parse_json(json) {
        Ok(_) => panic!("expected an error for {json}"),
        Err(e) => (e.field, e.message),
    }
}

#[test]
fn without_an_order_a_waiting_buyer_passes_its_turn() {
    // Under lock_row the second buyer's lock waits for the first buyer's commit: taking turns
    // plainly would send the second buyer's write while its lock still waits.
    let json = r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]},
        "actors": {"adam": {"defence": "lock_row"}, "omar": {"defence": "lock_row"}}}"#;
    let schedule = Schedule::parse_json(json).expect("valid");
    assert_eq!(schedule.order(), [0, 1, 0, 1, 0, 0, 1, 1]);
    shared::engine::simulate(&schedule).expect("the default order runs");
}

#[test]
fn without_an_order_a_dead_end_of_taking_turns_is_searched_past() {
    // Taking turns, bea locks A7 first and ends her program inside her transaction, so cat's
    // lock would wait for ever; cat locking first runs both programs to their end.
    let json = r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]},
        "actors": {"bea": [{"op": "begin"}, {"op": "lock", "seats": ["A7"]}],
                   "cat": [{"op": "begin"}, {"op": "lock", "seats": ["A7"]}, {"op": "commit"}]}}"#;
    let schedule = Schedule::parse_json(json).expect("valid");
    assert_eq!(schedule.order(), [0, 1, 1, 0, 1]);
    shared::engine::simulate(&schedule).expect("the default order runs");
}

#[test]
fn without_an_order_programs_that_no_order_can_finish_are_refused_in_words() {
    // Each holds a seat the other then waits for, and neither commits: after one lock the
    // other waits for ever, whoever goes first.
    let json = r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]},
        "actors": {"bea": [{"op": "begin"}, {"op": "lock", "seats": ["A7"]}, {"op": "read", "seats": ["A7"]}],
                   "cat": [{"op": "begin"}, {"op": "lock", "seats": ["A7"]}, {"op": "read", "seats": ["A7"]}]}}"#;
    let (field, message) = error_of(json);
    assert_eq!(field, "schedule");
    assert!(
        message.contains("no order runs every program to its end")
            && message.contains("cat's lock (entry 4) waits for bea")
            && message.contains("give an \"order\""),
        "{message}"
    );
}

#[test]
fn a_search_that_cannot_finish_gives_up_at_its_bound_and_says_so() {
    // Eight buyers who each lock A7 and never commit: no order finishes, and the orders are
    // too many to try them all.
    let actors: Vec<String> = (0..8)
        .map(|i| {
            format!(
                r#""b{i}": [{{"op": "begin"}}, {{"op": "lock", "seats": ["A7"]}}, {{"op": "read", "seats": ["A7"]}}]"#
            )
        })
        .collect();
    let json = format!(
        r#"{{"version": 1, "scenario": {{"seats": [{{"id": "A7"}}]}}, "actors": {{{}}}}}"#,
        actors.join(", ")
    );
    let (field, message) = error_of(&json);
    assert_eq!(field, "schedule");
    assert!(
        message.contains("no order was found that runs every program to its end")
            && message.contains("b1's lock (entry 10) waits for b0"),
        "{message}"
    );
}
