//! Every rejection names a field that exists in the file, in words for a person: valid files
//! (every file in `schedules/` and `shared/scenarios/`, and every built-in's exports) are
//! mutated at random, with a fixed seed, as a careless hand would (a key misspelt, a value one
//! letter off, a value of the wrong kind, a key deleted or added, the file wrapped in a list);
//! whatever is refused must name a path that reads back to a value of the mutated file (or the
//! file itself), speak no Rust, and suggest the word that was there where it suggests one.

mod mutate;
mod paths;

use serde_json::Value;
use shared::assess::assess;
use shared::export::fixture_json;
use shared::{engine, scenarios, Defence, Schedule, ScheduleError};

use mutate::{mutate, Expected, Rng};
use paths::resolve;

/// Every valid file: the ones on disk and the exports of every built-in (the file the page
/// loads, the file with each defence switched in, the sandbox's copy, the JSON fixture).
fn valid_files() -> Vec<(String, String)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut files = Vec::new();
    for dir in ["schedules", "shared/scenarios"] {
        let mut paths: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
            .expect("the folder exists")
            .map(|e| e.expect("readable").path())
            .collect();
        paths.sort();
        for p in paths {
            let text = std::fs::read_to_string(&p).expect("readable");
            files.push((p.display().to_string(), text));
        }
    }
    for b in scenarios::all() {
        for defence in [
            None,
            Some(Defence::LockRow),
            Some(Defence::HoldConfirm),
            Some(Defence::SerializableRetry),
        ] {
            // A counter takes only the defences that fit it (`Defence::fits`).
            if defence.is_some_and(|d| !d.fits(b.file.scenario.kind)) {
                continue;
            }
            let file = b.file_with_defence(defence);
            let name = format!("{} with {defence:?}", b.id);
            files.push((name.clone(), serde_json::to_string(&file).expect("writes")));
            let schedule = Schedule::parse(file).expect("a built-in parses");
            let text = serde_json::to_string_pretty(&schedule.to_file()).expect("writes");
            files.push((format!("{name}, as the sandbox shows it"), text));
            if let Ok(trace) = engine::simulate(&schedule) {
                let outcome = assess(&schedule, trace);
                files.push((
                    format!("{name}, exported"),
                    fixture_json(&schedule, &outcome),
                ));
            }
        }
    }
    files
}

#[test]
fn every_valid_file_still_parses() {
    for (name, text) in valid_files() {
        if let Err(e) = Schedule::parse_json(&text) {
            panic!("{name}: {e}");
        }
    }
}

/// Words no message for a person should use.
const RUST: [&str; 17] = [
    "enum", "struct", "i64", "i32", "u8", "u32", "u64", "usize", "untagged", "variant", "sequence",
    "map", "option", "serde", "invalid", "string", "integer",
];

/// The message without its quoted parts (which repeat what the file wrote).
fn unquoted(message: &str) -> String {
    message.split('"').step_by(2).collect::<Vec<_>>().join(" ")
}

fn assert_for_a_person(e: &ScheduleError, context: &str) {
    let words = unquoted(&e.message).to_lowercase();
    for word in words.split(|c: char| !c.is_ascii_alphanumeric()) {
        assert!(!RUST.contains(&word), "{context}: {e} says {word:?}");
    }
    assert!(!e.message.contains('`'), "{context}: {e}");
    assert!(e.message.len() > 15, "{context}: {e}");
}

/// The words `did you mean "…" or "…"?` offers, if it offers any.
fn suggestions(message: &str) -> Option<Vec<&str>> {
    let rest = message.split("did you mean ").nth(1)?;
    let offered = rest.split('?').next()?;
    Some(offered.split('"').skip(1).step_by(2).collect())
}

#[test]
fn every_rejection_of_a_mutated_file_names_a_field_of_it_in_words_for_a_person() {
    // A fixed seed; `REJECTIONS_SEED` tries another.
    let seed = std::env::var("REJECTIONS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x1a57_5ea7);
    let mut rng = Rng(seed);
    let mut rejected = 0;
    let mut suggested = 0;
    let files = valid_files();
    for (name, text) in &files {
        let file: Value = serde_json::from_str(text).expect("valid JSON");
        for _ in 0..25 {
            let (mutated, what, expected) = mutate(&mut rng, &file);
            let context = format!("{name}, {what}");
            let Err(e) = Schedule::parse_json(&mutated.to_string()) else {
                assert!(
                    !matches!(expected, Expected::At { .. }),
                    "{context}: accepted"
                );
                continue;
            };
            rejected += 1;
            assert_for_a_person(&e, &context);
            assert!(
                resolve(&mutated, &e.field).is_some(),
                "{context}: {e} names no field of the file"
            );
            if let Expected::At { field, word } = expected {
                assert_eq!(e.field, field, "{context}: {e}");
                if let Some(offered) = suggestions(&e.message) {
                    suggested += 1;
                    assert!(offered.contains(&word.as_str()), "{context}: {e}");
                }
            }
        }
    }
    // Figures, not assertions of speed: how much the run exercised.
    eprintln!(
        "{} files, {rejected} rejections, {suggested} with a suggestion",
        files.len()
    );
    assert!(rejected > files.len() * 10, "{rejected} rejections");
    assert!(suggested > files.len(), "{suggested} suggestions");
}
