//! Every exported schedule under `schedules/` and every built-in scenario that states an
//! `expect` meets it in the model (the backend replays the same files on PostgreSQL); and a
//! difference on a counter's rows says their values.

use shared::assess::{assess, check_expect};
use shared::engine::simulate;
use shared::scenarios;
use shared::Schedule;

fn unmet(label: &str, schedule: &Schedule) -> Vec<String> {
    let trace = match simulate(schedule) {
        Ok(t) => t,
        Err(e) => return vec![format!("{label}: refused: {e}")],
    };
    let steps: Vec<String> = trace.entries.iter().map(|e| e.step()).collect();
    let outcome = assess(schedule, trace);
    check_expect(schedule, &outcome)
        .into_iter()
        .map(|u| format!("{label}: {u} (steps {steps:?})"))
        .collect()
}

#[test]
fn every_exported_schedule_meets_its_expect_in_the_model() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schedules");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("schedules/")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for file in files
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
    {
        let schedule =
            Schedule::parse_json(&std::fs::read_to_string(file).expect("readable")).expect("valid");
        failures.extend(unmet(&file.display().to_string(), &schedule));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_builtin_scenario_meets_its_expect_in_the_model() {
    let mut failures = Vec::new();
    for builtin in scenarios::all()
        .into_iter()
        .filter(|b| b.file.expect.is_some())
    {
        failures.extend(unmet(builtin.id, &builtin.schedule()));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_difference_on_a_counter_names_the_rows_values() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schedules/counter-balance-two-withdrawals-after-one-check-go-below-zero.json");
    let schedule =
        Schedule::parse_json(&std::fs::read_to_string(path).expect("readable")).expect("valid");
    let simulated = assess(&schedule, simulate(&schedule).expect("it runs"));
    // A server that had refused the second withdrawal: 50 left, not -50.
    let mut real = simulated.clone();
    for entry in &mut real.entries[6..] {
        entry.trace.tables.seats[0].value = Some(50);
    }
    let differences = shared::assess::compare(&simulated, &real).join("\n");
    assert!(
        differences.contains("joint = -50") && differences.contains("joint = 50"),
        "{differences}"
    );
    assert!(!differences.contains("AVAILABLE"), "{differences}");
}
