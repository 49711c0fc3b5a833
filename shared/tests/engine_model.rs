//! The model against what PostgreSQL 15 does (each case observed on a real server first): a
//! schedule in, the steps, waits, completions and final tables out.

use shared::engine::{simulate, Blocked, Engine};
use shared::outcome::{SeatRow, Trace};
use shared::schedule::SeatStatus;
use shared::Schedule;

/// A schedule of one show whose seats are given by id (all AVAILABLE unless `seats` is a full
/// JSON array), with programs and an order.
fn schedule(seats: &str, actors: &str, order: &str) -> Schedule {
    let seats = if seats.starts_with('[') {
        seats.to_string()
    } else {
        format!(
            "[{}]",
            seats
                .split(',')
                .map(|s| format!(r#"{{"id": "{s}"}}"#))
                .collect::<Vec<_>>()
                .join(",")
        )
    };
    let order = format!(
        "[{}]",
        order
            .split_whitespace()
            .map(|a| format!("\"{a}\""))
            .collect::<Vec<_>>()
            .join(",")
    );
    let json = format!(
        r#"{{"version": 1, "scenario": {{"seats": {seats}}}, "actors": {{{actors}}}, "order": {order}}}"#
    );
    Schedule::parse_json(&json).unwrap_or_else(|e| panic!("{e}\n{json}"))
}

fn run(seats: &str, actors: &str, order: &str) -> Trace {
    simulate(&schedule(seats, actors, order)).unwrap_or_else(|e| panic!("{e}"))
}

fn steps(trace: &Trace) -> Vec<String> {
    trace.entries.iter().map(|e| e.step()).collect()
}

fn waited(trace: &Trace) -> Vec<String> {
    trace
        .entries
        .iter()
        .map(|e| e.waited_for.join("+"))
        .collect()
}

fn completed(trace: &Trace) -> Vec<Option<usize>> {
    trace.entries.iter().map(|e| e.completed_after).collect()
}

fn last_seats(trace: &Trace) -> Vec<(String, SeatStatus, Option<String>)> {
    let seats: &[SeatRow] = &trace.entries.last().expect("entries").tables.seats;
    seats
        .iter()
        .map(|s| (s.id.clone(), s.status, s.holder.clone()))
        .collect()
}

fn seat(
    id: &str,
    status: SeatStatus,
    holder: Option<&str>,
) -> (String, SeatStatus, Option<String>) {
    (id.to_string(), status, holder.map(str::to_string))
}

#[test]
fn second_claim_waits_then_updates_no_rows() {
    let t = run(
        "A7",
        r#""adam": [{"op": "begin"}, {"op": "claim", "seats": ["A7"]}, {"op": "commit"}],
           "omar": [{"op": "claim", "seats": ["A7"]}]"#,
        "adam adam omar adam",
    );
    assert_eq!(steps(&t), ["ok", "ok:1", "waiting>ok:0", "ok"]);
    assert_eq!(waited(&t), ["", "", "adam", ""]);
    assert_eq!(completed(&t), [Some(0), Some(1), Some(3), Some(3)]);
    assert_eq!(
        t.entries[3].reason,
        "Adam commits; this releases Omar, who re-reads A7, sees HELD and updates no rows"
    );
    assert_eq!(last_seats(&t), [seat("A7", SeatStatus::Held, Some("adam"))]);
}

#[test]
fn a_failed_recheck_keeps_the_row_lock_and_the_next_waiter_queues_behind_it() {
    let t = run(
        "A7",
        r#""a": [{"op": "begin"}, {"op": "claim", "seats": ["A7"]}, {"op": "commit"}],
           "b": [{"op": "begin"}, {"op": "claim", "seats": ["A7"]}, {"op": "commit"}],
           "c": [{"op": "claim", "seats": ["A7"]}]"#,
        "a a b b c a b",
    );
    assert_eq!(
        steps(&t),
        [
            "ok",
            "ok:1",
            "ok",
            "waiting>ok:0",
            "waiting>ok:0",
            "ok",
            "ok"
        ]
    );
    assert_eq!(waited(&t), ["", "", "", "a", "b", "", ""]);
    assert_eq!(completed(&t)[3..5], [Some(5), Some(6)]);
}

#[test]
fn a_third_waiter_waits_for_everyone_ahead_of_it_in_the_queue() {
    let t = run(
        "A7",
        r#""a": [{"op": "begin"}, {"op": "lock", "seats": ["A7"]}, {"op": "commit"}],
           "b": [{"op": "lock", "seats": ["A7"]}],
           "c": [{"op": "lock", "seats": ["A7"]}],
           "d": [{"op": "write", "seats": ["A7"]}]"#,
        "a a b c d a",
    );
    assert_eq!(waited(&t), ["", "", "a", "b", "b+c", ""]);
    assert_eq!(
        steps(&t),
        [
            "ok",
            "ok:1",
            "waiting>ok:1",
            "waiting>ok:1",
            "waiting>ok:1",
            "ok"
        ]
    );
    assert_eq!(completed(&t)[2..5], [Some(5), Some(5), Some(5)]);
}

#[test]
fn lost_update_under_read_committed_transaction() {
    let t = run(
        "A7",
        r#""adam": {"defence": "transaction"}, "omar": {"defence": "transaction"}"#,
        "adam omar adam omar adam omar adam omar",
    );
    assert_eq!(
        steps(&t),
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
    assert_eq!(completed(&t)[5], Some(6));
    assert_eq!(
        last_seats(&t),
        [seat("A7", SeatStatus::Booked, Some("omar"))]
    );
}

#[test]
fn repeatable_read_second_writer_gets_40001_after_first_commits() {
    let t = run(
        "A7",
        r#""adam": {"defence": "repeatable_read"}, "omar": {"defence": "repeatable_read"}"#,
        "adam omar adam omar adam omar adam omar",
    );
    assert_eq!(
        steps(&t),
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
    assert_eq!(waited(&t)[5], "adam");
    assert_eq!(
        last_seats(&t),
        [seat("A7", SeatStatus::Booked, Some("adam"))]
    );
}

#[test]
fn repeatable_read_takes_its_snapshot_at_the_first_statement_not_at_begin() {
    let t = run(
        "A7",
        r#""adam": [{"op": "write", "seats": ["A7"], "status": "BOOKED"}],
           "omar": [{"op": "begin", "isolation": "repeatable read"}, {"op": "read", "seats": ["A7"]}, {"op": "commit"}]"#,
        "omar adam omar omar",
    );
    assert_eq!(t.entries[2].seen[0].status, SeatStatus::Booked);
}

#[test]
fn repeatable_read_updates_after_a_lock_only_holder_commits() {
    let t = run(
        "A7",
        r#""adam": [{"op": "begin"}, {"op": "lock", "seats": ["A7"]}, {"op": "commit"}],
           "omar": [{"op": "begin", "isolation": "repeatable read"}, {"op": "read", "seats": ["A7"]},
                    {"op": "write", "seats": ["A7"]}, {"op": "commit"}]"#,
        "omar omar adam adam omar adam omar",
    );
    assert_eq!(
        steps(&t),
        ["ok", "ok:1", "ok", "ok:1", "waiting>ok:1", "ok", "ok"]
    );
}

#[test]
fn rollback_lets_waiter_succeed() {
    let t = run(
        "A7",
        r#""adam": [{"op": "begin", "isolation": "repeatable read"}, {"op": "claim", "seats": ["A7"]}, {"op": "rollback"}],
           "omar": [{"op": "begin", "isolation": "repeatable read"}, {"op": "claim", "seats": ["A7"]}, {"op": "commit"}]"#,
        "adam omar adam omar adam omar",
    );
    assert_eq!(steps(&t), ["ok", "ok", "ok:1", "waiting>ok:1", "ok", "ok"]);
    assert_eq!(completed(&t)[3], Some(4));
    assert_eq!(last_seats(&t), [seat("A7", SeatStatus::Held, Some("omar"))]);
}

#[test]
fn a_waiting_for_update_returns_the_new_version_of_the_row() {
    let t = run(
        "A7",
        r#""adam": {"defence": "lock_row"}, "omar": {"defence": "lock_row"}"#,
        "adam adam omar omar adam adam omar omar",
    );
    assert_eq!(
        steps(&t),
        [
            "ok",
            "ok:1",
            "ok",
            "waiting>ok:1",
            "ok:1",
            "ok",
            "skipped",
            "ok"
        ]
    );
    assert_eq!(t.entries[3].seen[0].status, SeatStatus::Booked);
    assert!(!t.entries[3].seen[0].available);
}

#[test]
fn nowait_fails_while_row_locked() {
    let t = run(
        "A7",
        r#""adam": [{"op": "begin"}, {"op": "lock", "seats": ["A7"]}, {"op": "commit"}],
           "omar": [{"op": "begin"}, {"op": "lock", "seats": ["A7"], "wait": "nowait"}, {"op": "commit"}]"#,
        "adam adam omar omar omar adam",
    );
    assert_eq!(
        steps(&t),
        ["ok", "ok:1", "ok", "error:55P03", "rolled_back", "ok"]
    );
}

#[test]
fn skip_locked_hides_locked_row() {
    let t = run(
        "A7,A8",
        r#""adam": [{"op": "begin"}, {"op": "lock", "seats": ["A7"]}, {"op": "commit"}],
           "omar": [{"op": "lock", "seats": ["A7", "A8"], "wait": "skip_locked"}, {"op": "read", "seats": ["A7"]}]"#,
        "adam adam omar omar adam",
    );
    assert_eq!(steps(&t), ["ok", "ok:1", "ok:1", "ok:1", "ok"]);
    assert_eq!(
        t.entries[2]
            .seen
            .iter()
            .map(|r| r.seat.as_str())
            .collect::<Vec<_>>(),
        ["A8"]
    );
    assert_eq!(t.entries[3].seen[0].status, SeatStatus::Available);
}

#[test]
fn deadlock_victim_is_the_first_waiter() {
    let t = run(
        "A1,A2",
        r#""ana": [{"op": "begin"}, {"op": "lock", "seats": ["A1"]}, {"op": "lock", "seats": ["A2"]}, {"op": "commit"}],
           "ben": [{"op": "begin"}, {"op": "lock", "seats": ["A2"]}, {"op": "lock", "seats": ["A1"]}, {"op": "commit"}]"#,
        "ana ben ana ben ana ben ana ben",
    );
    assert_eq!(
        steps(&t),
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
    assert_eq!(waited(&t)[4], "ben");
    assert_eq!(completed(&t)[4], Some(5));
}

#[test]
fn aborted_transaction_gives_25p02_and_commit_rolls_back() {
    let t = run(
        "A7",
        r#""adam": [{"op": "begin"}, {"op": "book", "seats": ["A7"]}, {"op": "commit"}],
           "omar": [{"op": "begin"}, {"op": "book", "seats": ["A7"]}, {"op": "read", "seats": ["A7"]}, {"op": "commit"}]"#,
        "adam adam adam omar omar omar omar",
    );
    assert_eq!(
        steps(&t),
        [
            "ok",
            "ok:1",
            "ok",
            "ok",
            "error:23505",
            "error:25P02",
            "rolled_back"
        ]
    );
    assert_eq!(t.entries[6].tables.bookings.len(), 1);
}

#[test]
fn an_error_releases_the_locks_before_rollback_is_sent() {
    let t = run(
        "A7,A8",
        r#""adam": [{"op": "begin", "isolation": "repeatable read"}, {"op": "read", "seats": ["A8"]},
                    {"op": "claim", "seats": ["A7"]}, {"op": "write", "seats": ["A8"]}, {"op": "rollback"}],
           "omar": [{"op": "write", "seats": ["A8"]}, {"op": "claim", "seats": ["A7"]}]"#,
        "adam adam adam omar adam omar adam",
    );
    assert_eq!(
        last_seats(&t)[0],
        seat("A7", SeatStatus::Held, Some("omar"))
    );
    assert_eq!(
        steps(&t),
        ["ok", "ok:1", "ok:1", "ok:1", "error:40001", "ok:1", "ok"]
    );
}

#[test]
fn unique_insert_waits_then_23505() {
    let t = run(
        "A7",
        r#""adam": [{"op": "begin"}, {"op": "book", "seats": ["A7"]}, {"op": "commit"}],
           "omar": [{"op": "book", "seats": ["A7"]}]"#,
        "adam adam omar adam",
    );
    assert_eq!(steps(&t), ["ok", "ok:1", "waiting>error:23505", "ok"]);
    assert_eq!(waited(&t)[2], "adam");
}

#[test]
fn unique_insert_waits_then_inserts_after_a_rollback() {
    let t = run(
        "A7",
        r#""adam": [{"op": "begin"}, {"op": "book", "seats": ["A7"]}, {"op": "rollback"}],
           "omar": [{"op": "book", "seats": ["A7"]}]"#,
        "adam adam omar adam",
    );
    assert_eq!(steps(&t), ["ok", "ok:1", "waiting>ok:1", "ok"]);
    assert_eq!(t.entries[3].tables.bookings[0].holder, "omar");
}

const WAITED_CONFIRM: &str = r#""admin": [{"op": "begin"}, {"op": "lock", "seats": ["A14"]}, {"op": "commit"}],
    "a": [{"op": "confirm", "now": "NOW"}],
    "clock": [{"op": "advance", "minutes": 6}]"#;
const HELD_A14: &str = r#"[{"id": "A14", "status": "HELD", "holder": "a", "until": 5}]"#;

#[test]
fn confirm_after_lock_wait_with_transaction_now_still_issues() {
    let t = run(
        HELD_A14,
        &WAITED_CONFIRM.replace("NOW", "transaction"),
        "admin admin a clock admin",
    );
    assert_eq!(steps(&t), ["ok", "ok:1", "waiting>issued", "ok", "ok"]);
    assert_eq!(completed(&t)[2], Some(4));
    assert_eq!(last_seats(&t), [seat("A14", SeatStatus::Booked, Some("a"))]);
}

#[test]
fn confirm_after_lock_wait_with_evaluation_now_refunds() {
    let t = run(
        HELD_A14,
        &WAITED_CONFIRM.replace("NOW", "evaluation"),
        "admin admin a clock admin",
    );
    assert_eq!(steps(&t), ["ok", "ok:1", "waiting>refund_due", "ok", "ok"]);
    assert_eq!(t.entries[4].tables.refunds, ["a"]);
}

#[test]
fn hold_retry_never_extends() {
    let t = run(
        "A14",
        r#""a": [{"op": "hold", "seats": ["A14"], "attempt": "t1"}, {"op": "hold", "seats": ["A14"], "attempt": "t1"},
                 {"op": "hold", "seats": ["A14"], "attempt": "t1"}],
           "clock": [{"op": "advance", "minutes": 7}, {"op": "advance", "minutes": 7}]"#,
        "a clock a clock a",
    );
    assert_eq!(steps(&t), ["held", "ok", "held", "ok", "expired"]);
    assert_eq!(t.entries[2].tables.seats[0].until, Some(10));
}

#[test]
fn write_skew_fails_at_commit_under_serializable() {
    let t = run(
        "A1,A2",
        r#""adam": [{"op": "begin", "isolation": "serializable"}, {"op": "read", "seats": ["A1", "A2"]},
                    {"op": "write", "seats": ["A1"]}, {"op": "commit"}],
           "omar": [{"op": "begin", "isolation": "serializable"}, {"op": "read", "seats": ["A1", "A2"]},
                    {"op": "write", "seats": ["A2"]}, {"op": "commit"}]"#,
        "adam omar adam omar adam omar adam omar",
    );
    assert_eq!(
        steps(&t),
        [
            "ok",
            "ok",
            "ok:2",
            "ok:2",
            "ok:1",
            "ok:1",
            "ok",
            "error:40001"
        ]
    );
    let held: Vec<_> = last_seats(&t)
        .into_iter()
        .filter(|s| s.1 == SeatStatus::Held)
        .collect();
    assert_eq!(held, [seat("A1", SeatStatus::Held, Some("adam"))]);
}

#[test]
fn serializable_writer_after_the_readers_commit_fails_during_its_write() {
    let t = run(
        "A1,A2",
        r#""adam": [{"op": "begin", "isolation": "serializable"}, {"op": "read", "seats": ["A1", "A2"]},
                    {"op": "write", "seats": ["A1"]}, {"op": "commit"}],
           "omar": [{"op": "begin", "isolation": "serializable"}, {"op": "read", "seats": ["A1", "A2"]},
                    {"op": "write", "seats": ["A2"]}, {"op": "commit"}]"#,
        "adam omar adam omar adam adam omar omar",
    );
    assert_eq!(
        steps(&t),
        [
            "ok",
            "ok",
            "ok:2",
            "ok:2",
            "ok:1",
            "ok",
            "error:40001",
            "rolled_back"
        ]
    );
}

#[test]
fn entry_naming_a_waiting_actor_is_rejected() {
    let s = schedule(
        "A7",
        r#""adam": [{"op": "begin"}, {"op": "lock", "seats": ["A7"]}, {"op": "commit"}],
           "omar": [{"op": "lock", "seats": ["A7"]}, {"op": "read", "seats": ["A7"]}]"#,
        "adam adam omar omar adam",
    );
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
    let s = schedule(
        "A7",
        r#""adam": {"defence": "transaction"}, "omar": {"defence": "transaction"}"#,
        "",
    );
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
