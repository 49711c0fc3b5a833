//! What the parse-error test files share: a file's error, and a file around some actors.

use shared::Schedule;

/// Parses `json` and returns the error's field and message (the test fails if it parses).
pub fn error_of(json: &str) -> (String, String) {
    match Schedule::parse_json(json) {
        Ok(_) => panic!("expected an error for {json}"),
        Err(e) => (e.field, e.message),
    }
}

/// A file of two seats, A7 and A8, with these `actors` and `order` (JSON text).
pub fn with_actors(actors: &str, order: &str) -> String {
    format!(
        r#"{{"version": 1, "scenario": {{"seats": [{{"id": "A7"}}, {{"id": "A8"}}]}}, "actors": {actors}, "order": {order}}}"#
    )
}
