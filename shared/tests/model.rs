//! The model's cases as data, kept as PostgreSQL keeps its isolation specs and their expected
//! output: every `tests/model/NAME.json` (a format v1 schedule, each case observed on
//! PostgreSQL 15 first, and replayed on it by the backend's differential test) is simulated,
//! must meet its `expect`, and its trace rendered as text must equal
//! `tests/model/expected/NAME.out`. `UPDATE_EXPECT=1 cargo test -p shared --test model`
//! writes the rendered text instead of comparing it.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use shared::assess::{assess, check_expect};
use shared::engine::simulate;
use shared::outcome::{BookingRow, SeatRow, SeenRow, Tables};
use shared::{Outcome, Schedule};

/// The cases' folder; their expected outputs are in its `expected/`.
fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/model")
}

/// The files of `dir` whose name ends in `.{ext}`, sorted.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    files
}

#[test]
fn every_model_case_meets_its_expect_and_renders_as_its_expected_output() {
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let cases = files(&folder(), "json");
    assert!(!cases.is_empty(), "tests/model/ holds the model's cases");
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_stem().expect("a name").to_string_lossy();
        let expected_path = folder().join("expected").join(format!("{name}.out"));
        let got = match run(case) {
            Ok(text) => text,
            Err(why) => {
                failures.push(format!("tests/model/{name}.json: {why}"));
                continue;
            }
        };
        if update {
            std::fs::write(&expected_path, &got).expect("the expected output is writable");
            continue;
        }
        let Ok(want) = std::fs::read_to_string(&expected_path) else {
            failures.push(format!(
                "tests/model/{name}.json: no expected/{name}.out yet (UPDATE_EXPECT=1 writes it)"
            ));
            continue;
        };
        if want != got {
            failures.push(format!(
                "tests/model/{name}.json: the rendered trace differs from expected/{name}.out \
                 (- expected, + rendered; UPDATE_EXPECT=1 rewrites it):\n{}",
                diff(&want, &got)
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

#[test]
fn every_expected_output_belongs_to_a_model_case() {
    let orphans: Vec<String> = files(&folder().join("expected"), "out")
        .iter()
        .map(|out| {
            out.file_stem()
                .expect("a name")
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| !folder().join(format!("{name}.json")).is_file())
        .map(|name| format!("expected/{name}.out: no tests/model/{name}.json to render it"))
        .collect();
    assert!(orphans.is_empty(), "{}", orphans.join("\n"));
}

/// The case in `path`, parsed and simulated: its rendered trace, or why it fails its `expect`.
fn run(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let schedule = Schedule::parse_json(&text).map_err(|e| format!("invalid: {e}"))?;
    let trace = simulate(&schedule).map_err(|e| format!("the model refuses it: {e}"))?;
    let outcome = assess(&schedule, trace);
    let steps = schedule.expect().and_then(|e| e.steps.as_ref());
    if steps.map(Vec::len) != Some(outcome.entries.len()) {
        return Err(format!(
            "expect.steps must give every entry's step: {:?}",
            outcome.steps()
        ));
    }
    let unmet = check_expect(&schedule, &outcome);
    if !unmet.is_empty() {
        return Err(unmet.join("; "));
    }
    Ok(render(&outcome))
}

/// The outcome as text: each entry (who sent what, its step, whom it waited for and at which
/// entry it completed, the model's reason, the rows it returned, the committed rows it
/// changed), then the races, the final tables, who was told they got each seat, the verdict.
fn render(outcome: &Outcome) -> String {
    let mut out = String::new();
    let mut before = &outcome.initial;
    for (k, e) in outcome.entries.iter().enumerate() {
        let t = &e.trace;
        let mut op = e.op.name().to_string();
        if !e.op.seats().is_empty() {
            let _ = write!(op, " {}", e.op.seats().join(","));
        }
        let _ = write!(out, "[{k}] {} {op} -> {}", t.actor, e.step);
        if !t.waited_for.is_empty() {
            let _ = write!(out, ", waited for {}", t.waited_for.join(" and "));
        }
        match t.completed_after {
            Some(c) if c != k => {
                let _ = write!(out, ", completed at [{c}]");
            }
            None => out.push_str(", never completed"),
            Some(_) => {}
        }
        out.push('\n');
        if !t.reason.is_empty() {
            let _ = writeln!(out, "    {}", t.reason);
        }
        for row in &t.seen {
            let _ = writeln!(out, "    returned {}", seen(row));
        }
        for change in changes(before, &t.tables) {
            let _ = writeln!(out, "    committed {change}");
        }
        before = &t.tables;
    }
    let races: Vec<String> = outcome.races.iter().map(|k| format!("[{k}]")).collect();
    let _ = writeln!(out, "races: {}", or_none(&races));
    let last = outcome.final_tables();
    let _ = writeln!(out, "final: clock {}", last.clock);
    for row in &last.seats {
        let _ = writeln!(out, "    {}", seat(row));
    }
    let tickets: Vec<String> = last.bookings.iter().map(ticket).collect();
    let _ = writeln!(out, "    tickets: {}", or_none(&tickets));
    let _ = writeln!(out, "    refunds: {}", or_none(&last.refunds));
    let told: Vec<String> = outcome
        .seats
        .iter()
        .filter(|(_, s)| !s.told.is_empty())
        .map(|(id, s)| format!("{id} {}", s.told.join(" and ")))
        .collect();
    let _ = writeln!(out, "told: {}", or_none(&told));
    let _ = writeln!(out, "problems: {}", or_none(&outcome.verdict.problems()));
    out
}

/// What an entry changed in the committed tables.
fn changes(before: &Tables, after: &Tables) -> Vec<String> {
    let mut out = Vec::new();
    if before.clock != after.clock {
        out.push(format!("clock {}", after.clock));
    }
    out.extend(
        after
            .seats
            .iter()
            .filter(|row| !before.seats.contains(row))
            .map(seat),
    );
    for b in &before.bookings {
        if !after.bookings.contains(b) {
            out.push(format!("no more {}", ticket(b)));
        }
    }
    out.extend(
        after
            .bookings
            .iter()
            .filter(|b| !before.bookings.contains(b))
            .map(ticket),
    );
    if before.refunds != after.refunds {
        out.push(format!("refunds {}", or_none(&after.refunds)));
    }
    out
}

/// A seat's row, or a counter's (`alice = -50`: its value, its status meaningless).
fn seat(row: &SeatRow) -> String {
    if let Some(value) = row.value {
        return format!("{} = {value}", row.id);
    }
    let mut s = format!("{} {}", row.id, row.status.as_sql());
    if let Some(holder) = &row.holder {
        let _ = write!(s, " by {holder}");
    }
    if let Some(until) = row.until {
        let _ = write!(s, " until {until}");
    }
    if let Some(hold) = &row.hold_id {
        let _ = write!(s, " (hold {hold})");
    }
    s
}

fn seen(row: &SeenRow) -> String {
    if let Some(value) = row.value {
        let enough = if row.available {
            "enough"
        } else {
            "not enough"
        };
        return format!("{} = {value}, {enough}", row.seat);
    }
    let mut s = format!("{} {}", row.seat, row.status.as_sql());
    if let Some(holder) = &row.holder {
        let _ = write!(s, " by {holder}");
    }
    if let Some(until) = row.until {
        let _ = write!(s, " until {until}");
    }
    s.push_str(if row.available {
        ", available"
    } else {
        ", taken"
    });
    s
}

fn ticket(b: &BookingRow) -> String {
    format!(
        "ticket {} for {} (booking {})",
        b.seat, b.holder, b.booking_id
    )
}

fn or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(", ")
    }
}

/// The lines of `want` and `got` that differ (`-` and `+`), with two lines of context.
fn diff(want: &str, got: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    // lcs[i][j]: the length of the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut lines) = (0, 0, Vec::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            lines.push((' ', a[i]));
            (i, j) = (i + 1, j + 1);
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            lines.push(('-', a[i]));
            i += 1;
        } else {
            lines.push(('+', b[j]));
            j += 1;
        }
    }
    let near_change = |k: usize| {
        lines[k.saturating_sub(2)..(k + 3).min(lines.len())]
            .iter()
            .any(|(mark, _)| *mark != ' ')
    };
    let mut out = String::new();
    for (k, (mark, line)) in lines.iter().enumerate() {
        if near_change(k) {
            let _ = writeln!(out, "{mark} {line}");
        } else if k > 0 && near_change(k - 1) {
            out.push_str("  ...\n");
        }
    }
    out
}
