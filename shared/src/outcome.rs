//! What a run produced: the trace of every entry (the simulator and the real executor both
//! write one; each operation's result is `result.rs`'s), the outcome built from it (who was
//! told what, the verdicts), and the comparison of two outcomes field by field.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::schedule::{Op, SeatStatus};

mod result;

pub use result::{Answer, StepResult};

/// A stored seat row.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SeatRow {
    pub id: String,
    pub status: SeatStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<i64>,
    /// A counter's value (`Shape`): `None` on a seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<i64>,
}

impl SeatRow {
    /// A counter's row, with its value.
    pub fn counter(id: String, value: i64) -> SeatRow {
        SeatRow {
            id,
            status: SeatStatus::Available,
            holder: None,
            hold_id: None,
            until: None,
            value: Some(value),
        }
    }
}

/// A stored ticket row (`booking_seats`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct BookingRow {
    pub seat: String,
    pub holder: String,
    pub booking_id: String,
}

/// The committed state of the tables: what a fresh transaction would read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Tables {
    pub clock: i64,
    /// Sorted by seat id.
    pub seats: Vec<SeatRow>,
    /// Sorted by seat, then booking id.
    pub bookings: Vec<BookingRow>,
    /// Actors owed a refund (`refund_outbox`), sorted.
    pub refunds: Vec<String>,
}

/// A row that a `read` or `lock` returned, as the actor saw it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SeenRow {
    pub seat: String,
    pub status: SeatStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<i64>,
    /// A counter's value (`Shape`): `None` on a seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<i64>,
    /// Whether the actor now remembers the seat as available (a counter: enough was left).
    pub available: bool,
}

/// One entry of the order as it ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryTrace {
    /// The actor whose operation this entry sent.
    pub actor: String,
    /// The index of the operation in the actor's program.
    pub op_index: usize,
    /// The actors it was found waiting for when the entry was sent; empty if it did not wait.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waited_for: Vec<String>,
    /// The final result; `None` if it was still waiting when the schedule ended.
    #[serde(default)]
    pub result: Option<StepResult>,
    /// The index of the entry during which the operation completed (its own index unless it
    /// waited); `None` if it never completed.
    #[serde(default)]
    pub completed_after: Option<usize>,
    /// The rows a `read` or `lock` returned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seen: Vec<SeenRow>,
    /// The committed tables after this entry, including whatever completed during it.
    pub tables: Tables,
    /// One line, in plain words, saying what happened and why (the simulator writes these).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// What the committed tables do not show after this entry, per seat that has any of it:
    /// its row lock, who waits for it, and what an open transaction wrote and has not
    /// committed. Only the simulator fills it in (PostgreSQL is asked only for committed
    /// rows), and comparing a simulated outcome with a real one never reads it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locks: Vec<SeatLock>,
}

/// One seat as the open transactions see it after an entry, beyond its committed row.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SeatLock {
    pub seat: String,
    /// The actor whose open transaction holds the seat's row lock (it ran `SELECT … FOR
    /// UPDATE`, or updated the row and has not committed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    /// The actors whose statement waits for this seat, first in line first: the row lock's
    /// queue, then those waiting for the end of a transaction that updated the row or inserted
    /// its ticket.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queue: Vec<String>,
    /// The row as an open transaction updated it: nobody else sees it until that commits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<PendingWrite>,
    /// The actor whose open transaction inserted a ticket for this seat, not yet committed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket: Option<String>,
    /// On a username, the actors whose open transaction created an account of the name, not
    /// yet committed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accounts: Vec<String>,
}

/// An update of a seat row that its transaction has not committed.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PendingWrite {
    /// The actor whose transaction wrote it.
    pub by: String,
    pub status: SeatStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<i64>,
    /// A counter row's new value (`Shape`): `None` on a seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<i64>,
}

impl EntryTrace {
    /// The entry's step as `expect.steps` writes it.
    pub fn step(&self) -> String {
        match (&self.result, self.waited_for.is_empty()) {
            (None, _) => "waiting".to_string(),
            (Some(r), true) => r.short(),
            (Some(r), false) => format!("waiting>{}", r.short()),
        }
    }
}

/// A whole run: the entries in order. Produced by the simulator and by the executor.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    pub entries: Vec<EntryTrace>,
    /// The committed tables before the first entry.
    pub initial: Tables,
    /// The entries (0-based) whose outcome PostgreSQL leaves to a race between sessions that
    /// one commit or rollback woke together (`Engine::races`): the model shows the usual
    /// order, a real run may take the other. Only the simulator fills it in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub races: Vec<usize>,
}

/// The verdict over the whole run.
///
/// Something went wrong (`bad`) when a seat was sold twice or lost, or a booking was decided
/// after its deadline; a refund owed and a hold not yet paid are how a correct system behaves.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Verdict {
    pub double_booked: bool,
    pub lost_seat: bool,
    pub refund_due: Vec<String>,
    pub unpaid_hold: Vec<String>,
    /// Actors whose ticket was issued after their hold's deadline had passed: the confirm
    /// checked the deadline against the time its transaction (or statement) began, waited on a
    /// lock past it, and still believed it was in time. A booking decided too late.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub booked_late: Vec<String>,
}

impl Verdict {
    /// A seat sold twice or lost, or a ticket issued after its hold's deadline.
    pub fn bad(&self) -> bool {
        self.double_booked || self.lost_seat || !self.booked_late.is_empty()
    }

    /// What went wrong, a few words each (`double booked`, `refund due to ana`…); empty when
    /// nothing did.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.double_booked {
            out.push("double booked".to_string());
        }
        if self.lost_seat {
            out.push("lost seat".to_string());
        }
        if !self.refund_due.is_empty() {
            out.push(format!("refund due to {}", self.refund_due.join(", ")));
        }
        if !self.unpaid_hold.is_empty() {
            out.push(format!("unpaid hold by {}", self.unpaid_hold.join(", ")));
        }
        if !self.booked_late.is_empty() {
            out.push(format!(
                "booked after the deadline by {}",
                self.booked_late.join(", ")
            ));
        }
        out
    }
}

/// One seat at the end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatOutcome {
    pub status: SeatStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    /// Actors told they got this seat whose claim was never ended legitimately.
    pub told: Vec<String>,
    /// Holders of its ticket rows.
    pub tickets: Vec<String>,
    /// A counter's value at the end (a username's: its accounts); `None` on a seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<i64>,
}

/// An entry with what it means: the op, its SQL and who had been told what by then.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    #[serde(flatten)]
    pub trace: EntryTrace,
    pub op: Op,
    /// The step as `expect.steps` writes it.
    pub step: String,
    /// seat → actors told they got it, after this entry.
    pub told: BTreeMap<String, Vec<String>>,
}

/// The outcome of a run: the entries, each seat at the end, and the verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    pub entries: Vec<Entry>,
    pub initial: Tables,
    pub seats: BTreeMap<String, SeatOutcome>,
    pub verdict: Verdict,
    /// The trace's races (`Trace::races`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub races: Vec<usize>,
}

impl Outcome {
    /// The final committed tables.
    pub fn final_tables(&self) -> &Tables {
        self.entries
            .last()
            .map(|e| &e.trace.tables)
            .unwrap_or(&self.initial)
    }

    /// seat → actors told they got it, at the end.
    pub fn told(&self) -> BTreeMap<String, Vec<String>> {
        self.seats
            .iter()
            .map(|(seat, s)| (seat.clone(), s.told.clone()))
            .collect()
    }

    pub fn steps(&self) -> Vec<String> {
        self.entries.iter().map(|e| e.step.clone()).collect()
    }
}
