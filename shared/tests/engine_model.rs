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

/// PostgreSQL checks a wait for a deadlock once, `deadlock_timeout` after it began. Ana's wait
/// is older than Ben's, so its check ran, and found nothing, before Ben's broke the deadlock of
/// Ben and Carl. When Dave closes a cycle with Ana later, Dave's own check is the one that
/// finds it: Dave fails, though Ana waited first. (Observed on PostgreSQL 15, and replayed in
/// `schedules/deadlock-a-checked-wait-is-never-the-victim.json`, where Ana's wait is the
/// younger one and the executor waits for its check to run.)
#[test]
fn a_wait_checked_before_a_deadlock_was_broken_is_never_a_later_victim() {
    let t = run(
        "A1,A2,A3,A4",
        r#""ana": [{"op": "begin"}, {"op": "lock", "seats": ["A1"]}, {"op": "lock", "seats": ["A4"]}, {"op": "commit"}],
           "ben": [{"op": "begin"}, {"op": "lock", "seats": ["A2"]}, {"op": "lock", "seats": ["A3"]}, {"op": "commit"}],
           "carl": [{"op": "begin"}, {"op": "lock", "seats": ["A3"]}, {"op": "lock", "seats": ["A2"]}, {"op": "commit"}],
           "dave": [{"op": "begin"}, {"op": "lock", "seats": ["A4"]}, {"op": "lock", "seats": ["A1"]}, {"op": "commit"}]"#,
        "ana ana dave dave ana ben ben carl carl ben carl ben carl dave dave ana",
    );
    assert_eq!(
        steps(&t),
        [
            "ok",
            "ok:1",
            "ok",
            "ok:1",
            "waiting>ok:1",
            "ok",
            "ok:1",
            "ok",
            "ok:1",
            "waiting>error:40P01",
            "ok:1",
            "rolled_back",
            "ok",
            "error:40P01",
            "rolled_back",
            "ok"
        ]
    );
    assert_eq!(completed(&t)[4], Some(13));
    assert!(
        t.entries[13]
            .reason
            .starts_with("Dave is refused the lock: deadlock detected (40P01)"),
        "{}",
        t.entries[13].reason
    );
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

#[test]
fn a_serializable_read_of_two_seats_scans_the_whole_show_and_takes_a_page_lock() {
    // Two or more seats are read by a scan of the show (custom plan: the seat list is a
    // filter), so A1, which Adam never asked for, is read too: Omar's write of it conflicts.
    let actors = |seats: &str| {
        format!(
            r#""adam": [{{"op": "begin", "isolation": "serializable"}}, {{"op": "read", "seats": {seats}}},
                        {{"op": "write", "seats": ["A4"], "status": "BOOKED"}}, {{"op": "commit"}}],
               "omar": [{{"op": "begin", "isolation": "serializable"}}, {{"op": "read", "seats": ["A4"]}},
                        {{"op": "write", "seats": ["A1"], "status": "BOOKED"}}, {{"op": "commit"}}]"#
        )
    };
    let order = "adam omar adam omar omar adam adam omar";
    let t = run("A1,A2,A3,A4", &actors(r#"["A2", "A3"]"#), order);
    assert_eq!(
        steps(&t),
        [
            "ok",
            "ok",
            "ok:2",
            "ok:1",
            "ok:1",
            "ok:1",
            "ok",
            "error:40001"
        ]
    );
    let t = run("A1,A2,A3,A4", &actors(r#"["A2"]"#), order);
    assert_eq!(
        steps(&t),
        ["ok", "ok", "ok:1", "ok:1", "ok:1", "ok:1", "ok", "ok"]
    );
}

#[test]
fn a_repeatable_read_waiter_whose_row_was_replaced_fails_at_the_commit_that_woke_it() {
    // Hal's commit wakes Xia (waiting first, on A1) and Yan (on A3). Xia goes first and
    // locks the new A3 at once; Yan's row was replaced, so it fails without waiting for Xia.
    let t = run(
        "A1,A3",
        r#""hal": [{"op": "begin"}, {"op": "claim", "seats": ["A1", "A3"]}, {"op": "commit"}],
           "xia": [{"op": "begin"}, {"op": "lock", "seats": ["A1", "A3"]}, {"op": "rollback"}],
           "yan": [{"op": "begin", "isolation": "repeatable read"}, {"op": "write", "seats": ["A3"]}, {"op": "rollback"}]"#,
        "hal hal xia xia yan yan hal",
    );
    assert_eq!(
        steps(&t),
        [
            "ok",
            "ok:2",
            "ok",
            "waiting>ok:2",
            "ok",
            "waiting>error:40001",
            "ok"
        ]
    );
    assert_eq!(completed(&t)[3], Some(6));
    assert_eq!(completed(&t)[5], Some(6));
}

#[test]
fn the_woken_head_of_a_row_goes_before_another_waiter_woken_by_the_same_rollback() {
    // Bea's rollback wakes Ada (waiting first, on A2) and the sweeper (first in line for A3).
    // Ada takes A2 and reaches A3 before the sweeper has run, but queues behind it: the
    // sweeper frees A3 and commits, then Ada re-checks A3 and writes it. (In PostgreSQL this is
    // a race that the head, with less work left, usually wins.)
    let t = run(
        r#"[{"id": "A2"}, {"id": "A3", "status": "HELD", "holder": "old", "until": 1}]"#,
        r#""bea": [{"op": "begin"}, {"op": "lock", "seats": ["A2", "A3"]}, {"op": "rollback"}],
           "ada": [{"op": "begin"}, {"op": "write", "seats": ["A2", "A3"]}, {"op": "commit"}],
           "clock": [{"op": "advance", "minutes": 9}, {"op": "sweep"}]"#,
        "bea bea ada ada clock clock bea ada",
    );
    assert_eq!(
        steps(&t),
        [
            "ok",
            "ok:2",
            "ok",
            "waiting>ok:2",
            "ok",
            "waiting>ok:1",
            "ok",
            "ok"
        ]
    );
    assert_eq!(waited(&t)[5], "bea");
    assert_eq!(completed(&t)[3], Some(6));
    assert_eq!(completed(&t)[5], Some(6));
    assert_eq!(last_seats(&t)[1], seat("A3", SeatStatus::Held, Some("ada")));
    let s = schedule(
        r#"[{"id": "A2"}, {"id": "A3", "status": "HELD", "holder": "old", "until": 1}]"#,
        r#""bea": [{"op": "begin"}, {"op": "lock", "seats": ["A2", "A3"]}, {"op": "rollback"}],
           "ada": [{"op": "begin"}, {"op": "write", "seats": ["A2", "A3"]}, {"op": "commit"}],
           "clock": [{"op": "advance", "minutes": 9}, {"op": "sweep"}]"#,
        "",
    );
    let mut engine = Engine::new(&s);
    for a in ["bea", "bea", "ada", "ada", "clock", "clock", "bea"]
        .map(|n| s.actor_index(n).expect("actor"))
    {
        engine.step(a).expect("runnable");
    }
    assert_eq!(engine.races(), [6], "the race is reported");
}

#[test]
fn the_sweeper_frees_expired_holds_only() {
    let t = run(
        r#"[{"id": "A1", "status": "HELD", "holder": "x", "until": 3}, {"id": "A2", "status": "HELD", "holder": "y", "until": 9},
            {"id": "A3", "status": "BOOKED", "holder": "z"}]"#,
        r#""clock": [{"op": "advance", "minutes": 5}, {"op": "sweep"}]"#,
        "clock clock",
    );
    assert_eq!(steps(&t), ["ok", "ok:1"]);
    assert_eq!(
        last_seats(&t),
        [
            seat("A1", SeatStatus::Available, None),
            seat("A2", SeatStatus::Held, Some("y")),
            seat("A3", SeatStatus::Booked, Some("z"))
        ]
    );
    assert_eq!(
        t.entries[1].reason,
        "The sweeper frees the expired hold on A1"
    );
}

#[test]
fn release_frees_the_own_hold_and_answers_expired_once_it_was_replaced() {
    let t = run(
        "A7",
        r#""a": [{"op": "hold", "seats": ["A7"]}, {"op": "release"}, {"op": "hold", "seats": ["A7"]}, {"op": "release"}],
           "b": [{"op": "hold", "seats": ["A7"]}],
           "clock": [{"op": "advance", "minutes": 11}]"#,
        "a a a clock b a",
    );
    assert_eq!(
        steps(&t),
        ["held", "released", "held", "ok", "held", "expired"]
    );
    assert_eq!(last_seats(&t), [seat("A7", SeatStatus::Held, Some("b"))]);
}

#[test]
fn hold_is_busy_while_another_transaction_locks_a_seat_and_keeps_nothing() {
    let t = run(
        "A1,A2",
        r#""a": [{"op": "begin"}, {"op": "lock", "seats": ["A2"]}, {"op": "rollback"}],
           "b": [{"op": "hold", "seats": ["A1", "A2"]}, {"op": "hold", "seats": ["A1", "A2"]}],
           "c": [{"op": "lock", "seats": ["A1"], "wait": "nowait"}]"#,
        "a a b c a b",
    );
    assert_eq!(steps(&t), ["ok", "ok:1", "busy", "ok:1", "ok", "held"]);
}

#[test]
fn a_confirm_waits_for_an_uncommitted_ticket_then_fails_with_23505() {
    let t = run(
        r#"[{"id": "A7", "status": "HELD", "holder": "a", "until": 10}]"#,
        r#""b": [{"op": "begin"}, {"op": "book", "seats": ["A7"]}, {"op": "commit"}],
           "a": [{"op": "confirm"}]"#,
        "b b a b",
    );
    assert_eq!(steps(&t), ["ok", "ok:1", "waiting>error:23505", "ok"]);
    assert_eq!(last_seats(&t), [seat("A7", SeatStatus::Held, Some("a"))]);
    assert_eq!(t.entries[3].tables.bookings.len(), 1);
}

#[test]
fn a_duplicate_webhook_answers_with_the_first_decision() {
    let t = run(
        "A7",
        r#""a": [{"op": "hold", "seats": ["A7"]}, {"op": "pay"}, {"op": "confirm"}, {"op": "confirm"}],
           "clock": [{"op": "advance", "minutes": 11}]"#,
        "a a clock a a",
    );
    assert_eq!(steps(&t), ["held", "ok", "ok", "refund_due", "refund_due"]);
    assert_eq!(t.entries[4].tables.refunds, ["a"]);
}

#[test]
fn a_committed_update_breaks_up_the_queue_on_the_old_version_of_the_row() {
    // Bo (READ COMMITTED) waits first for Al's update of A1, Cy (REPEATABLE READ) behind him.
    // Al commits: Bo re-checks the new version and keeps its lock; Cy, queued on the old
    // version, finds it replaced and fails at once instead of waiting for Bo.
    let t = run(
        "A1",
        r#""al": [{"op": "begin"}, {"op": "write", "seats": ["A1"], "status": "BOOKED"}, {"op": "commit"}],
           "bo": [{"op": "begin"}, {"op": "claim", "seats": ["A1"]}, {"op": "rollback"}],
           "cy": [{"op": "begin", "isolation": "repeatable read"}, {"op": "claim", "seats": ["A1"]}, {"op": "rollback"}]"#,
        "al al bo bo cy cy al bo cy",
    );
    assert_eq!(
        steps(&t),
        [
            "ok",
            "ok:1",
            "ok",
            "waiting>ok:0",
            "ok",
            "waiting>error:40001",
            "ok",
            "ok",
            "ok"
        ]
    );
    assert_eq!(waited(&t)[5], "bo");
    assert_eq!(completed(&t)[5], Some(6));
}

#[test]
fn in_a_three_way_deadlock_the_first_waiter_dies_then_the_one_the_survivor_unblocked() {
    // Observed with entries a few milliseconds apart: Bo's claim waits for Al, Cy's for Bo,
    // Al's for Cy (queued behind it on A1): Bo, the first waiter, is the victim. Cy then takes
    // A1 and moves on to A3, which Al holds; Al, whose wait for A1 restarted when Cy took it,
    // is now the first waiter of the new cycle and dies too.
    let t = run(
        r#"[{"id": "A1", "status": "HELD", "holder": "al", "until": 5}, {"id": "A2"}, {"id": "A3", "status": "HELD", "holder": "al", "until": 4}]"#,
        r#""al": [{"op": "begin", "isolation": "repeatable read"}, {"op": "lock", "seats": ["A2", "A3"]}, {"op": "claim", "seats": ["A1", "A2"], "now": "evaluation"}, {"op": "rollback"}],
           "bo": [{"op": "begin"}, {"op": "claim", "seats": ["A1", "A2", "A3"]}, {"op": "rollback"}],
           "cy": [{"op": "begin", "isolation": "serializable"}, {"op": "claim", "seats": ["A1", "A3"], "now": "evaluation"}, {"op": "rollback"}],
           "clock": [{"op": "advance", "minutes": 8}]"#,
        "clock al al bo bo cy cy al",
    );
    assert_eq!(
        steps(&t),
        [
            "ok",
            "ok",
            "ok:2",
            "ok",
            "waiting>error:40P01",
            "ok",
            "waiting>ok:2",
            "error:40P01"
        ]
    );
    assert_eq!(completed(&t)[4], Some(7));
    assert_eq!(completed(&t)[6], Some(7));
    // The second deadlock forms from two waits that began in the same wake-up: a race.
    let s = schedule(
        r#"[{"id": "A1", "status": "HELD", "holder": "al", "until": 5}, {"id": "A2"}, {"id": "A3", "status": "HELD", "holder": "al", "until": 4}]"#,
        r#""al": [{"op": "begin", "isolation": "repeatable read"}, {"op": "lock", "seats": ["A2", "A3"]}, {"op": "claim", "seats": ["A1", "A2"], "now": "evaluation"}, {"op": "rollback"}],
           "bo": [{"op": "begin"}, {"op": "claim", "seats": ["A1", "A2", "A3"]}, {"op": "rollback"}],
           "cy": [{"op": "begin", "isolation": "serializable"}, {"op": "claim", "seats": ["A1", "A3"], "now": "evaluation"}, {"op": "rollback"}],
           "clock": [{"op": "advance", "minutes": 8}]"#,
        "clock al al bo bo cy cy al",
    );
    let mut engine = Engine::new(&s);
    for &a in s.order() {
        engine.step(a).expect("runnable");
    }
    assert_eq!(engine.races(), [7]);
}

#[test]
fn a_claim_that_waited_keeps_the_deadline_computed_when_it_fetched_the_row() {
    // clock_now() in the SET is computed with the row, before the wait: after a rollback the
    // row is written as computed then (minute 0 + 10); only a re-check recomputes it.
    let t = run(
        "A1",
        r#""bo": [{"op": "begin"}, {"op": "write", "seats": ["A1"]}, {"op": "rollback"}],
           "al": [{"op": "claim", "seats": ["A1"], "now": "evaluation"}],
           "clock": [{"op": "advance", "minutes": 10}]"#,
        "bo bo al clock bo",
    );
    assert_eq!(steps(&t), ["ok", "ok:1", "waiting>ok:1", "ok", "ok"]);
    assert_eq!(t.entries[4].tables.seats[0].until, Some(10));
}

#[test]
fn a_show_of_sixty_four_seats_is_claimed_swept_and_released_whole() {
    let seats: Vec<String> = (0..64)
        .map(|i| format!(r#"{{"id": "S{i:02}", "status": "HELD", "holder": "x", "until": 1}}"#))
        .collect();
    let t = run(
        &format!("[{}]", seats.join(",")),
        r#""a": [{"op": "begin", "isolation": "serializable"}, {"op": "read", "seats": ["S00", "S63"]}, {"op": "commit"},
                 {"op": "hold", "seats": ["S00", "S63"]}, {"op": "release"}],
           "clock": [{"op": "advance", "minutes": 5}, {"op": "sweep"}]"#,
        "a a a clock a clock a",
    );
    assert_eq!(
        steps(&t),
        ["ok", "ok:2", "ok", "ok", "held", "ok:62", "released"]
    );
}

#[test]
fn a_waiter_following_the_update_chain_waits_outside_the_queue() {
    // The sweeper queued behind Cy for the old A3; Bo's commit sends both to the new version,
    // which Cy takes. The sweeper then waits for Cy without the tuple lock, so Di, arriving
    // later, waits for Cy too, not for the sweeper.
    let t = run(
        r#"[{"id": "A3", "status": "HELD", "holder": "x", "until": 3}]"#,
        r#""bo": [{"op": "begin"}, {"op": "write", "seats": ["A3"], "status": "BOOKED"}, {"op": "commit"}],
           "cy": [{"op": "begin"}, {"op": "write", "seats": ["A3"], "status": "BOOKED"}, {"op": "commit"}],
           "di": [{"op": "begin"}, {"op": "lock", "seats": ["A3"]}, {"op": "commit"}],
           "clock": [{"op": "advance", "minutes": 8}, {"op": "sweep"}]"#,
        "clock bo bo cy cy clock bo di di cy di",
    );
    assert_eq!(
        waited(&t),
        ["", "", "", "", "bo", "cy", "", "", "cy", "", ""]
    );
    assert_eq!(
        steps(&t)[4..10],
        [
            "waiting>ok:1",
            "waiting>ok:0",
            "ok",
            "ok",
            "waiting>ok:1",
            "ok"
        ]
    );
    assert_eq!(
        t.entries[9].reason,
        "Cy commits; this releases the sweeper, who re-reads A3, sees BOOKED and updates no rows; and Di, who locks A3 BOOKED by Cy"
    );
    let s = schedule(
        r#"[{"id": "A3", "status": "HELD", "holder": "x", "until": 3}]"#,
        r#""bo": [{"op": "begin"}, {"op": "write", "seats": ["A3"], "status": "BOOKED"}, {"op": "commit"}],
           "cy": [{"op": "begin"}, {"op": "write", "seats": ["A3"], "status": "BOOKED"}, {"op": "commit"}],
           "clock": [{"op": "advance", "minutes": 8}, {"op": "sweep"}]"#,
        "clock bo bo cy cy clock bo",
    );
    let mut engine = Engine::new(&s);
    for &a in s.order() {
        engine.step(a).expect("runnable");
    }
    // Whether the sweeper meets Cy's lock or Cy's update is a race in PostgreSQL.
    assert_eq!(engine.races(), [6]);
}

#[test]
fn a_repeatable_read_lock_behind_an_updater_waits_for_the_rows_next_holder_before_failing() {
    // Unlike an UPDATE, a FOR UPDATE that finds its row replaced first locks the rest of the
    // update chain: it waits for Bo, who took the new version, and fails only when Bo ends.
    let actors = |stmt: &str| {
        format!(
            r#""al": [{{"op": "begin"}}, {{"op": "write", "seats": ["A1"]}}, {{"op": "commit"}}],
               "bo": [{{"op": "begin"}}, {{"op": "write", "seats": ["A1"]}}, {{"op": "rollback"}}],
               "cy": [{{"op": "begin", "isolation": "repeatable read"}}, {{"op": "read", "seats": ["A2"]}}, {stmt}, {{"op": "rollback"}}]"#
        )
    };
    let order = "al al bo bo cy cy cy al bo cy";
    let t = run(
        "A1,A2",
        &actors(r#"{"op": "lock", "seats": ["A1", "A2"]}"#),
        order,
    );
    assert_eq!(
        completed(&t)[6],
        Some(8),
        "the lock fails when Bo rolls back"
    );
    assert_eq!(t.entries[6].step(), "waiting>error:40001");
    let t = run(
        "A1,A2",
        &actors(r#"{"op": "claim", "seats": ["A1", "A2"]}"#),
        order,
    );
    assert_eq!(completed(&t)[6], Some(7), "the claim fails when Al commits");
    assert_eq!(t.entries[6].step(), "waiting>error:40001");
}

#[test]
fn a_repeatable_read_lock_of_a_row_already_replaced_fails_at_once_even_if_it_is_locked_again() {
    let t = run(
        "A1",
        r#""al": [{"op": "write", "seats": ["A1"]}],
           "bo": [{"op": "begin"}, {"op": "lock", "seats": ["A1"]}, {"op": "commit"}],
           "cy": [{"op": "begin", "isolation": "repeatable read"}, {"op": "read", "seats": ["A1"]}, {"op": "lock", "seats": ["A1"]}, {"op": "rollback"}]"#,
        "cy cy al bo bo cy bo cy",
    );
    assert_eq!(
        steps(&t),
        [
            "ok",
            "ok:1",
            "ok:1",
            "ok",
            "ok:1",
            "error:40001",
            "ok",
            "ok"
        ]
    );
}

#[test]
fn the_update_chain_walk_of_a_waiting_lock_stops_at_a_version_updated_again() {
    // Bea updated A1 twice; Cy (SERIALIZABLE) waits behind Al for it. Bea's commit: Al locks
    // the newest version, and Cy's walk of the update chain meets Bea's first version, updated
    // by a committed transaction: 40001 at once, not after waiting for Al.
    let t = run(
        "A1,A2",
        r#""al": [{"op": "begin"}, {"op": "lock", "seats": ["A1"]}, {"op": "commit"}],
           "bea": [{"op": "begin", "isolation": "serializable"}, {"op": "write", "seats": ["A1"]}, {"op": "write", "seats": ["A1"], "status": "BOOKED"}, {"op": "commit"}],
           "cy": [{"op": "begin", "isolation": "serializable"}, {"op": "read", "seats": ["A2"]}, {"op": "lock", "seats": ["A1"]}, {"op": "rollback"}]"#,
        "bea bea al al bea cy cy cy bea al cy",
    );
    assert_eq!(t.entries[7].step(), "waiting>error:40001");
    assert_eq!(completed(&t)[7], Some(8));
}

/// Runs `order` (actor names) in the engine; the entries it reports as races.
fn races(s: &Schedule, order: &str) -> Vec<usize> {
    let mut engine = Engine::new(s);
    for name in order.split_whitespace() {
        engine
            .step(s.actor_index(name).expect("actor"))
            .expect("runnable");
    }
    engine.races().to_vec()
}

/// Two inserts of the same ticket wait for Carl's; his rollback wakes both at once. The model
/// lets the first to wait insert (Ana, who commits by herself) and Ben fail with 23505; on a
/// real server either may run first, and found by random schedules, Ben sometimes did.
#[test]
fn two_inserts_of_one_ticket_woken_together_are_a_race() {
    let s = schedule(
        "A1",
        r#""carl": [{"op": "begin"}, {"op": "book", "seats": ["A1"]}, {"op": "rollback"}],
           "ana": [{"op": "book", "seats": ["A1"]}],
           "ben": [{"op": "begin"}, {"op": "book", "seats": ["A1"]}, {"op": "commit"}]"#,
        "",
    );
    let order = "carl carl ana ben ben carl ben";
    let t = simulate(
        &s.with_order(
            order
                .split_whitespace()
                .map(|n| s.actor_index(n).expect("actor"))
                .collect(),
        ),
    )
    .expect("runs");
    assert_eq!(
        steps(&t),
        [
            "ok",
            "ok:1",
            "waiting>ok:1",
            "ok",
            "waiting>error:23505",
            "ok",
            "rolled_back"
        ]
    );
    assert_eq!(races(&s, order), [5]);
    // One waiter alone is no race.
    assert_eq!(
        races(&s, "carl carl ana carl ben ben ben"),
        Vec::<usize>::new()
    );
}

/// Ben and then Ana queue for A1 behind Carl, whose update commits: the version they queued
/// on is replaced. Ben, at the head, lets go of its tuple lock before he locks the newest
/// version, and Ana, woken by that, races him to it. When Carl rolls back instead, the
/// version stays, Ben takes the row still holding the tuple lock, and Ana waits for him.
#[test]
fn waiters_of_a_replaced_version_race_to_the_newest_one() {
    let s = schedule(
        "A1",
        r#""carl": [{"op": "begin"}, {"op": "write", "seats": ["A1"], "status": "BOOKED"}, {"op": "commit"}],
           "ben": [{"op": "write", "seats": ["A1"], "status": "BOOKED"}],
           "ana": [{"op": "write", "seats": ["A1"], "status": "HELD"}]"#,
        "",
    );
    assert_eq!(races(&s, "carl carl ben ana carl"), [4]);
    let s = schedule(
        "A1",
        r#""carl": [{"op": "begin"}, {"op": "write", "seats": ["A1"], "status": "BOOKED"}, {"op": "rollback"}],
           "ben": [{"op": "write", "seats": ["A1"], "status": "BOOKED"}],
           "ana": [{"op": "write", "seats": ["A1"], "status": "HELD"}]"#,
        "",
    );
    assert_eq!(races(&s, "carl carl ben ana carl"), Vec::<usize>::new());
    // A SERIALIZABLE FOR UPDATE behind the head follows the update chain: it fails at once if
    // it gets there before Ben, or waits for Ben's lock and fails when he commits.
    let s = schedule(
        "A1",
        r#""carl": [{"op": "begin"}, {"op": "write", "seats": ["A1"], "status": "BOOKED"}, {"op": "commit"}],
           "ben": [{"op": "begin"}, {"op": "claim", "seats": ["A1"]}, {"op": "commit"}],
           "ana": [{"op": "begin", "isolation": "serializable"}, {"op": "lock", "seats": ["A1"]}, {"op": "commit"}]"#,
        "",
    );
    assert_eq!(races(&s, "carl carl ben ben ana ana carl ben ana"), [6]);
    // A SERIALIZABLE UPDATE behind it fails the same way whoever goes first.
    let s = schedule(
        "A1",
        r#""carl": [{"op": "begin"}, {"op": "write", "seats": ["A1"], "status": "BOOKED"}, {"op": "commit"}],
           "ben": [{"op": "begin"}, {"op": "claim", "seats": ["A1"]}, {"op": "commit"}],
           "ana": [{"op": "begin", "isolation": "serializable"}, {"op": "claim", "seats": ["A1"]}, {"op": "commit"}]"#,
        "",
    );
    assert_eq!(
        races(&s, "carl carl ben ben ana ana carl ben ana"),
        Vec::<usize>::new()
    );
}

/// Carl's rollback wakes Ana, the head of A2's queue, and Ben, who waited for A1 and must then
/// lock A2 too. In the model Ana, who waited first, takes A2 and Ben queues behind her; in
/// PostgreSQL Ben may lock A1 and reach A2 before Ana's update does (the row's locker ended,
/// so nobody asks for the tuple lock Ana holds), and then Ana waits for Ben.
#[test]
fn a_woken_statement_that_comes_to_a_row_another_woken_one_took_is_a_race() {
    let s = schedule(
        "A1,A2",
        r#""carl": [{"op": "begin"}, {"op": "lock", "seats": ["A1", "A2"]}, {"op": "rollback"}],
           "ana": [{"op": "begin"}, {"op": "claim", "seats": ["A2"]}, {"op": "commit"}],
           "ben": [{"op": "begin"}, {"op": "lock", "seats": ["A1", "A2"]}, {"op": "commit"}]"#,
        "",
    );
    assert_eq!(races(&s, "carl carl ana ana ben ben carl ana ben"), [6]);
    // Ben alone behind Carl: nothing to race with.
    assert_eq!(
        races(&s, "carl carl ben ben carl ben ana ana ana"),
        Vec::<usize>::new()
    );
}

/// Dave's commit fails Ben (SERIALIZABLE, its row replaced), which frees both Carl, who waited
/// for Ben's A1 and now wants A2, and Ana, next in A2's queue. In the model Carl, who waited
/// first, takes A2 and Ana waits for him; in PostgreSQL they run at once and Ana, with less to
/// do, usually gets there first (found by the random schedules).
#[test]
fn a_woken_statement_that_takes_a_row_its_queue_was_freed_for_is_a_race() {
    let s = schedule(
        "A1,A2",
        r#""dave": [{"op": "begin"}, {"op": "write", "seats": ["A2"]}, {"op": "commit"}],
           "ben": [{"op": "begin", "isolation": "serializable"}, {"op": "lock", "seats": ["A1", "A2"]}, {"op": "commit"}],
           "carl": [{"op": "begin"}, {"op": "lock", "seats": ["A1", "A2"]}, {"op": "commit"}],
           "ana": [{"op": "lock", "seats": ["A2"]}]"#,
        "",
    );
    assert_eq!(
        races(&s, "dave dave ben ben carl carl ana dave ben carl"),
        [7]
    );
    // Without Ana in A2's queue, Carl goes on alone.
    assert_eq!(
        races(&s, "dave dave ben ben carl carl dave ben carl ana"),
        Vec::<usize>::new()
    );
}
