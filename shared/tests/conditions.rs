//! Programs that behave like applications: an operation's `"if"` (`held`, `failed`). A refused
//! buyer never pays; a retry runs only after 40001, 40P01 or 55P03 (or a busy hold) and is
//! skipped otherwise; files without `"if"` keep their meaning; the condition survives every
//! way a program is written back (the file, the link, the exports); bad conditions get an
//! error that names the field and the fix.

use shared::assess::assess;
use shared::engine::simulate;
use shared::explorer::{explore, for_each_order};
use shared::export::{fixture_json, isolation_spec, psql_scripts};
use shared::link::{decode, encode, View};
use shared::outcome::{Outcome, StepResult};
use shared::schedule::{Condition, Op};
use shared::{scenarios, Schedule};

fn parse(json: &str) -> Schedule {
    Schedule::parse_json(json).unwrap_or_else(|e| panic!("{e}\n{json}"))
}

fn outcome(s: &Schedule) -> Outcome {
    assess(s, simulate(s).unwrap_or_else(|e| panic!("{e}")))
}

/// A file of one seat A7 with `actors` (the inside of the object) and `order` (names).
fn file(actors: &str, order: &str) -> String {
    let order: Vec<String> = order
        .split_whitespace()
        .map(|a| format!("\"{a}\""))
        .collect();
    format!(
        r#"{{"version": 1, "scenario": {{"seats": [{{"id": "A7"}}, {{"id": "A8"}}]}},
            "actors": {{{actors}}}, "order": [{}]}}"#,
        order.join(", ")
    )
}

fn error_of(json: &str) -> (String, String) {
    match Schedule::parse_json(json) {
        Ok(_) => panic!("expected an error for {json}"),
        Err(e) => (e.field, e.message),
    }
}

const PAYING: &str = r#"
    "adam": [{"op": "hold", "seats": ["A7"]}, {"op": "pay", "if": "held"}, {"op": "confirm", "if": "held"}],
    "omar": [{"op": "hold", "seats": ["A7"]}, {"op": "pay", "if": "held"}, {"op": "confirm", "if": "held"}],
    "clock": [{"op": "advance", "minutes": 11}]"#;

/// For every order: each buyer's pay ran exactly when its application held its seats, that
/// is when its last hold answered `held` (the clock moving does not tell the application).
#[test]
fn in_every_order_a_buyer_pays_only_after_its_hold_was_granted() {
    let s = parse(&file(PAYING, ""));
    let mut orders = 0;
    for_each_order(&s, u64::MAX, |order, engine| {
        orders += 1;
        let trace = engine.into_trace();
        for (k, e) in trace.entries.iter().enumerate() {
            let a = s.actor_index(&e.actor).expect("an actor");
            let op = &s.actors()[a].program[e.op_index];
            if !matches!(op, Op::Pay { .. } | Op::Confirm { .. }) {
                continue;
            }
            let hold = trace.entries[..k]
                .iter()
                .rfind(|h| h.actor == e.actor && h.op_index == 0)
                .and_then(|h| h.result.clone());
            let held = hold.as_ref().is_some_and(|r| r.short() == "held");
            // A confirm after a refused payment webhook answer is skipped too.
            let refunded = trace.entries[..k].iter().any(|c| {
                c.actor == e.actor && c.result.as_ref().is_some_and(|r| r.short() == "refund_due")
            });
            let ran = e.result != Some(StepResult::Skipped);
            assert_eq!(
                ran,
                held && !refunded,
                "{order:?}: entry {k} of {}",
                e.actor
            );
        }
    });
    assert_eq!(orders, 140);
    // No order invents a refund: whoever is owed one paid, and only a late payment is owed.
    let e = explore(&s, u64::MAX);
    let refunds: u64 = e
        .groups
        .iter()
        .filter(|g| !g.verdict.refund_due.is_empty())
        .map(|g| g.count)
        .sum();
    assert_eq!(refunds, 80, "{:#?}", e.groups);
    assert!(e.groups.iter().all(|g| g.verdict.refund_due.len() <= 1));
}

#[test]
fn without_conditions_the_same_programs_pay_as_before_in_every_order() {
    let s = parse(&file(&PAYING.replace(r#", "if": "held""#, ""), ""));
    assert!(s
        .actors()
        .iter()
        .all(|a| a.conditions.iter().all(|c| *c == Condition::Always)));
    let e = explore(&s, u64::MAX);
    assert_eq!(e.orders, 140);
    // The old meaning: every order owes someone a refund, the refused buyer included.
    assert!(e.groups.iter().all(|g| !g.verdict.refund_due.is_empty()));
}

const SERIALIZABLE_RETRY: &str = r#"
    "adam": {"defence": "serializable"},
    "omar": {"defence": "serializable_retry"}"#;

/// Every order: Omar's retry runs exactly when his first transaction ended after 40001,
/// 40P01 or 55P03; otherwise every operation of the retry is skipped.
#[test]
fn a_retry_runs_only_after_a_retryable_failure_and_is_skipped_otherwise() {
    let s = parse(&file(SERIALIZABLE_RETRY, ""));
    let omar = s.actor_index("omar").expect("omar");
    assert_eq!(s.actors()[omar].program.len(), 8);
    let (mut retried, mut not) = (0, 0);
    for_each_order(&s, u64::MAX, |order, engine| {
        let trace = engine.into_trace();
        let mine: Vec<_> = trace.entries.iter().filter(|e| e.actor == "omar").collect();
        let failed = mine[..4].iter().any(|e| {
            matches!(&e.result, Some(StepResult::Error { code, .. }) if ["40001", "40P01", "55P03"].contains(&code.code()))
        });
        let skipped: Vec<bool> = mine[4..]
            .iter()
            .map(|e| e.result == Some(StepResult::Skipped))
            .collect();
        if failed {
            retried += 1;
            assert!(!skipped[0], "{order:?}: the retry's begin runs");
        } else {
            not += 1;
            assert!(
                skipped.iter().all(|s| *s),
                "{order:?}: no failure, no retry"
            );
        }
    });
    assert!(retried > 0 && not > 0, "{retried} retried, {not} not");
}

#[test]
fn a_busy_hold_is_retried_and_a_refused_one_is_not() {
    let actors = r#"
        "admin": [{"op": "begin"}, {"op": "lock", "seats": ["A7"]}, {"op": "commit"}],
        "ana": [{"op": "hold", "seats": ["A7"]}, {"op": "hold", "seats": ["A7"], "if": "failed"}]"#;
    let busy = outcome(&parse(&file(actors, "admin admin ana admin ana")));
    assert_eq!(busy.steps(), ["ok", "ok:1", "busy", "ok", "held"]);
    let free = outcome(&parse(&file(actors, "ana ana admin admin admin")));
    assert_eq!(free.steps(), ["held", "skipped", "ok", "ok:1", "ok"]);
}

#[test]
fn a_skipped_begin_skips_its_whole_transaction_and_the_reason_says_why() {
    let s = parse(&file(
        SERIALIZABLE_RETRY,
        "adam adam adam adam omar omar omar omar omar omar omar omar",
    ));
    let o = outcome(&s);
    assert_eq!(
        o.steps(),
        [
            "ok", "ok:1", "ok:1", "ok", "ok", "ok:1", "skipped", "ok", "skipped", "skipped",
            "skipped", "skipped"
        ]
    );
    let reason = &o.entries[8].trace.reason;
    assert!(reason.contains("nothing to retry"), "{reason}");
    assert!(
        o.entries[9].trace.reason.contains("retry"),
        "{}",
        o.entries[9].trace.reason
    );
}

#[test]
fn the_condition_survives_the_file_the_link_and_the_exports() {
    let s = parse(&file(PAYING, "adam omar omar adam omar adam clock"));
    let back = parse(&serde_json::to_string(&s.to_file()).expect("json"));
    assert_eq!(back.actors(), s.actors());
    let o = outcome(&s);
    let fixture = fixture_json(&s, &o);
    assert!(
        fixture.contains(r#"{ "op": "pay", "if": "held" }"#),
        "{fixture}"
    );
    assert_eq!(parse(&fixture).actors(), s.actors());
    // The link of a sandbox schedule carries it too.
    let b = scenarios::get("ch5-three-buyers").expect("built-in");
    let view = View::of(5, b.id, None, &s, 3);
    let reopened = decode(&encode(&view)).expect("a valid link");
    assert_eq!(reopened.schedule().expect("valid").actors(), s.actors());
    // A skipped step is a comment saying why, never SQL.
    let scripts = psql_scripts(&s, &o);
    let omar = &scripts
        .iter()
        .find(|(n, _)| n == "omar")
        .expect("omar's script")
        .1;
    assert!(
        omar.contains("-- Skipped: omar does this only while it holds its seats"),
        "{omar}"
    );
    assert_eq!(omar.matches("confirm_hold").count(), 0, "{omar}");
    let (spec, _expected) = isolation_spec(&s, &o);
    assert!(
        spec.contains("(Skipped: omar does this only while it holds its seats"),
        "{spec}"
    );
}

#[test]
fn old_links_decode_to_the_same_order_and_a_defence_brings_its_conditions() {
    for token in [
        "1.4.ch4-serializable.01010101.8",
        "1.2.ch2-same-seat-twice.010101.6",
    ] {
        let view = decode(token).unwrap_or_else(|e| panic!("{token}: {e}"));
        let s = view.schedule().expect("runs");
        assert_eq!(s.order(), view.order.as_slice());
    }
    let s = decode("1.2.ch2-same-seat-twice.010101.6")
        .expect("valid")
        .schedule()
        .expect("runs");
    // hold_confirm: the hold, then pay and confirm only while held.
    assert_eq!(
        s.actors()[0].conditions,
        [Condition::Always, Condition::Held, Condition::Held]
    );
    // phone2's hold was refused: it neither pays nor confirms.
    assert_eq!(
        outcome(&s).steps(),
        ["held", "unavailable", "ok", "skipped", "issued", "skipped"]
    );
}

#[test]
fn a_condition_that_is_not_held_or_failed_names_the_values() {
    let (field, message) = error_of(&file(
        r#""adam": [{"op": "hold", "seats": ["A7"]}, {"op": "pay", "if": "paid"}]"#,
        "",
    ));
    assert_eq!(field, "actors.adam[1].if");
    assert!(
        message.contains("\"paid\" is not a condition")
            && message.contains("\"held\"")
            && message.contains("\"failed\""),
        "{message}"
    );
}

#[test]
fn failed_with_no_earlier_attempt_says_to_put_one_first() {
    let (field, message) = error_of(&file(
        r#""adam": [{"op": "begin", "if": "failed"}, {"op": "read", "seats": ["A7"]}, {"op": "commit"}]"#,
        "",
    ));
    assert_eq!(field, "actors.adam[0].if");
    assert!(message.contains("no earlier attempt"), "{message}");
    // A read inside a transaction is not an attempt of its own; its commit is.
    let (field, _) = error_of(&file(
        r#""adam": [{"op": "begin"}, {"op": "read", "seats": ["A7"]}, {"op": "hold", "seats": ["A7"], "if": "failed"}, {"op": "commit"}]"#,
        "",
    ));
    assert_eq!(
        field, "actors.adam[2]",
        "a hold inside a transaction is refused first"
    );
}

#[test]
fn held_with_nothing_before_that_takes_seats_is_refused() {
    let (field, message) = error_of(&file(r#""adam": [{"op": "pay", "if": "held"}]"#, ""));
    assert_eq!(field, "actors.adam[0].if");
    assert!(message.contains("put a hold"), "{message}");
    // A buyer who holds a seat at the start may pay while held.
    let json = r#"{"version": 1, "scenario": {"seats": [{"id": "A7", "status": "HELD", "holder": "adam", "until": 5}]},
                   "actors": {"adam": [{"op": "pay", "if": "held"}, {"op": "confirm", "if": "held"}]}}"#;
    assert_eq!(outcome(&parse(json)).steps(), ["ok", "issued"]);
}

#[test]
fn if_on_a_clock_op_is_refused() {
    let (field, message) = error_of(&file(
        r#""adam": [{"op": "hold", "seats": ["A7"]}], "clock": [{"op": "advance", "minutes": 3, "if": "held"}]"#,
        "",
    ));
    assert_eq!(field, "actors.clock[0].if");
    assert!(message.contains("remove \"if\""), "{message}");
}

#[test]
fn inside_a_transaction_every_operation_shares_its_begins_condition() {
    let base = r#""adam": [{"op": "claim", "seats": ["A7"]},
        {"op": "begin", "if": "failed"}, {"op": "claim", "seats": ["A7"]XX}, {"op": "commit"}]"#;
    let s = parse(&file(&base.replace("XX", ""), ""));
    assert_eq!(
        s.actors()[0].conditions,
        [
            Condition::Always,
            Condition::Failed,
            Condition::Failed,
            Condition::Failed
        ]
    );
    let (field, message) = error_of(&file(&base.replace("XX", r#", "if": "held""#), ""));
    assert_eq!(field, "actors.adam[2].if");
    assert!(
        message.contains("runs or is skipped with its begin (actors.adam[1])"),
        "{message}"
    );
}
