//! The engine driven one entry at a time, as the page and the explorer drive it: an entry that
//! names a buyer still waiting is refused (and `Engine::blocked` says why), and a clone runs on
//! by itself. The model's outcomes, schedule in and trace out, are the cases of `model.rs`.

use shared::engine::{simulate, Blocked, Engine};
use shared::Schedule;

/// Adam locks A7 in a transaction; Omar's two statements need it.
const ADAM_HOLDS_A7: &str = r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]}, "actors": {
    "adam": [{"op": "begin"}, {"op": "lock", "seats": ["A7"]}, {"op": "commit"}],
    "omar": [{"op": "lock", "seats": ["A7"]}, {"op": "read", "seats": ["A7"]}]},
    "order": ["adam", "adam", "omar", "omar", "adam"]}"#;

#[test]
fn entry_naming_a_waiting_actor_is_rejected() {
    let s = Schedule::parse_json(ADAM_HOLDS_A7).expect("a valid schedule");
    let e = simulate(&s).expect_err("omar is still waiting at entry 4");
    assert_eq!(e.field, "order[3]");
    assert_eq!(
        e.message,
        "omar's lock (entry 3) is still waiting for adam: omar can send nothing until adam commits or rolls back"
    );
    let mut engine = Engine::new(&s);
    for a in [0, 0, 1] {
        engine.step(a).expect("runnable");
    }
    assert_eq!(
        engine.blocked(1),
        Some(Blocked::Waiting {
            entry: 2,
            on: vec!["adam".to_string()]
        })
    );
    assert_eq!(engine.trace().len(), 3);
}

#[test]
fn a_clone_runs_on_independently_and_the_trace_view_matches_the_final_trace() {
    let s = Schedule::parse_json(
        r#"{"version": 1, "scenario": {"seats": [{"id": "A7"}]}, "actors": {
            "adam": {"defence": "transaction"}, "omar": {"defence": "transaction"}}}"#,
    )
    .expect("a valid schedule");
    let mut a = Engine::new(&s);
    for x in [0, 1, 0, 1] {
        a.step(x).expect("runnable");
    }
    let mut b = a.clone();
    a.step(0).expect("adam writes");
    b.step(1).expect("omar writes");
    assert_eq!(a.trace()[4].actor, "adam");
    assert_eq!(b.trace()[4].actor, "omar");
    let view = b.trace().to_vec();
    assert_eq!(b.into_trace().entries, view);
}
