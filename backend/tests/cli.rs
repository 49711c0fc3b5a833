//! The `backend` command, run as a built binary.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::{backend, fixture};

use serde_json::Value;

/// Writes `text` to a file of its own; its path.
fn temp_file(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("lastseat-cli-{}-{name}", std::process::id()));
    std::fs::write(&path, text).expect("a temporary file");
    path
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The atomic-update fixture with an `expect` that does not hold.
fn failing_expect() -> PathBuf {
    let mut file: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("atomic-update-second-request-updates-no-rows.json"))
            .unwrap(),
    )
    .unwrap();
    file["expect"] = serde_json::json!({ "double_booked": true });
    temp_file("failing-expect.json", &file.to_string())
}

#[test]
fn replay_of_a_good_file_says_they_agree_and_exits_zero() {
    let out = backend(&[
        "replay",
        &fixture("atomic-update-second-request-updates-no-rows.json"),
    ]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("agree; expect holds"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn replay_of_a_file_whose_expect_fails_exits_non_zero_with_the_reason() {
    let out = backend(&["replay", failing_expect().to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(
        stdout(&out).contains("expect.double_booked: expected true, got false"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn replay_json_prints_one_object_per_file_per_line() {
    let good = fixture("atomic-update-second-request-updates-no-rows.json");
    let bad = failing_expect();
    let invalid = temp_file(
        "invalid.json",
        r#"{ "version": 1, "scenario": { "seats": [ { "id": "A7" } ] }, "actors": { "adam": { "defence": "hope" } } }"#,
    );
    let out = backend(&[
        "replay",
        "--json",
        &good,
        bad.to_str().unwrap(),
        invalid.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 3);
    for line in &lines {
        for key in [
            "file",
            "agree",
            "expect_ok",
            "simulated",
            "real",
            "differences",
        ] {
            assert!(line.get(key).is_some(), "{key} missing in {line}");
        }
    }
    assert_eq!(
        (&lines[0]["agree"], &lines[0]["expect_ok"]),
        (&Value::Bool(true), &Value::Bool(true))
    );
    assert_eq!(lines[0]["file"], good.as_str());
    assert_eq!(
        (&lines[1]["agree"], &lines[1]["expect_ok"]),
        (&Value::Bool(true), &Value::Bool(false))
    );
    assert_eq!(lines[2]["error"]["field"], "actors.adam.defence");
    assert!(lines[2]["simulated"].is_null());
}

#[test]
fn a_database_that_is_down_is_named_and_fails_without_a_panic() {
    let out = Command::new(env!("CARGO_BIN_EXE_backend"))
        .args([
            "replay",
            &fixture("atomic-update-second-request-updates-no-rows.json"),
        ])
        .env("DATABASE_URL", "postgres://postgres@127.0.0.1:1/postgres")
        .output()
        .expect("the backend binary runs");
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("DATABASE_URL=postgres://postgres@127.0.0.1:1/postgres"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}
