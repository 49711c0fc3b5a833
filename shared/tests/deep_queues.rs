//! Queues of three or more on one row behind a holder that updates it, as PostgreSQL 15 runs
//! them (each case observed on a real server first, many times over): who follows the update
//! chain in its place, who lets go and races for the newest version, and which entries the
//! model names as races.

use shared::engine::Engine;
use shared::outcome::Trace;
use shared::Schedule;

/// The schedule of `actors` (JSON members) over `seats`, in `order` (names).
fn schedule(seats: &[&str], actors: &str, order: &str) -> Schedule {
    let seats: Vec<String> = seats
        .iter()
        .map(|s| format!(r#"{{"id": "{s}"}}"#))
        .collect();
    let order: Vec<String> = order
        .split_whitespace()
        .map(|a| format!("\"{a}\""))
        .collect();
    let json = format!(
        r#"{{"version": 1, "scenario": {{"seats": [{}]}}, "actors": {{{actors}}}, "order": [{}]}}"#,
        seats.join(","),
        order.join(",")
    );
    Schedule::parse_json(&json).unwrap_or_else(|e| panic!("{e}\n{json}"))
}

/// The trace of the whole order and the entries (1-based) the model names as races.
fn run(seats: &[&str], actors: &str, order: &str) -> (Trace, Vec<usize>) {
    let schedule = schedule(seats, actors, order);
    let mut engine = Engine::new(&schedule);
    for &a in schedule.order() {
        engine.step(a).unwrap_or_else(|e| panic!("{e}"));
    }
    let races = engine.races().iter().map(|k| k + 1).collect();
    (engine.into_trace(), races)
}

fn steps(trace: &Trace) -> Vec<String> {
    trace.entries.iter().map(|e| e.step()).collect()
}

const LOCK_ROW: &str = r#"{"defence": "lock_row"}"#;

#[test]
fn a_queue_that_queued_before_the_holder_wrote_races_for_the_newest_version() {
    // All four lock, then each writes and commits in turn. The three waiters saw a lock only:
    // at Ana's commit each lets go and goes for the row Ana wrote, one woken by the other, and
    // on a real server the fourth is often there before the third.
    let actors = ["ana", "ben", "cas", "dee"]
        .map(|a| format!(r#""{a}": {LOCK_ROW}"#))
        .join(",");
    let order = "ana ana ben ben cas cas dee dee ana ana ben ben cas cas dee dee";
    let (t, races) = run(&["A7"], &actors, order);
    assert_eq!(
        races,
        [10, 12],
        "Ana's and then Ben's commit break up the queue"
    );
    assert_eq!(t.entries[3].waited_for, ["ana"]);
    // Behind the first waiter, each waits for the waiters ahead of it (their tuple lock).
    assert_eq!(t.entries[5].waited_for, ["ben"]);
    assert_eq!(t.entries[7].waited_for, ["ben", "cas"]);
}

#[test]
fn a_queue_that_queued_after_the_holder_wrote_follows_the_chain_in_order() {
    // Ana writes before anyone queues: each waiter saw her update and, at her commit, locks
    // the newest version along the chain before it lets go of its place. Nothing races.
    let actors = ["ana", "ben", "cas", "dee"]
        .map(|a| format!(r#""{a}": {LOCK_ROW}"#))
        .join(",");
    let order = "ana ana ana ben ben cas cas dee dee ana ben ben cas cas dee dee";
    let (t, races) = run(&["A7"], &actors, order);
    assert!(races.is_empty(), "{races:?}");
    assert_eq!(t.entries[9].step(), "ok", "Ana commits");
    assert_eq!(
        t.entries[4].completed_after,
        Some(9),
        "Ben gets it at Ana's commit"
    );
    assert_eq!(t.entries[6].completed_after, Some(11), "Cas at Ben's");
    assert_eq!(t.entries[8].completed_after, Some(13), "Dee at Cas's");
}

#[test]
fn a_repeatable_read_lock_that_saw_only_a_lock_fails_at_the_commit_itself() {
    // Bo queued while Al only held the lock; Al then wrote and committed. Bo finds the row
    // replaced and fails at once (TM_Updated), without walking the chain; Cy, behind him,
    // goes for the newest version and gets it.
    let (t, races) = run(
        &["A1"],
        r#""al": [{"op": "begin"}, {"op": "lock", "seats": ["A1"]}, {"op": "write", "seats": ["A1"]}, {"op": "commit"}],
           "cy": [{"op": "begin"}, {"op": "lock", "seats": ["A1"]}, {"op": "commit"}],
           "bo": [{"op": "begin", "isolation": "repeatable read"}, {"op": "read", "seats": ["A1"]}, {"op": "lock", "seats": ["A1"]}, {"op": "rollback"}]"#,
        "al al bo bo cy bo cy al al cy bo",
    );
    assert!(races.is_empty(), "{races:?}");
    assert_eq!(t.entries[5].step(), "waiting>error:40001");
    assert_eq!(t.entries[5].completed_after, Some(8), "at Al's commit");
    assert_eq!(t.entries[6].step(), "waiting>ok:1");
    assert_eq!(t.entries[6].completed_after, Some(8));
}

#[test]
fn a_chain_walker_keeps_its_place_so_the_update_behind_it_waits_into_a_deadlock() {
    // Cas claims and commits A1 with Ana, Ben and Dee queued behind him, all having seen his
    // update. Ana locks the new version; Ben follows the chain and waits for Ana in his place
    // at the head of the old version's queue, so Dee's UPDATE still waits behind Ben. Ana then
    // waits for A2, which Dee holds: Dee waits for Ben, Ben for Ana, Ana for Dee. Dee's wait
    // began first: Dee is the victim.
    let (t, races) = run(
        &["A1", "A2"],
        r#""ana": [{"op": "begin"}, {"op": "lock", "seats": ["A1"]}, {"op": "lock", "seats": ["A2"]}, {"op": "commit"}],
           "ben": [{"op": "begin"}, {"op": "book", "seats": ["A1"]}, {"op": "lock", "seats": ["A1"]}, {"op": "commit"}],
           "cas": [{"op": "begin", "isolation": "serializable"}, {"op": "claim", "seats": ["A1"]}, {"op": "claim", "seats": ["A1"]}, {"op": "commit"}],
           "dee": [{"op": "begin", "isolation": "repeatable read"}, {"op": "lock", "seats": ["A2"]}, {"op": "claim", "seats": ["A1"]}, {"op": "commit"}]"#,
        "dee ben ana cas ben dee cas ana ben dee cas cas ana ana ben dee",
    );
    assert!(races.is_empty(), "{races:?}");
    assert_eq!(t.entries[9].step(), "waiting>error:40P01");
    assert_eq!(
        t.entries[9].completed_after,
        Some(12),
        "broken during Ana's lock of A2"
    );
}

#[test]
fn a_waiter_that_saw_an_update_since_rolled_back_does_not_follow_the_next_one() {
    // Ben, Eve and Fay queued behind Cas's uncommitted writes; Cas rolled back and Dee wrote
    // and committed the row instead. Their walk along Cas's chain ends at once, and reading
    // the row again they find it replaced: each fails at Dee's commit, under REPEATABLE READ,
    // instead of waiting for Ana, who followed Dee's update in order.
    let (t, races) = run(
        &["A1"],
        r#""ana": [{"op": "begin"}, {"op": "lock", "seats": ["A1"]}, {"op": "claim", "seats": ["A1"]}, {"op": "commit"}],
           "ben": [{"op": "begin", "isolation": "repeatable read"}, {"op": "lock", "seats": ["A1"]}, {"op": "commit"}],
           "cas": [{"op": "begin", "isolation": "repeatable read"}, {"op": "claim", "seats": ["A1"]}, {"op": "write", "seats": ["A1"], "status": "BOOKED"}, {"op": "rollback"}],
           "dee": [{"op": "begin", "isolation": "serializable"}, {"op": "write", "seats": ["A1"], "status": "BOOKED"}, {"op": "lock", "seats": ["A1"], "wait": "nowait"}, {"op": "commit"}],
           "eve": [{"op": "begin", "isolation": "repeatable read"}, {"op": "lock", "seats": ["A1"]}, {"op": "read", "seats": ["A1"]}, {"op": "rollback"}],
           "fay": [{"op": "begin", "isolation": "repeatable read"}, {"op": "claim", "seats": ["A1"]}, {"op": "lock", "seats": ["A1"]}, {"op": "commit"}]"#,
        "ana eve cas dee ben fay cas dee ana cas fay ben eve cas dee dee fay ana fay ana ben eve eve",
    );
    assert!(races.is_empty(), "{races:?}");
    for (k, who) in [(10, "fay"), (11, "ben"), (12, "eve")] {
        assert_eq!(t.entries[k].actor, who);
        assert_eq!(t.entries[k].step(), "waiting>error:40001", "{who}");
        assert_eq!(
            t.entries[k].completed_after,
            Some(15),
            "{who} fails at Dee's commit"
        );
    }
    assert_eq!(
        t.entries[8].completed_after,
        Some(15),
        "Ana gets it at Dee's commit"
    );
    assert_eq!(steps(&t)[8], "waiting>ok:1");
}

#[test]
fn two_waiters_for_one_ticket_that_an_abort_frees_race_for_it() {
    // Fay's tickets wait for Eve's A3; Ben waits for Fay's A1, Gus for Fay's A2. Eve's commit
    // fails Fay (23505), whose abort wakes Ben and Gus at once. In the model Ben goes first,
    // inserts A1 and A2, fails on A3 and takes them back, and Gus then gets A2; on a real server
    // Gus is there first as often as not, and Ben waits for him (random schedule 5936, seed 97).
    let actors = r#""eve": [{"op": "begin"}, {"op": "book", "seats": ["A3"]}, {"op": "commit"}],
        "fay": [{"op": "begin"}, {"op": "book", "seats": ["A1", "A2", "A3"]}, {"op": "commit"}],
        "ben": [{"op": "book", "seats": ["A1", "A2", "A3"]}],
        "gus": [{"op": "begin"}, {"op": "book", "seats": ["A2"]}, {"op": "commit"}]"#;
    let order = "eve eve fay fay ben gus gus eve gus fay";
    let (t, races) = run(&["A1", "A2", "A3"], actors, order);
    assert_eq!(t.entries[4].waited_for, ["fay"]);
    assert_eq!(t.entries[6].waited_for, ["fay"]);
    assert_eq!(
        steps(&t)[4..7],
        ["waiting>error:23505", "ok", "waiting>ok:1"],
        "Ben fails on Eve's A3 after taking back A1 and A2, and Gus gets A2"
    );
    assert_eq!(
        races,
        [8],
        "Eve's commit wakes Fay, whose abort wakes Ben and Gus together"
    );
}

#[test]
fn two_waits_one_rollback_began_race_for_the_deadlock_they_close_later() {
    // Dave holds A1 and A2. Fay waits for A1, Eve behind her; Carl waits for A2 on his way to
    // A3, which Eve holds. Dave's rollback wakes Fay and Carl together: Fay takes A1 and Eve
    // goes back to waiting, now for Fay; Carl takes A2 and waits for Eve on A3. One entry
    // later Fay's write of A2 waits for Carl and closes the cycle. Eve's and Carl's deadlock
    // timers started in the same wake-up, in whichever order the machine ran them, so which
    // of the two PostgreSQL fails is a race (random schedule 9013, seed 20261206: Carl as
    // often as Eve).
    let actors = r#""dave": [{"op": "begin"}, {"op": "write", "seats": ["A1"], "status": "HELD"},
            {"op": "write", "seats": ["A2"], "status": "HELD"}, {"op": "rollback"}],
        "eve": [{"op": "begin"}, {"op": "write", "seats": ["A3"], "status": "BOOKED"},
            {"op": "write", "seats": ["A1"], "status": "BOOKED"}, {"op": "rollback"}],
        "fay": [{"op": "begin"}, {"op": "write", "seats": ["A1"], "status": "HELD"},
            {"op": "write", "seats": ["A2"], "status": "HELD"}, {"op": "rollback"}],
        "carl": [{"op": "begin"}, {"op": "write", "seats": ["A2", "A3"], "status": "BOOKED"},
            {"op": "rollback"}]"#;
    let order = "dave eve fay carl dave dave eve fay eve carl dave fay eve carl fay";
    let (t, races) = run(&["A1", "A2", "A3"], actors, order);
    assert_eq!(t.entries[7].waited_for, ["dave"], "Fay waits for Dave's A1");
    assert_eq!(
        t.entries[9].waited_for,
        ["dave"],
        "Carl waits for Dave's A2"
    );
    let failed: Vec<&str> = t
        .entries
        .iter()
        .filter(|e| e.step().ends_with("error:40P01"))
        .map(|e| e.actor.as_str())
        .collect();
    assert_eq!(failed.len(), 1, "one victim: {:?}", steps(&t));
    assert!(
        races.contains(&12),
        "Fay's write closes the cycle of two waits Dave's rollback began: {races:?} {:?}",
        steps(&t)
    );
}
