//! What a run will cost PostgreSQL, known before it starts: the model's trace says how many
//! deadlocks and waits the schedule has, and each has a known price in wall time on the real
//! database (the executor's rules, in ARCHITECTURE.md's "Determinism of real runs").

use std::time::Duration;

use shared::outcome::StepResult;
use shared::Trace;

/// A run's fixed price: its schema created from the migration text and dropped, and a
/// connection per buyer.
pub const BASE: Duration = Duration::from_millis(150);
/// Per entry: its statement, the wait for quiescence and the tables' snapshot.
///
/// Measured on PostgreSQL 15 (a debug build, two busy cores): 1, 2, 4 and 8 deadlocks took
/// 1.15, 2.19, 4.18 and 8.35 s, estimated 1.30, 2.44, 4.73 and 9.32 s; 128 entries without a
/// deadlock or a wait took 1.83 s, estimated 1.69 s.
pub const PER_ENTRY: Duration = Duration::from_millis(12);
/// Per deadlock: PostgreSQL looks for one only when a wait has lasted `deadlock_timeout` (1 s,
/// the sessions keep the default).
pub const PER_DEADLOCK: Duration = Duration::from_secs(1);
/// Per wait that begins: the executor holds the next statement back 50 ms.
pub const PER_WAIT: Duration = Duration::from_millis(50);

/// The price of one schedule, from its simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cost {
    pub entries: usize,
    pub deadlocks: usize,
    pub waits: usize,
    /// The wall time the run is expected to take on PostgreSQL.
    pub estimate: Duration,
}

impl Cost {
    /// The cost of the run the model traced.
    pub fn of(trace: &Trace) -> Cost {
        let entries = trace.entries.len();
        let deadlocks = trace
            .entries
            .iter()
            .filter(
                |e| matches!(&e.result, Some(StepResult::Error { code, .. }) if code.is_deadlock()),
            )
            .count();
        let waits = trace
            .entries
            .iter()
            .filter(|e| !e.waited_for.is_empty())
            .count();
        let estimate = BASE
            + PER_ENTRY * entries as u32
            + PER_DEADLOCK * deadlocks as u32
            + PER_WAIT * waits as u32;
        Cost {
            entries,
            deadlocks,
            waits,
            estimate,
        }
    }

    /// Why this cost is above `limit`, and what to do about it.
    pub fn refusal(&self, limit: Duration) -> String {
        format!(
            "this schedule would keep PostgreSQL busy for about {:.1} s ({} at 1 s each, the \
             time PostgreSQL waits before it looks for one, and {} at 50 ms), \
             and this server runs schedules of up to {} s: split it into shorter schedules with \
             fewer deadlocks, or replay it on your own database with `cargo run -p backend -- replay FILE`",
            self.estimate.as_secs_f64(),
            count(self.deadlocks, "deadlock"),
            count(self.waits, "wait"),
            limit.as_secs()
        )
    }
}

fn count(n: usize, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::Cost;

    #[test]
    fn a_deadlock_costs_a_second_and_a_wait_fifty_milliseconds() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../schedules/deadlock-victim-is-the-first-waiter.json"
        ))
        .unwrap();
        let schedule = shared::Schedule::parse_json(&text).unwrap();
        let cost = Cost::of(&shared::engine::simulate(&schedule).unwrap());
        assert_eq!((cost.entries, cost.deadlocks, cost.waits), (8, 1, 1));
        assert_eq!(cost.estimate.as_millis(), 150 + 8 * 12 + 1000 + 50);
        assert!(cost
            .refusal(super::Duration::from_secs(1))
            .contains("(1 deadlock at 1 s each"));
    }
}
