//! Every sentence about a username speaks of accounts and names, never of seats, and says what
//! the model says: over every order of the username built-in (`shapes-username`) under every
//! defence that fits it (an even sample of a `_retry` defence's thousands), with the name free
//! and taken, on both databases, at every step. The
//! phone and the reason line name what each check found (free or taken, with the count), an
//! account created, a claim made or refused with its error; the verdict says "created twice"
//! exactly where the model's `double_booked` does, and the consequence how `users` and
//! `usernames` end; the picture counts the accounts the committed tables hold.

#[allow(dead_code)]
mod common;

use common::speak::machine_speak;
use shared::explorer;
use shared::outcome::{Outcome, StepResult};
use shared::scenarios;
use shared::schedule::{Condition, Database, Op, Shape};
use shared::username_words::UsernameWords;
use shared::view;
use shared::{explain, Defence, Schedule};

/// A seat's words in a sentence about a username, if it has any (whole words: "holds" is a
/// seat's word, "household" would not be).
fn seat_speak(line: &str) -> Option<String> {
    let lower = line.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    for w in [
        "seat", "seats", "booked", "booking", "bookings", "hold", "holds", "held", "ticket",
        "tickets", "sold", "buyer", "buyers",
    ] {
        if words.contains(&w) {
            return Some(format!("a seat's word {w:?}"));
        }
    }
    for w in ["AVAILABLE", "HELD", "BOOKED"] {
        if line.contains(w) {
            return Some(format!("a seat's status {w}"));
        }
    }
    None
}

/// Why `line` is not a complete sentence, if it is not.
fn incomplete(line: &str) -> Option<&'static str> {
    let t = line.trim_end_matches('.');
    if t.trim().is_empty() {
        return Some("empty");
    }
    if t.ends_with([':', ',', ';', ' ', '(']) {
        return Some("ends half-way");
    }
    for bad in ["  ", " ,", " :", " ;", "()", "{", "}"] {
        if t.contains(bad) {
            return Some("a gap where a word is missing");
        }
    }
    None
}

/// How many orders of a `_retry` defence are checked, evenly spread over all of them.
const RETRY_SAMPLE: usize = 400;

/// The username built-in with `defence`, the name free or taken, on `database`, in every order
/// (a `_retry` defence's in an even sample).
fn schedules(defence: Defence, taken: bool, database: Database) -> Vec<Schedule> {
    let b = scenarios::get("shapes-username").expect("the username built-in");
    let mut file = b.file_with_defence(Some(defence));
    file.engine = database;
    file.scenario.seats[0].value = Some(i64::from(taken));
    let base = view::playable(&Schedule::parse(file).expect("a fitting defence is valid"));
    let (orders, complete) = explorer::orders(&base, 20_000);
    assert!(
        complete,
        "{defence} taken={taken} on {database:?}: too many orders"
    );
    // A `_retry` defence's orders are thousands, most of them the first attempt's orders again
    // with the retry placed differently: an even sample of them.
    let step = match defence.retried() {
        Some(_) => orders.len().div_ceil(RETRY_SAMPLE).max(1),
        None => 1,
    };
    std::iter::once(base.clone())
        .chain(orders.into_iter().step_by(step).map(|o| base.with_order(o)))
        .collect()
}

/// Tallies of what was checked.
#[derive(Default)]
struct Checked {
    schedules: usize,
    sentences: usize,
    phones: usize,
    reasons: usize,
    verdicts: usize,
    twice: usize,
}

/// The last answer `actor`'s application took in among the first `step` entries (not a step
/// its condition skipped), and whether it was told the account is theirs.
fn last_answer<'o>(
    schedule: &Schedule,
    outcome: &'o Outcome,
    actor: &str,
    step: usize,
) -> Option<&'o shared::outcome::Entry> {
    let a = schedule.actor_index(actor)?;
    outcome.entries[..step]
        .iter()
        .filter(|e| e.trace.actor == actor)
        .filter(|e| e.trace.completed_after.is_some_and(|d| d < step))
        .filter(|e| {
            let unmet = schedule.actors()[a].condition(e.trace.op_index) != Condition::Always;
            !(unmet && e.trace.result == Some(StepResult::Skipped))
        })
        .max_by_key(|e| e.trace.completed_after)
}

/// The phone of `actor` at `step` says what the model says it was told.
fn check_phone(
    schedule: &Schedule,
    outcome: &Outcome,
    u: &UsernameWords,
    (actor, text): (&str, &str),
    step: usize,
    bad: &mut Vec<String>,
) -> bool {
    let told = view::told_at(outcome, step)
        .get(u.name())
        .is_some_and(|t| t.iter().any(|a| a == actor));
    if told {
        return text == "Account batman created" || push(bad, text, "is not the account created");
    }
    let waiting = outcome.entries[..step]
        .iter()
        .any(|e| e.trace.actor == actor && e.trace.completed_after.is_none_or(|d| d >= step));
    if waiting {
        return text.starts_with("Working… waiting for") || push(bad, text, "does not wait");
    }
    let Some(e) = last_answer(schedule, outcome, actor, step) else {
        return text == "About to sign up as batman" || push(bad, text, "is not about to sign up");
    };
    let ok = match (&e.op, &e.trace.result) {
        (Op::Read { .. } | Op::Lock { .. }, Some(StepResult::Ok { .. })) => {
            let free = e.trace.seen.is_empty();
            text.ends_with(if free { "is free" } else { "is taken" })
        }
        (Op::Write { .. } | Op::Book { .. } | Op::Claim { .. }, Some(StepResult::Skipped)) => {
            text.contains("is taken: pick another name")
        }
        (Op::Claim { .. }, Some(StepResult::Ok { rows: Some(0) })) => {
            text.contains("is taken: someone claimed it first")
        }
        (_, Some(StepResult::Error { code, .. })) if code.is_duplicate() => {
            text.contains("is taken") && text.contains(code.code())
        }
        (_, Some(StepResult::Error { code, .. })) => {
            text.contains(code.code()) && text.ends_with("try again")
        }
        _ => return false,
    };
    ok || push(
        bad,
        text,
        &format!("does not say what {} answered", e.op.name()),
    )
}

fn push(bad: &mut Vec<String>, line: &str, why: &str) -> bool {
    bad.push(format!("{line:?} {why}"));
    false
}

/// The reason line of entry `k` names what every operation that completed in it did.
fn check_reason(outcome: &Outcome, u: &UsernameWords, k: usize, bad: &mut Vec<String>) -> usize {
    let line = &outcome.entries[k].trace.reason;
    let mut checked = 0;
    for e in outcome
        .entries
        .iter()
        .filter(|e| e.trace.completed_after == Some(k))
    {
        let who = view::display_name(&e.trace.actor);
        let says: Vec<String> = match (&e.op, &e.trace.result) {
            (Op::Read { .. } | Op::Lock { .. }, Some(StepResult::Ok { .. })) => {
                vec![u.found(e.trace.seen.len())]
            }
            (Op::Write { .. }, Some(StepResult::Ok { rows: Some(1) })) => {
                vec!["creates an account named batman".to_string()]
            }
            (Op::Book { .. } | Op::Claim { .. }, Some(StepResult::Ok { rows: Some(1) })) => {
                vec!["claims batman in usernames".to_string()]
            }
            (Op::Claim { .. }, Some(StepResult::Ok { rows: Some(0) })) => {
                vec!["batman already claimed in usernames".to_string()]
            }
            (_, Some(StepResult::Error { code, .. })) if code.is_duplicate() => vec![
                "batman is already in usernames".to_string(),
                format!("({code})"),
            ],
            (_, Some(StepResult::Error { code, .. })) => vec![format!("({code})")],
            _ => continue,
        };
        checked += 1;
        for s in says {
            if !line.contains(&s) || !line.contains(&who) {
                bad.push(format!("{line:?} does not say {s:?} of {who}"));
            }
        }
    }
    checked
}

/// Every sentence of `schedule` at every step; the verdict panel at every step too when `panel`
/// (it runs the model once per step, so only for the first orders of each case).
fn check_schedule(
    label: &str,
    schedule: &Schedule,
    panel: bool,
    bad: &mut Vec<String>,
    n: &mut Checked,
) {
    let Ok(outcome) = view::run(schedule) else {
        return;
    };
    let u = UsernameWords::of(schedule.scenario()).expect("a username");
    n.schedules += 1;
    let deciding = if panel {
        view::deciding_step(schedule)
    } else {
        0
    };
    let mut say = |line: &str, bad: &mut Vec<String>| {
        n.sentences += 1;
        let why = seat_speak(line)
            .or_else(|| machine_speak(line))
            .or_else(|| incomplete(line).map(str::to_string));
        if let Some(why) = why {
            bad.push(format!("{label}: {line:?}: {why}"));
        }
    };
    for step in 0..=outcome.entries.len() {
        for (name, phone) in view::phones(schedule, &outcome, step) {
            say(&phone.text, bad);
            let mut why = Vec::new();
            if check_phone(schedule, &outcome, &u, (&name, &phone.text), step, &mut why) {
                n.phones += 1;
            }
            bad.extend(
                why.into_iter()
                    .map(|w| format!("{label} at {step}: {name}: {w}")),
            );
        }
        for (_, memory) in view::memories(schedule, &outcome, step) {
            let (remembers, told) = memory.lines(schedule.scenario());
            say(&remembers, bad);
            say(&told, bad);
        }
        if panel {
            let v = view::verdict_at(schedule, step, deciding);
            say(&v.headline, bad);
            for line in &v.story {
                say(line, bad);
            }
        }
        let picture = view::name_at(schedule, &outcome, step).expect("a username's picture");
        say(&picture.sentence(), bad);
        let committed = view::tables_at(&outcome, step).seats[0].value.unwrap_or(0);
        if picture.accounts != committed {
            bad.push(format!(
                "{label} at {step}: the picture counts {} accounts, the table {committed}",
                picture.accounts
            ));
        }
        if step > 0 {
            say(&outcome.entries[step - 1].trace.reason, bad);
            let mut why = Vec::new();
            n.reasons += check_reason(&outcome, &u, step - 1, &mut why);
            bad.extend(why.into_iter().map(|w| format!("{label} at {step}: {w}")));
        }
    }
    // The verdict: "created twice" exactly where the model double-books, and the consequence
    // says how the tables end.
    n.verdicts += 1;
    let headline = explain::headline(schedule, &outcome);
    let twice = headline.starts_with("Created");
    if twice != outcome.verdict.double_booked {
        bad.push(format!(
            "{label}: {headline:?} but double_booked is {}",
            outcome.verdict.double_booked
        ));
    }
    n.twice += usize::from(twice);
    let end = outcome.final_tables();
    let ends = u.ends(
        end.seats[0].value.unwrap_or(0),
        end.bookings.first().map(|b| b.holder.as_str()),
    );
    say(&headline, bad);
    let story = explain::verdict_story(schedule, &outcome);
    for line in &story {
        say(line, bad);
    }
    let tried = outcome
        .entries
        .iter()
        .any(|e| matches!(e.op, Op::Write { .. } | Op::Book { .. } | Op::Claim { .. }));
    if tried
        && !story
            .iter()
            .any(|l| l.starts_with('⇒') && l.contains(&ends))
    {
        bad.push(format!("{label}: no consequence says {ends:?}: {story:?}"));
    }
    let picture = view::name_at(schedule, &outcome, outcome.entries.len()).expect("a picture");
    if picture.twice() != outcome.verdict.double_booked {
        bad.push(format!(
            "{label}: the picture says {:?}",
            picture.state_line()
        ));
    }
}

#[test]
fn every_sentence_of_every_order_of_the_username_race_speaks_of_accounts_and_says_what_the_model_says(
) {
    let mut bad = Vec::new();
    let mut n = Checked::default();
    let mut labels = 0;
    let fitting: Vec<Defence> = Defence::ALL
        .into_iter()
        .filter(|d| d.fits(Shape::Username))
        .collect();
    assert!(fitting.len() >= 8, "{fitting:?}");
    for &d in &fitting {
        for taken in [false, true] {
            for database in Database::ALL {
                let label = format!("{d}, taken={taken}, {}", database.id());
                let all = schedules(d, taken, database);
                for (i, s) in all.iter().enumerate() {
                    check_schedule(&label, s, i < 8, &mut bad, &mut n);
                }
                for g in explorer::explore(&all[0], 20_000).groups {
                    labels += 1;
                    // The explorer writes a code as "got error 40001 (serialization failure)",
                    // its own rule (`explorer_matrix.rs`): here only the words are checked.
                    if let Some(why) = seat_speak(&g.stop) {
                        bad.push(format!("{label}: the explorer's {:?}: {why}", g.stop));
                    }
                }
            }
        }
    }
    bad.sort();
    bad.dedup();
    eprintln!(
        "checked {} schedules, {} sentences, {} phones, {} reason clauses, {} verdicts ({} created twice), {labels} explorer labels",
        n.schedules, n.sentences, n.phones, n.reasons, n.verdicts, n.twice
    );
    assert!(
        n.schedules > 3_000 && n.phones > 10_000 && n.reasons > 10_000 && n.twice > 200,
        "too few checked"
    );
    assert!(
        bad.is_empty(),
        "{} problems:\n{}",
        bad.len(),
        bad.iter().take(60).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// The brief's race: batman checked free by both, then created twice. Each line as a person
/// would say it.
#[test]
fn batman_checked_free_then_created_twice_reads_as_two_accounts_of_one_name() {
    let b = scenarios::get("shapes-username").expect("built-in");
    let schedule = view::playable(&b.schedule());
    let outcome = view::run(&schedule).expect("it runs");
    let reasons: Vec<&str> = outcome
        .entries
        .iter()
        .map(|e| e.trace.reason.as_str())
        .collect();
    assert_eq!(
        reasons,
        [
            "Adam checks batman in users: no account has it yet, so it looks free",
            "Omar checks batman in users: no account has it yet, so it looks free",
            "Adam creates an account named batman in users (nothing there refuses a second)",
            "Omar creates an account named batman in users (nothing there refuses a second)",
        ]
    );
    assert_eq!(
        view::phone(&schedule, &outcome, "omar", 2).text,
        "The name batman is free"
    );
    assert_eq!(
        view::phone(&schedule, &outcome, "omar", 4).text,
        "Account batman created"
    );
    assert_eq!(
        explain::headline(&schedule, &outcome),
        "Created twice: Adam and Omar both have an account named batman"
    );
    let story = explain::verdict_story(&schedule, &outcome);
    assert_eq!(
        story.last().map(String::as_str),
        Some("⇒ users has 2 accounts named batman, and usernames has no claim of it")
    );
    let picture = view::name_at(&schedule, &outcome, 4).expect("a picture");
    assert_eq!(picture.state_line(), "created twice");
    assert_eq!(picture.amount(), "2 accounts");
}

/// The claimed names' key: the second insert waits for the first one's commit and is refused;
/// ON CONFLICT DO NOTHING inserts nothing instead. The phone and the reason say so.
#[test]
fn the_second_claim_is_refused_by_the_key_or_inserts_nothing() {
    let run = |defence: &str, order: &str| {
        let s = Schedule::parse_json(&format!(
            r#"{{"version": 1, "name": "t", "scenario": {{"kind": "username", "seats": [{{"id": "batman"}}]}},
            "actors": {{"adam": {{"defence": "{defence}"}}, "omar": {{"defence": "{defence}"}}}},
            "order": {order}}}"#
        ))
        .expect("a schedule");
        let o = view::run(&s).expect("it runs");
        (s, o)
    };
    let (s, o) = run("unique_constraint", r#"["adam", "omar", "adam", "omar"]"#);
    assert_eq!(
        o.entries[3].trace.reason,
        "Omar is refused the insert: batman is already in usernames, whose key allows one (23505)"
    );
    assert_eq!(
        view::phone(&s, &o, "omar", 4).text,
        "The name batman is taken (23505, duplicate key): someone claimed it first"
    );
    assert_eq!(
        explain::headline(&s, &o),
        "Adam got batman; Omar was refused by the key of usernames (23505, duplicate key)"
    );
    let (s, o) = run("atomic_update", r#"["adam", "omar"]"#);
    assert_eq!(
        o.entries[1].trace.reason,
        "Omar finds batman already claimed in usernames: ON CONFLICT DO NOTHING inserts nothing"
    );
    assert_eq!(
        view::phone(&s, &o, "omar", 2).text,
        "The name batman is taken: someone claimed it first"
    );
}
