//! Links, exports and explanations over every built-in scenario: a link reopens the exact
//! state, a fixture meets its own `expect`, the scripts carry the SQL each entry sent, the story
//! ends in its consequence, and each chapter's goal is met exactly where it should be.

#[allow(dead_code)]
mod common;

use proptest::prelude::*;
use shared::assess::{assess, check_expect};
use shared::explain::{headline, verdict_story};
use shared::export::{self, entry_sql, fixture_json, isolation_spec, psql_scripts};
use shared::link::{decode, encode, LinkError, View};
use shared::scenarios::{self, BuiltIn};
use shared::schedule::{ProgramSpec, ScheduleFile};
use shared::{engine, explorer, Defence, Outcome, Schedule};

fn run(schedule: &Schedule) -> Outcome {
    assess(
        schedule,
        engine::simulate(schedule).expect("a feasible order"),
    )
}

/// The built-in's own order if it can run, else the first order the explorer finds.
fn runnable(builtin: &BuiltIn) -> Schedule {
    let schedule = builtin.schedule();
    if engine::simulate(&schedule).is_ok() {
        return schedule;
    }
    let (orders, _) = explorer::orders(&schedule, 1);
    schedule.with_order(orders[0].clone())
}

fn schedule(json: &str) -> Schedule {
    Schedule::parse_json(json).unwrap_or_else(|e| panic!("test schedule: {e}"))
}

const BOTH_READ_FIRST: &str = r#"{ "version": 1, "name": "both read first",
  "scenario": { "seats": [ { "id": "A7" } ] },
  "actors": { "adam": { "defence": "check_then_act" }, "omar": { "defence": "check_then_act" } },
  "order": ["adam", "omar", "adam", "omar"] }"#;

const OMAR_READS_LATE: &str = r#"{ "version": 1, "name": "omar reads late",
  "scenario": { "seats": [ { "id": "A7" } ] },
  "actors": { "adam": { "defence": "check_then_act" }, "omar": { "defence": "check_then_act" } },
  "order": ["adam", "adam", "omar", "omar"] }"#;

// ---- links ----

#[test]
fn a_builtin_with_an_order_and_a_step_is_a_link_of_a_few_dozen_characters() {
    let b = scenarios::get("ch4-check_then_act").expect("built-in");
    let s = b.schedule();
    let view = View::of(4, b.id, None, &s, 4);
    let token = encode(&view);
    assert_eq!(token, "1.4.ch4-check_then_act.0101.4");
    assert!(token
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-._".contains(c)));
    assert_eq!(decode(&token), Ok(view));
}

#[test]
fn every_builtin_round_trips_through_its_link_with_every_defence() {
    for b in scenarios::all() {
        let mut picks: Vec<Option<Defence>> = vec![None];
        if b.file
            .actors
            .values()
            .any(|p| matches!(p, ProgramSpec::Defence { .. }))
        {
            let kind = b.schedule().scenario().kind;
            picks.extend(Defence::ALL.into_iter().filter(|d| d.fits(kind)).map(Some));
        }
        for defence in picks {
            let base = Schedule::parse(b.file_with_defence(defence)).expect("valid");
            let (orders, _) = explorer::orders(&base, 3);
            for order in orders {
                let s = base.with_order(order);
                let view = View::of(b.chapter, b.id, defence, &s, s.order().len() / 2);
                assert_eq!(view.custom, None, "{} {defence:?}: stored whole", b.id);
                let token = encode(&view);
                assert!(token.len() < 80, "{}: {token}", b.id);
                let back = decode(&token).unwrap_or_else(|e| panic!("{}: {e}", b.id));
                assert_eq!(back, view, "{}", b.id);
                let reopened = back.schedule().expect("valid");
                assert_eq!(reopened.order(), s.order(), "{}", b.id);
                assert_eq!(reopened.actors(), s.actors(), "{}", b.id);
            }
        }
    }
}

#[test]
fn a_sandbox_schedule_travels_whole_in_its_link() {
    let s = schedule(
        r#"{ "version": 1, "name": "two seats, three buyers",
  "scenario": { "seats": [ { "id": "B1" }, { "id": "B2", "status": "HELD", "holder": "zoe", "until": 3 } ] },
  "actors": { "adam": { "defence": "atomic_update", "seats": ["B2"] },
              "omar": [ { "op": "begin", "isolation": "serializable" }, { "op": "read", "seats": ["B1", "B2"] },
                        { "op": "write", "seats": ["B2"], "status": "BOOKED" }, { "op": "commit" } ],
              "clock": [ { "op": "advance", "minutes": 4 } ] },
  "order": ["omar", "clock", "adam", "omar", "omar", "omar"] }"#,
    );
    let view = View::of(5, "ch5-three-buyers", None, &s, 2);
    assert!(view.custom.is_some());
    let token = encode(&view);
    assert!(
        token.starts_with("1.5.ch5-three-buyers.210222.2.."),
        "{token}"
    );
    let back = decode(&token).expect("a valid link");
    assert_eq!(back, view);
    let reopened = back.schedule().expect("valid");
    assert_eq!(reopened.scenario(), s.scenario());
    assert_eq!(reopened.actors(), s.actors());
    assert_eq!(reopened.order(), s.order());
}

proptest! {
    #[test]
    fn any_runnable_order_of_any_builtin_round_trips(pick in 0usize..1000, which in 0usize..100_000, step in 0usize..1000) {
        let all = scenarios::all();
        let b = &all[pick % all.len()];
        let base = b.schedule();
        let (orders, _) = explorer::orders(&base, 20_000);
        let s = base.with_order(orders[which % orders.len()].clone());
        let view = View::of(b.chapter, b.id, None, &s, step % (s.order().len() + 1));
        prop_assert_eq!(decode(&encode(&view)), Ok(view));
    }

    #[test]
    fn a_link_with_an_order_longer_than_the_programs_is_refused(extra in 1usize..4, actor in 0usize..2) {
        let order = format!("0101{}", actor.to_string().repeat(extra));
        let token = format!("1.4.ch4-check_then_act.{order}.0");
        let err = decode(&token).expect_err("too many entries");
        prop_assert!(matches!(err, LinkError::Schedule(_)), "{:?}", err);
        prop_assert!(err.to_string().contains("has only 2 operations"), "{}", err);
    }

    #[test]
    fn no_text_makes_decoding_panic(text in "\\PC{0,60}") {
        let _ = decode(&text);
        let _ = decode(&format!("1.4.{text}"));
    }
}

#[test]
fn each_bad_link_says_what_is_wrong_and_what_to_do() {
    let cases: &[(&str, &str)] = &[
        ("", "not a Last Seat link"),
        ("hello", "not a Last Seat link"),
        (
            "2.4.ch4-check_then_act.0101.4",
            "made by a newer version of Last Seat",
        ),
        ("1.4.ch4-check_then_act", "cut short"),
        (
            "1.4.ch4-check_then_act.0101.4.x.y.innodb.z",
            "fields this format does not know",
        ),
        (
            "1.4.ch4-check_then_act.0101.4...oracle",
            "races on `oracle`, which this page does not know",
        ),
        ("1.9.ch4-check_then_act.0101.4", "the chapters are 1 to 6"),
        ("1.x.ch4-check_then_act.0101.4", "the chapters are 1 to 6"),
        (
            "1.4.x.0101.4",
            "names scenario `x`, which does not exist: open the chapter list",
        ),
        (
            "1.2.ch4-check_then_act.0101.4",
            "belongs to chapter 4: open chapter 4",
        ),
        (
            "1.4.ch4-check_then_act.0101.4.optimism",
            "defence `optimism`, which does not exist",
        ),
        ("1.4.ch4-check_then_act.01#1.4", "not an actor"),
        (
            "1.4.ch4-check_then_act.0191.4",
            "names actor number 9, but the schedule has 2 actors",
        ),
        (
            "1.4.ch4-check_then_act.0101.x",
            "playhead \"x\" is not a number",
        ),
        (
            "1.4.ch4-check_then_act.0101.5",
            "the order has only 4 entries",
        ),
        ("1.4.ch4-check_then_act.0101.4..!!", "not base64url"),
        ("1.4.ch4-check_then_act.0101.4..e30", "cannot be read"),
        // lock_row: omar's write while his lock still waits for adam.
        (
            "1.4.ch4-check_then_act.001111.0.lock_row",
            "still waiting for adam",
        ),
    ];
    for (token, words) in cases {
        let err = decode(token).expect_err(token);
        let text = err.to_string();
        assert!(text.contains(words), "{token}: {text}");
        assert!(text.contains(':'), "{token}: no way out in {text}");
    }
}

#[test]
fn a_token_pasted_with_spaces_around_it_still_opens() {
    assert!(decode("  1.4.ch4-check_then_act.0101.4\n").is_ok());
}

// ---- exports ----

#[test]
fn a_counters_fixture_states_each_rows_value_at_the_end_and_a_wrong_one_fails() {
    for id in [
        "shapes-balance",
        "shapes-general_admission",
        "shapes-coupon",
    ] {
        let s = scenarios::get(id).expect("built-in").schedule();
        let outcome = run(&s);
        let json = fixture_json(&s, &outcome);
        let fixture = Schedule::parse_json(&json).unwrap_or_else(|e| panic!("{id}: {e}\n{json}"));
        let finals = fixture
            .expect()
            .and_then(|e| e.final_seats.clone())
            .expect("final");
        for (row, f) in &finals {
            assert_eq!(f.value, outcome.seats[row].value, "{id}: {row}");
            assert!(f.value.is_some(), "{id}: {row} ends with a value");
        }
        assert!(json.contains("\"value\""), "{json}");
        assert_eq!(
            check_expect(&fixture, &outcome),
            Vec::<String>::new(),
            "{id}"
        );
        // The same fixture with one value off by one no longer holds.
        let mut file: ScheduleFile = serde_json::from_str(&json).expect("its file");
        let expect = file.expect.as_mut().expect("expect");
        let (row, f) = expect
            .final_seats
            .as_mut()
            .unwrap()
            .iter_mut()
            .next()
            .unwrap();
        let row = row.clone();
        f.value = f.value.map(|v| v + 1);
        let wrong = Schedule::parse(file).expect("still valid");
        let failures = check_expect(&wrong, &outcome);
        assert!(
            failures.len() == 1 && failures[0].contains(&format!("final.{row}.value")),
            "{id}: {failures:?}"
        );
    }
}

#[test]
fn every_builtin_exports_a_fixture_that_meets_its_expect() {
    for b in scenarios::all() {
        let (orders, _) = explorer::orders(&b.schedule(), 20_000);
        for order in orders.into_iter().step_by(7) {
            let s = b.schedule().with_order(order);
            let outcome = run(&s);
            let json = fixture_json(&s, &outcome);
            let fixture =
                Schedule::parse_json(&json).unwrap_or_else(|e| panic!("{}: {e}\n{json}", b.id));
            assert!(fixture.expect().is_some_and(|e| e.steps.is_some()));
            assert_eq!(
                check_expect(&fixture, &outcome),
                Vec::<String>::new(),
                "{}",
                b.id
            );
            // Replayed from the file alone, it meets its expect again.
            let replayed = run(&fixture);
            assert_eq!(
                check_expect(&fixture, &replayed),
                Vec::<String>::new(),
                "{}",
                b.id
            );
        }
    }
}

#[test]
fn a_fixture_exported_half_way_holds_the_entries_that_ran() {
    let s = schedule(BOTH_READ_FIRST);
    let half = s.with_order(s.order()[..2].to_vec());
    let fixture = Schedule::parse_json(&fixture_json(&s, &run(&half))).expect("valid");
    assert_eq!(fixture.order().len(), 2);
    assert_eq!(check_expect(&fixture, &run(&fixture)), Vec::<String>::new());
}

#[test]
fn a_fixture_for_another_order_fails_its_expect() {
    let late = schedule(OMAR_READS_LATE);
    let fixture = Schedule::parse_json(&fixture_json(&late, &run(&late))).expect("valid");
    let early = schedule(BOTH_READ_FIRST);
    assert!(!check_expect(&fixture, &run(&early)).is_empty());
}

#[test]
fn each_buyer_script_carries_exactly_the_sql_its_entries_sent_in_order() {
    for b in scenarios::all() {
        let s = runnable(&b);
        let outcome = run(&s);
        let scripts = psql_scripts(&s, &outcome);
        assert_eq!(scripts[0].0, export::setup_label(&s));
        assert_eq!(scripts[0].0, "setup");
        assert!(scripts[0].1.contains("create schema \"last_seat\""));
        // The schema's statements, without the migration's comments.
        for line in shared::sql::ddl_of(&s).lines() {
            assert!(line.trim_start().starts_with("--") || scripts[0].1.contains(line));
        }
        let sql = entry_sql(&s, &outcome);
        common::scripts::carry_their_sql(b.id, &s, &scripts, &sql);
    }
}

#[test]
fn the_psql_steps_say_what_came_before_them() {
    let s = schedule(BOTH_READ_FIRST);
    let scripts = psql_scripts(&s, &run(&s));
    let adam = &scripts.iter().find(|(l, _)| l == "adam").expect("adam").1;
    assert!(
        adam.contains("-- step 3 of 4 (after omar's read): adam writes A7 as BOOKED"),
        "{adam}"
    );
    assert!(adam.contains("-- PostgreSQL answers: UPDATE 1"), "{adam}");
    let late = schedule(OMAR_READS_LATE);
    let scripts = psql_scripts(&late, &run(&late));
    let omar = &scripts.iter().find(|(l, _)| l == "omar").expect("omar").1;
    assert!(
        omar.contains("-- Not sent: omar remembers A7 as taken"),
        "{omar}"
    );
}

#[test]
fn the_setup_script_never_takes_a_buyers_name() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
  "actors": { "setup": { "defence": "atomic_update" }, "omar": { "defence": "atomic_update" } } }"#,
    );
    let scripts = psql_scripts(&s, &run(&s));
    let labels: Vec<&str> = scripts.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(labels, ["_setup", "omar", "setup"]);
}

#[test]
fn the_isolation_spec_names_every_sent_entry_once_and_no_block_holds_a_brace() {
    for b in scenarios::all() {
        let s = runnable(&b);
        let outcome = run(&s);
        let (spec, expected) = isolation_spec(&s, &outcome);
        // The spec's lexer ends a block at the first closing brace: none may be inside one.
        let mut depth = 0i32;
        for c in spec.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            assert!((0..=1).contains(&depth), "{}: nested braces", b.id);
        }
        let permutation = spec.split("\npermutation\n").nth(1).expect("a permutation");
        let steps: Vec<&str> = permutation
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect();
        let sent = entry_sql(&s, &outcome)
            .iter()
            .filter(|x| x.is_some())
            .count();
        assert_eq!(steps.len(), sent, "{}", b.id);
        assert!(expected.starts_with("Parsed test spec with "), "{}", b.id);
        assert!(
            expected.contains(&format!("starting permutation: {}\n", steps.join(" "))),
            "{}",
            b.id
        );
    }
}

#[test]
fn a_blocked_step_is_printed_waiting_then_completed() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
  "actors": { "adam": { "defence": "lock_row" }, "omar": { "defence": "lock_row" } },
  "order": ["adam", "adam", "omar", "omar", "adam", "adam", "omar", "omar"] }"#,
    );
    let (_, expected) = isolation_spec(&s, &run(&s));
    let waiting = expected
        .find("step omar_lock: select")
        .expect("omar's lock");
    let released = expected
        .find("step adam_commit: commit")
        .expect("adam's commit");
    let completed = expected
        .find("step omar_lock: <... completed>")
        .expect("completed");
    assert!(waiting < released && released < completed, "{expected}");
    assert!(expected[waiting..released].contains("<waiting ...>"));
    assert!(
        expected[completed..].contains("A7     |BOOKED|adam  |          \n(1 row)"),
        "{expected}"
    );
    assert!(
        !expected.contains("omar_write"),
        "a skipped write is not sent"
    );
}

// ---- explanations ----

#[test]
fn both_reading_first_ends_in_two_people_sold_the_seat() {
    let s = schedule(BOTH_READ_FIRST);
    let outcome = run(&s);
    assert_eq!(
        verdict_story(&s, &outcome),
        [
            "Adam read A7: AVAILABLE",
            "Omar read A7: AVAILABLE",
            "Adam booked A7 and was told they got it",
            "Omar booked A7 too and was told the same",
            "⇒ two people were sold A7",
        ]
    );
    assert_eq!(
        headline(&s, &outcome),
        "Double booking: A7 sold to Adam and Omar"
    );
}

#[test]
fn omar_reading_after_adams_write_is_told_sold_out() {
    let s = schedule(OMAR_READS_LATE);
    let outcome = run(&s);
    let story = verdict_story(&s, &outcome);
    assert_eq!(
        story,
        [
            "Adam read A7: AVAILABLE",
            "Adam booked A7 and was told they got it",
            "Omar read A7: BOOKED",
            "Omar skipped the write and was told A7 is sold out",
            "⇒ A7 was sold once, to Adam; Omar was told it was sold out",
        ]
    );
    assert_eq!(
        headline(&s, &outcome),
        "Sold once: A7 to Adam; Omar was told it was sold out"
    );
}

#[test]
fn a_wait_is_told_before_the_commit_that_ends_it() {
    let s = schedule(
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] },
  "actors": { "adam": { "defence": "transaction" }, "omar": { "defence": "transaction" } },
  "order": ["adam", "omar", "adam", "omar", "adam", "omar", "adam", "omar"] }"#,
    );
    let story = verdict_story(&s, &run(&s));
    let at = |line: &str| {
        story
            .iter()
            .position(|l| l == line)
            .unwrap_or_else(|| panic!("{line:?} not in {story:#?}"))
    };
    assert!(at("Omar's write waits for Adam") < at("Adam committed and was told they got A7"));
    assert!(at("Adam committed and was told they got A7") < at("Then Omar booked A7"));
    assert_eq!(
        story.last().map(String::as_str),
        Some("⇒ two people were sold A7")
    );
}

#[test]
fn every_order_of_every_builtin_has_a_story_and_a_headline() {
    for b in scenarios::all() {
        let (orders, _) = explorer::orders(&b.schedule(), 20_000);
        for order in orders {
            let s = b.schedule().with_order(order);
            let outcome = run(&s);
            let story = verdict_story(&s, &outcome);
            let line = headline(&s, &outcome);
            assert!(!story.is_empty() && !line.is_empty(), "{}", b.id);
            assert!(story.iter().all(|l| l.len() <= 120), "{}: {story:#?}", b.id);
            if let Some(c) = shared::counter_words::CounterWords::of(s.scenario()) {
                // A counter's verdict speaks its shape (`counter_words.rs`'s own test).
                if outcome.verdict.double_booked {
                    let told = outcome.seats.values().map(|r| r.told.len()).max();
                    let name = c.too_many(told.unwrap_or(2));
                    assert!(line.starts_with(&name), "{}: {line}", b.id);
                    assert!(story.iter().any(|l| l.starts_with("⇒ ")), "{}", b.id);
                }
            } else if s.scenario().kind.is_username() {
                // A username's verdict speaks of accounts (`username_words.rs`'s own test).
                assert_eq!(
                    line.starts_with("Created"),
                    outcome.verdict.double_booked,
                    "{}: {line}",
                    b.id
                );
                assert!(
                    story.iter().any(|l| l.starts_with("⇒ users has ")),
                    "{}",
                    b.id
                );
            } else if outcome.verdict.double_booked {
                assert!(line.starts_with("Double booking:"), "{}: {line}", b.id);
                let consequence = |l: &String| {
                    l.starts_with("⇒ ") && (l.contains("people") || l.contains("tickets"))
                };
                assert!(story.iter().any(consequence), "{}", b.id);
            }
        }
    }
    let empty = schedule(BOTH_READ_FIRST).with_order(Vec::new());
    assert_eq!(headline(&empty, &run(&empty)), "Nothing has run yet");
}

// ---- goals ----

/// Per built-in: whether its own order meets the goal (`None`: that order cannot run), and
/// whether any order does.
const GOALS: &[(&str, Option<bool>, bool)] = &[
    ("ch1-second-request-waits", Some(true), true),
    ("ch1-expired-hold-is-free", Some(true), true),
    ("ch1-confirm-three-answers", Some(false), true),
    ("ch1-family-nowait", Some(true), true),
    ("ch1-unique-safety-net", Some(true), true),
    ("ch2-same-seat-twice", Some(false), false),
    ("ch2-dead-hold-payment", Some(false), false),
    ("ch2-expiry_only", Some(false), false),
    ("ch2-release_on_exit", Some(true), true),
    ("ch2-redis-update", Some(true), true),
    ("ch2-redis-unique", Some(false), false),
    ("ch2-redis-expiry_only", Some(false), false),
    ("ch2-redis-release_on_exit", Some(true), true),
    ("ch3-three-arrivals", Some(false), false),
    ("ch3-retry-never-extends", Some(false), false),
    ("ch3-now-transaction", Some(true), true),
    ("ch3-now-evaluation", Some(true), true),
    ("ch4-check_then_act", Some(true), true),
    ("ch4-transaction", Some(true), true),
    ("ch4-repeatable_read", Some(false), false),
    ("ch4-serializable", Some(false), false),
    ("ch4-atomic_update", Some(false), false),
    ("ch4-lock_row", Some(false), false),
    ("ch4-unique_constraint", Some(false), false),
    ("ch4-serializable-retry", Some(true), true),
    ("ch4-late-payment", Some(false), false),
    ("ch5-three-buyers", Some(true), true),
    ("shapes-general_admission", Some(true), true),
    ("shapes-balance", Some(true), true),
    ("shapes-rate_limit", Some(true), true),
    ("shapes-coupon", Some(true), true),
    ("shapes-abandoned-checkout", Some(true), true),
    ("shapes-username", Some(true), true),
];

#[test]
fn every_builtin_meets_its_goal_exactly_where_the_table_says() {
    let all = scenarios::all();
    assert_eq!(all.len(), GOALS.len(), "a built-in is missing from GOALS");
    for (id, default, achievable) in GOALS {
        let b = scenarios::get(id).expect("built-in");
        let s = b.schedule();
        let own = engine::simulate(&s)
            .ok()
            .map(|t| b.goal_met(&s, &assess(&s, t)));
        assert_eq!(own, *default, "{id}: its own order");
        let (orders, complete) = explorer::orders(&s, 20_000);
        assert!(complete, "{id}");
        let met = orders.into_iter().find(|o| {
            let s = s.with_order(o.clone());
            b.goal_met(&s, &run(&s))
        });
        assert_eq!(met.is_some(), *achievable, "{id}: some order meets it");
    }
}

#[test]
fn a_watch_goal_is_met_only_once_the_run_has_reached_its_end() {
    let b = scenarios::get("ch1-second-request-waits").expect("built-in");
    let s = b.schedule();
    assert!(b.goal_met(&s, &run(&s)));
    // Up to the second request's wait, before the commit that ends it.
    let cut = s.with_order(s.order()[..3].to_vec());
    assert!(!b.goal_met(&cut, &run(&cut)));
}

#[test]
fn switching_the_defence_keeps_the_goal_of_the_chapter() {
    let b = scenarios::get("ch4-check_then_act").expect("built-in");
    let file: ScheduleFile = b.file_with_defence(Some(Defence::AtomicUpdate));
    let s = Schedule::parse(file).expect("valid");
    assert!(!b.goal_met(&s, &run(&s)));
}

/// The page reads the real run's steps with `Op::from_json`: every operation of every built-in,
/// under every defence, reads back as itself from the JSON the server writes of it.
#[test]
fn every_operation_reads_back_from_the_json_a_real_run_carries() {
    let mut ops = 0;
    for b in scenarios::all() {
        let kind = b.schedule().scenario().kind;
        let fitting = Defence::ALL.into_iter().filter(|d| d.fits(kind)).map(Some);
        for defence in std::iter::once(None).chain(fitting) {
            let schedule = Schedule::parse(b.file_with_defence(defence)).expect("valid");
            for actor in schedule.actors() {
                for op in &actor.program {
                    let json = serde_json::to_value(op).expect("ops serialise");
                    assert_eq!(
                        shared::schedule::Op::from_json(&json).as_ref(),
                        Some(op),
                        "{json}"
                    );
                    ops += 1;
                }
            }
        }
    }
    assert!(ops > 500, "only {ops} operations were read back");
    assert_eq!(
        shared::schedule::Op::from_json(&serde_json::json!({"op": "fly"})),
        None
    );
}

// ---- counters' exports ----

/// Our words in a script or spec: its comment lines (the migration's own comments left out, as
/// they describe the seats' tables too).
fn comment_lines(text: &str) -> Vec<&str> {
    let ddl: Vec<&str> = shared::sql::SCHEMA_DDL
        .lines()
        .chain(shared::sql::innodb::SCHEMA_DDL.lines())
        .collect();
    text.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("--") || l.starts_with('#'))
        .filter(|l| !ddl.iter().any(|d| d.trim() == *l))
        .collect()
}

#[test]
fn every_counter_export_seeds_its_rows_and_speaks_its_shape() {
    use shared::counter_words::CounterWords;
    use shared::export::mysql_scripts;
    use shared::schedule::Database;
    let mut checked = 0;
    for case in common::counters::cases(2) {
        for s in &case.schedules {
            let outcome = run(s);
            let scenario = s.scenario();
            let c = CounterWords::of(scenario).expect("a counter");
            let table = shared::sql::counter::table(scenario.kind).expect("a table");
            let at = &case.label;
            let mut texts: Vec<(String, String)> = match s.database() {
                Database::Postgresql => {
                    let (spec, expected) = isolation_spec(s, &outcome);
                    let mut t = psql_scripts(s, &outcome);
                    let setup = &t[0].1;
                    assert!(
                        setup.contains(&format!("insert into {}", table.name)),
                        "{at}"
                    );
                    assert!(!setup.contains("insert into show_seats"), "{at}: {setup}");
                    assert!(
                        spec.contains(&format!("insert into {}", table.name)),
                        "{at}"
                    );
                    t.push(("spec".to_string(), spec));
                    t.push(("expected".to_string(), expected));
                    t
                }
                Database::Innodb => {
                    let t = mysql_scripts(s, &outcome);
                    assert!(
                        t[0].1.contains(&format!("insert into {}", table.name)),
                        "{at}"
                    );
                    t
                }
            };
            for row in &scenario.seats {
                let said = c.with_value(&row.id, row.value.expect("a value"));
                assert!(texts[0].1.contains(&said), "{at}: the setup says {said:?}");
            }
            for (name, text) in texts.drain(..) {
                for line in comment_lines(&text) {
                    let lower = line.replace("Last Seat", "").replace("last_seat", "");
                    let lower = lower.to_lowercase();
                    let seat = [
                        "seat",
                        "booked",
                        "as available",
                        "as held",
                        "booking",
                        "hold",
                    ]
                    .iter()
                    .find(|w| lower.contains(*w));
                    assert!(seat.is_none(), "{at}, {name}: {line:?} speaks of {seat:?}");
                }
            }
            // The fixture keeps the kind, the take and the values, and meets its expect.
            let fixture = Schedule::parse_json(&fixture_json(s, &outcome)).expect("parses");
            assert_eq!(fixture.scenario().kind, scenario.kind, "{at}");
            assert_eq!(fixture.scenario().take, scenario.take, "{at}");
            assert_eq!(fixture.scenario().seats, scenario.seats, "{at}");
            let again = run(&fixture);
            assert!(check_expect(&fixture, &again).is_empty(), "{at}");
            checked += 1;
        }
    }
    assert!(checked > 200, "{checked}");
}
