//! What a verification found so far: per verdict of the model, how many orders, and how many of
//! them PostgreSQL agreed on, took a race the model named, or disagreed on; the first order of
//! each kind of difference, loadable; and how fast the runs went.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::Serialize;
use shared::outcome::Verdict;
use shared::schedule::ScheduleFile;
use shared::Schedule;

use super::{Coverage, Finding, Plan, Run, Stopped};

/// The orders of one verdict of the model.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VerdictCount {
    /// The model's verdict, as data.
    pub verdict: Verdict,
    /// The same in a few words: "double booked", "refund due to Adam", "sold at most once".
    pub words: String,
    pub orders: u64,
    /// Orders on which PostgreSQL answered exactly as the model.
    pub agreed: u64,
    /// Orders that went another way where the model named a race.
    pub races: u64,
    /// Orders on which PostgreSQL answered otherwise where the model named no race.
    pub disagreed: u64,
}

/// One order on which the two differed, loadable: the schedule with that order.
#[derive(Clone, Debug, Serialize)]
pub struct Difference {
    /// The order, as actor names.
    pub order: Vec<String>,
    /// The schedule file with that order (and no `expect`): load it in the page's sandbox, or
    /// `backend replay` it.
    pub schedule: ScheduleFile,
    /// What differs, in plain words, field by field.
    pub differences: Vec<String>,
}

/// The running count.
#[derive(Debug)]
pub struct Tally {
    schedule: Schedule,
    coverage: Coverage,
    started: Instant,
    elapsed: Duration,
    run: u64,
    by_verdict: BTreeMap<Verdict, VerdictCount>,
    /// The first (by place in the plan) order of each kind, with that place.
    first_disagreement: Option<(usize, Difference)>,
    first_race: Option<(usize, Difference)>,
    stopped: Option<String>,
}

/// What the verification found, as the command prints it and the API sends it.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub coverage: Coverage,
    /// Orders run to their end.
    pub run: u64,
    pub agreed: u64,
    pub races: u64,
    pub disagreed: u64,
    /// Per verdict of the model, the most orders first.
    pub verdicts: Vec<VerdictCount>,
    /// Every order of the plan ran, and PostgreSQL agreed with the model on each (or took a
    /// race the model named).
    pub agree: bool,
    /// The first order on which they differed where the model named no race.
    pub first_disagreement: Option<Difference>,
    /// The first order that took a race the model named.
    pub first_race: Option<Difference>,
    pub seconds: f64,
    pub runs_per_second: f64,
    /// Why the verification stopped before its last order, if it did.
    pub stopped: Option<String>,
    /// What it found, in a sentence (`words.rs`).
    pub headline: String,
    /// The races the model named that PostgreSQL took, the orders per verdict, the speed.
    pub detail: String,
}

impl Tally {
    /// `schedule` without its `expect`: each order is a schedule of its own.
    pub fn new(schedule: &Schedule, plan: &Plan) -> Tally {
        Tally {
            schedule: schedule.clone(),
            coverage: plan.coverage(),
            started: Instant::now(),
            elapsed: Duration::ZERO,
            run: 0,
            by_verdict: BTreeMap::new(),
            first_disagreement: None,
            first_race: None,
            stopped: None,
        }
    }

    /// Orders run so far, and orders to run.
    pub fn progress(&self) -> (u64, u64) {
        (self.run, self.coverage.orders)
    }

    /// Orders so far on which they differed where the model named no race.
    pub fn disagreed(&self) -> u64 {
        self.by_verdict.values().map(|v| v.disagreed).sum()
    }

    pub(super) fn add(&mut self, run: Run) {
        self.run += 1;
        let count = self
            .by_verdict
            .entry(run.verdict.clone())
            .or_insert_with(|| VerdictCount {
                words: super::words::verdict(&run.verdict),
                verdict: run.verdict,
                ..VerdictCount::default()
            });
        count.orders += 1;
        let (first, differences) = match run.finding {
            Finding::Agreed => {
                count.agreed += 1;
                return;
            }
            Finding::RaceTaken(d) => {
                count.races += 1;
                (&mut self.first_race, d)
            }
            Finding::Disagreed(d) => {
                count.disagreed += 1;
                (&mut self.first_disagreement, d)
            }
        };
        if first.as_ref().is_none_or(|(at, _)| run.index < *at) {
            let schedule = self.schedule.with_order(run.order).to_file();
            let difference = Difference {
                order: schedule.order.clone(),
                schedule,
                differences,
            };
            *first = Some((run.index, difference));
        }
    }

    pub(super) fn stop(&mut self, stopped: Stopped) {
        self.stopped = Some(stopped.0);
    }

    pub(super) fn finish(&mut self) {
        self.elapsed = self.started.elapsed();
    }

    /// The summary so far.
    pub fn summary(&self) -> Summary {
        let elapsed = if self.elapsed.is_zero() {
            self.started.elapsed()
        } else {
            self.elapsed
        };
        let mut verdicts: Vec<VerdictCount> = self.by_verdict.values().cloned().collect();
        verdicts.sort_by(|a, b| b.orders.cmp(&a.orders).then(a.words.cmp(&b.words)));
        let sum = |f: fn(&VerdictCount) -> u64| verdicts.iter().map(f).sum::<u64>();
        let (agreed, races, disagreed) =
            (sum(|v| v.agreed), sum(|v| v.races), sum(|v| v.disagreed));
        let seconds = elapsed.as_secs_f64();
        let mut summary = Summary {
            coverage: self.coverage,
            run: self.run,
            agreed,
            races,
            disagreed,
            agree: disagreed == 0 && self.stopped.is_none() && self.run == self.coverage.orders,
            first_disagreement: self.first_disagreement.as_ref().map(|(_, d)| d.clone()),
            first_race: self.first_race.as_ref().map(|(_, d)| d.clone()),
            runs_per_second: if seconds > 0.0 {
                self.run as f64 / seconds
            } else {
                0.0
            },
            seconds,
            stopped: self.stopped.clone(),
            verdicts,
            headline: String::new(),
            detail: String::new(),
        };
        let server = self.schedule.database().product();
        summary.headline = super::words::headline(&summary, server);
        summary.detail = super::words::detail(&summary, server);
        summary
    }
}
