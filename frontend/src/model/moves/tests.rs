//! The tests of what the reader may do to the order: refusals in words, the next steps after a
//! fork, and the marks of conditional operations.

use super::*;
use shared::scenarios;
use shared::schedule::{Actor, Condition, Isolation, Op};

fn builtin(id: &str) -> Schedule {
    crate::model::playable(&scenarios::get(id).expect("built-in").schedule())
}

#[test]
fn a_waiting_buyers_refusal_names_the_blocker_in_a_sentence() {
    let schedule = builtin("ch4-lock_row");
    let outcome = run(&schedule).unwrap();
    let waiting = outcome
        .entries
        .iter()
        .position(|e| !e.trace.waited_for.is_empty())
        .expect("the second buyer waits under a row lock");
    let waiter = schedule.order()[waiting];
    // Send the waiter again right after its waiting step.
    let mut order = schedule.order()[..=waiting].to_vec();
    order.push(waiter);
    let refused = run(&schedule.with_order(order)).unwrap_err();
    assert!(!refused.contains("order["), "{refused}");
    let who = display_name(&schedule.actors()[waiter].name);
    let blocker = &outcome.entries[waiting].trace.waited_for[0];
    assert!(
        refused.starts_with(&format!("{who} cannot go at step {}", waiting + 2)),
        "{refused}"
    );
    assert!(
        refused.contains(&format!("waits for {}", display_name(blocker))),
        "{refused}"
    );
    assert!(refused.ends_with('.'), "{refused}");
}

#[test]
fn after_a_fork_the_waiting_buyer_is_offered_greyed_with_whom_it_waits_for() {
    let schedule = builtin("ch4-lock_row");
    let outcome = run(&schedule).unwrap();
    let waiting = outcome
        .entries
        .iter()
        .position(|e| !e.trace.waited_for.is_empty())
        .unwrap();
    let forked = schedule.with_order(schedule.order()[..=waiting].to_vec());
    let next = next_steps(&forked);
    let waiter = schedule.order()[waiting];
    let blocker = display_name(&outcome.entries[waiting].trace.waited_for[0]);
    let theirs = next
        .iter()
        .find(|n| n.actor == waiter)
        .expect("the waiter has steps left");
    assert_eq!(theirs.waits_for.as_deref(), Some(blocker.as_str()));
    let others: Vec<&NextStep> = next.iter().filter(|n| n.actor != waiter).collect();
    assert!(
        !others.is_empty() && others.iter().all(|n| n.waits_for.is_none()),
        "{next:?}"
    );
    // Every offered step that is not greyed out really can be sent.
    for step in next.iter().filter(|n| n.waits_for.is_none()) {
        let mut order = forked.order().to_vec();
        order.push(step.actor);
        assert!(run(&forked.with_order(order)).is_ok(), "{step:?}");
    }
}

#[test]
fn a_buyer_with_nothing_left_is_not_offered() {
    let schedule = builtin("ch4-check_then_act");
    assert!(next_steps(&schedule).is_empty());
    let start = schedule.with_order(Vec::new());
    assert_eq!(next_steps(&start).len(), 2);
}

#[test]
fn an_order_that_names_a_finished_buyer_says_so_in_words() {
    let schedule = builtin("ch4-check_then_act");
    let mut order = schedule.order().to_vec();
    let adam = order[0];
    order.push(adam);
    let refused = run(&schedule.with_order(order)).unwrap_err();
    assert_eq!(refused, "Adam has no step left to send at step 5.");
}

#[test]
fn a_retry_is_marked_as_a_new_attempt_and_a_step_while_held_as_conditional() {
    let program = vec![
        Op::Begin {
            isolation: Isolation::Serializable,
        },
        Op::Commit,
        Op::Begin {
            isolation: Isolation::Serializable,
        },
        Op::Commit,
        Op::Begin {
            isolation: Isolation::Serializable,
        },
        Op::Commit,
        Op::Confirm { now: None },
    ];
    let actor = Actor {
        name: "adam".to_string(),
        conditions: vec![
            Condition::Always,
            Condition::Always,
            Condition::Failed,
            Condition::Failed,
            Condition::Failed,
            Condition::Failed,
            Condition::Held,
        ],
        program,
        defence: None,
    };
    let marks = condition_marks(&actor);
    assert_eq!(
        marks,
        [
            None,
            None,
            Some("attempt 2".to_string()),
            None,
            Some("attempt 3".to_string()),
            None,
            Some("only if held".to_string()),
        ]
    );
    let plain = builtin("ch4-check_then_act");
    assert!(condition_marks(&plain.actors()[0])
        .iter()
        .all(Option::is_none));
}
