//! The executor on real PostgreSQL: hand-written schedules, and the steps PostgreSQL really took.

mod common;

use backend::executor::{execute, ExecError};
use common::{pool, schedule, steps};
use shared::outcome::StepResult;
use shared::schedule::SeatStatus;

#[tokio::test]
async fn second_claim_waits_then_updates_no_rows() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A12" } ] },
             "actors": { "first": [ { "op": "begin" }, { "op": "claim", "seats": ["A12"] }, { "op": "commit" } ],
                         "second": [ { "op": "claim", "seats": ["A12"] } ] },
             "order": ["first", "first", "second", "first"] }"#,
    );
    let trace = execute(&pool().await, &s).await.expect("the run");
    assert_eq!(steps(&trace), ["ok", "ok:1", "waiting>ok:0", "ok"]);
    assert_eq!(trace.entries[2].waited_for, ["first"]);
    assert_eq!(trace.entries[2].completed_after, Some(3));
    let seat = &trace.entries[3].tables.seats[0];
    assert_eq!(
        (seat.status, seat.holder.as_deref()),
        (SeatStatus::Held, Some("first"))
    );
}

#[tokio::test]
async fn an_unconditional_write_that_waited_still_writes_the_lost_update() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
             "actors": { "adam": { "defence": "transaction" }, "omar": { "defence": "transaction" } },
             "order": ["adam", "omar", "adam", "omar", "adam", "omar", "adam", "omar"] }"#,
    );
    let trace = execute(&pool().await, &s).await.expect("the run");
    assert_eq!(
        steps(&trace),
        [
            "ok",
            "ok",
            "ok:1",
            "ok:1",
            "ok:1",
            "waiting>ok:1",
            "ok",
            "ok"
        ]
    );
    assert!(trace.entries[2].seen[0].available && trace.entries[3].seen[0].available);
    assert_eq!(
        trace.entries[5].completed_after,
        Some(6),
        "omar's write completes when adam commits"
    );
    let seat = &trace.entries[7].tables.seats[0];
    assert_eq!(
        (seat.status, seat.holder.as_deref()),
        (SeatStatus::Booked, Some("omar"))
    );
}

#[tokio::test]
async fn repeatable_read_second_writer_waits_then_fails_with_40001() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
             "actors": { "adam": { "defence": "repeatable_read" }, "omar": { "defence": "repeatable_read" } },
             "order": ["adam", "omar", "adam", "omar", "adam", "omar", "adam", "omar"] }"#,
    );
    let trace = execute(&pool().await, &s).await.expect("the run");
    assert_eq!(
        steps(&trace),
        [
            "ok",
            "ok",
            "ok:1",
            "ok:1",
            "ok:1",
            "waiting>error:40001",
            "ok",
            "rolled_back"
        ]
    );
    let Some(StepResult::Error { message, .. }) = &trace.entries[5].result else {
        panic!("an error")
    };
    assert_eq!(
        message,
        "could not serialize access due to concurrent update"
    );
}

#[tokio::test]
async fn deadlock_victim_is_the_transaction_that_waited_first() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A1" }, { "id": "A2" } ] },
             "actors": {
               "ana": [ { "op": "begin" }, { "op": "lock", "seats": ["A1"] }, { "op": "lock", "seats": ["A2"] }, { "op": "commit" } ],
               "ben": [ { "op": "begin" }, { "op": "lock", "seats": ["A2"] }, { "op": "lock", "seats": ["A1"] }, { "op": "commit" } ] },
             "order": ["ana", "ben", "ana", "ben", "ana", "ben", "ana", "ben"] }"#,
    );
    let trace = execute(&pool().await, &s).await.expect("the run");
    assert_eq!(
        steps(&trace),
        [
            "ok",
            "ok",
            "ok:1",
            "ok:1",
            "waiting>error:40P01",
            "ok:1",
            "rolled_back",
            "ok"
        ]
    );
    assert_eq!(trace.entries[4].waited_for, ["ben"]);
    assert_eq!(
        trace.entries[4].completed_after,
        Some(5),
        "the victim fails when ben closes the cycle"
    );
}

#[tokio::test]
async fn nowait_fails_at_once_with_55p03_and_the_commit_of_that_transaction_rolls_back() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
             "actors": { "adam": { "defence": "lock_nowait" }, "omar": { "defence": "lock_nowait" } },
             "order": ["adam", "adam", "omar", "omar", "omar", "omar", "adam", "adam"] }"#,
    );
    let trace = execute(&pool().await, &s).await.expect("the run");
    assert_eq!(
        steps(&trace),
        [
            "ok",
            "ok:1",
            "ok",
            "error:55P03",
            "error:25P02",
            "rolled_back",
            "ok:1",
            "ok"
        ]
    );
    assert!(
        trace.entries[3].waited_for.is_empty(),
        "NOWAIT never queues"
    );
}

#[tokio::test]
async fn a_unique_insert_waits_for_the_uncommitted_one_then_gets_23505() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
             "actors": { "adam": [ { "op": "begin" }, { "op": "book", "seats": ["A7"] }, { "op": "commit" } ],
                         "omar": [ { "op": "book", "seats": ["A7"] } ] },
             "order": ["adam", "adam", "omar", "adam"] }"#,
    );
    let trace = execute(&pool().await, &s).await.expect("the run");
    assert_eq!(steps(&trace), ["ok", "ok:1", "waiting>error:23505", "ok"]);
    assert_eq!(trace.entries[3].tables.bookings.len(), 1);
    assert_eq!(trace.entries[3].tables.bookings[0].holder, "adam");
}

#[tokio::test]
async fn a_retried_hold_never_extends_its_deadline_and_finds_it_expired_once_replaced() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "show": 42, "hold_minutes": 5, "seats": [ { "id": "A14" } ] },
             "actors": {
               "a": [ { "op": "hold", "seats": ["A14"], "attempt": "t1" }, { "op": "hold", "seats": ["A14"], "attempt": "t1" },
                      { "op": "hold", "seats": ["A14"], "attempt": "t1" } ],
               "b": [ { "op": "hold", "seats": ["A14"] } ],
               "clock": [ { "op": "advance", "minutes": 3 }, { "op": "advance", "minutes": 3 } ] },
             "order": ["a", "clock", "a", "clock", "b", "a"] }"#,
    );
    let trace = execute(&pool().await, &s).await.expect("the run");
    assert_eq!(
        steps(&trace),
        ["held", "ok", "held", "ok", "held", "expired"]
    );
    let until = |k: usize| trace.entries[k].tables.seats[0].until;
    assert_eq!(
        (until(0), until(2)),
        (Some(5), Some(5)),
        "the retry at minute 3 keeps the deadline of minute 5"
    );
    assert_eq!(
        trace.entries[4].tables.seats[0].holder.as_deref(),
        Some("b")
    );
    assert_eq!(trace.entries[5].tables.clock, 6);
}

#[tokio::test]
async fn a_seat_held_and_a_seat_booked_at_the_start_are_seeded_with_their_initial_hold() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "clock": 7, "seats": [
               { "id": "A1", "status": "HELD", "holder": "a", "until": 9 }, { "id": "A2", "status": "BOOKED", "holder": "b" } ] },
             "actors": { "a": [ { "op": "read", "seats": ["A1", "A2"] } ] } }"#,
    );
    let trace = execute(&pool().await, &s).await.expect("the run");
    let t = &trace.initial;
    assert_eq!(t.clock, 7);
    assert_eq!(t.seats[0].hold_id.as_deref(), Some("a:initial"));
    assert_eq!(t.seats[1].hold_id.as_deref(), Some("b:initial"));
    assert_eq!(
        (
            t.bookings[0].seat.as_str(),
            t.bookings[0].booking_id.as_str()
        ),
        ("A2", "b:initial")
    );
    assert_eq!(steps(&trace), ["ok:2"]);
    assert!(trace.entries[0].seen.iter().all(|r| !r.available));
}

#[tokio::test]
async fn an_entry_naming_an_actor_whose_statement_still_waits_is_refused_with_its_index() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
             "actors": { "adam": { "defence": "lock_row" }, "omar": { "defence": "lock_row" } },
             "order": ["adam", "adam", "omar", "omar", "omar"] }"#,
    );
    match execute(&pool().await, &s).await {
        Err(ExecError::Schedule(e)) => {
            assert_eq!(e.field, "order[4]");
            assert_eq!(
                e.message,
                "omar's lock (entry 4) is still waiting for adam: omar can send nothing until adam commits or rolls back"
            );
        }
        other => panic!("expected a schedule error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_statement_still_waiting_at_the_end_is_left_without_a_result() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
             "actors": { "adam": { "defence": "lock_row" }, "omar": { "defence": "lock_row" } },
             "order": ["adam", "adam", "omar", "omar"] }"#,
    );
    let trace = execute(&pool().await, &s).await.expect("the run");
    assert_eq!(steps(&trace), ["ok", "ok:1", "ok", "waiting"]);
    assert_eq!(trace.entries[3].waited_for, ["adam"]);
    assert_eq!(trace.entries[3].completed_after, None);
}
