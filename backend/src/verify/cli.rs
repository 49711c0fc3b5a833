//! `backend verify FILE [--jobs N] [--limit ORDERS]`: every feasible order of a schedule file
//! (or an even sample of them) on PostgreSQL, with a progress bar, and the summary in words.
//!
//! Exit codes: 0 when PostgreSQL agreed with the model on every order run (or took a race the
//! model named), 1 when it disagreed on one, 2 for a file, an argument or a database it cannot
//! use, 3 when the database failed before the last order (what ran is reported).

use std::fmt::Write;
use std::path::Path;
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};
use shared::Schedule;

use super::{verify, Plan, Stopped, Summary};
use crate::{db, executor};

/// The orders run when `--limit` says nothing: all 16,290 of three buyers in transactions, say.
pub const DEFAULT_LIMIT: u64 = 50_000;

/// Runs at once when `--jobs` says nothing: four per core, since a run mostly waits for the
/// database, at most as many as leave `max_connections` room for others.
pub fn default_jobs(actors: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    (4 * cores).clamp(1, 64 / (actors + 1))
}

/// The command; what it printed went to stdout (the summary, and with `phases` where the runs'
/// time went) and stderr (why it could not).
pub async fn command(file: &Path, jobs: Option<usize>, limit: u64, phases: bool) -> ExitCode {
    let schedule = match read(file) {
        Ok(schedule) => schedule,
        Err(why) => {
            eprintln!("{why}");
            return ExitCode::from(2);
        }
    };
    let jobs = jobs.unwrap_or_else(|| default_jobs(schedule.actors().len()));
    let plan = {
        let schedule = schedule.clone();
        match tokio::task::spawn_blocking(move || Plan::of(&schedule, limit)).await {
            Ok(plan) => plan,
            Err(e) => {
                eprintln!("could not list the orders: {e}");
                return ExitCode::from(2);
            }
        }
    };
    // A run takes a connection per buyer and one to watch them; two more for the sweep.
    let connections = (jobs * (schedule.actors().len() + 1) + 2) as u32;
    let url = db::database_url();
    let pool = match db::connect(&url, connections).await {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!(
                "cannot connect to PostgreSQL at DATABASE_URL={}: {e}\n\
                 start PostgreSQL, or set DATABASE_URL to a database that is running",
                db::redact(&url)
            );
            return ExitCode::from(2);
        }
    };
    println!(
        "{}: {}, {jobs} at a time on {}",
        file.display(),
        plan.coverage().words(),
        schedule.database().product()
    );
    let bar = ProgressBar::new(plan.orders.len() as u64);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {pos}/{len} orders, {per_sec}, {eta} left {msg}")
    {
        bar.set_style(style);
    }
    executor::phases::reset_totals();
    let tally = verify(
        &pool,
        &schedule,
        &plan,
        jobs,
        executor::RUN_TIMEOUT,
        |_| async { Ok::<(), Stopped>(()) },
        |tally| {
            bar.set_position(tally.progress().0);
            if tally.disagreed() > 0 {
                bar.set_message(format!("({} disagree)", tally.disagreed()));
            }
        },
    )
    .await;
    bar.finish_and_clear();
    executor::shutdown(&pool).await;
    pool.close().await;
    let summary = tally.summary();
    print!("{}", describe(&summary));
    if phases {
        println!(
            "where the runs' time went ({jobs} at a time, so the phases overlap):\n{}",
            executor::phases::totals().table()
        );
    }
    if summary.disagreed > 0 {
        ExitCode::FAILURE
    } else if summary.stopped.is_some() {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}

/// The schedule in `file`, or why not, in words.
fn read(file: &Path) -> Result<Schedule, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("{}: cannot read it: {e}", file.display()))?;
    Schedule::parse_json(&text).map_err(|e| format!("{}: invalid schedule: {e}", file.display()))
}

/// The summary in words: a line per verdict, the sentence, the first difference in full.
pub fn describe(s: &Summary) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "  {:>7} {:>7} {:>7} {:>9}  verdict of the model",
        "orders", "agreed", "race", "disagreed"
    );
    for v in &s.verdicts {
        let _ = writeln!(
            out,
            "  {:>7} {:>7} {:>7} {:>9}  {}",
            v.orders, v.agreed, v.races, v.disagreed, v.words
        );
    }
    let _ = writeln!(out, "{}", s.headline);
    if s.stopped.is_some() {
        let _ = writeln!(
            out,
            "(stopped after {} of {} orders)",
            s.run, s.coverage.orders
        );
    }
    for (what, difference) in [
        ("the first disagreement", &s.first_disagreement),
        (
            "the first order that took a race the model names",
            &s.first_race,
        ),
    ] {
        let Some(d) = difference else { continue };
        let _ = writeln!(out, "{what}: order {}", d.order.join(" "));
        for line in &d.differences {
            let _ = writeln!(out, "    {line}");
        }
        let file = serde_json::to_string(&d.schedule).unwrap_or_default();
        let _ = writeln!(
            out,
            "  the schedule with that order (backend replay takes it):\n{file}"
        );
    }
    let _ = writeln!(
        out,
        "{} runs in {:.1} s: {:.0} runs per second",
        s.run, s.seconds, s.runs_per_second
    );
    out
}
