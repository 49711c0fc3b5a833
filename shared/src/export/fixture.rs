//! The fixture for `schedules/`: the schedule cut to the entries the outcome ran, its `expect`
//! filled from the outcome, and its headline as the description.

use std::collections::BTreeSet;

use super::json;
use crate::explain;
use crate::outcome::Outcome;
use crate::schedule::{Expect, FinalSeat, Schedule, SeatStatus};

/// The schedule as a fixture for `schedules/` (format v1), its `expect` filled from the
/// outcome: every step, the verdict, who was told they got each seat and how each seat ended
/// (for every seat the run touched). The fixture meets its `expect` against this outcome. An
/// outcome of the first entries only (a playhead half-way) gives the fixture of those entries.
pub fn fixture_json(schedule: &Schedule, outcome: &Outcome) -> String {
    let ran = outcome.entries.len().min(schedule.order().len());
    let mut schedule = schedule.with_order(schedule.order()[..ran].to_vec());
    schedule.set_expect(Some(expect_of(&schedule, outcome)));
    let mut file = schedule.to_file();
    file.description = Some(explain::headline(&schedule, outcome));
    let value = serde_json::to_value(&file).expect("schedule files serialise");
    json::pretty(&value)
}

/// Everything `check_expect` looks at, as this outcome has it.
fn expect_of(schedule: &Schedule, outcome: &Outcome) -> Expect {
    let seats = touched_seats(schedule, outcome);
    let v = &outcome.verdict;
    Expect {
        double_booked: Some(v.double_booked),
        lost_seat: Some(v.lost_seat),
        refund_due: Some(v.refund_due.clone()),
        unpaid_hold: Some(v.unpaid_hold.clone()),
        booked_late: Some(v.booked_late.clone()),
        told: Some(
            outcome
                .seats
                .iter()
                .filter(|(id, _)| seats.contains(*id))
                .map(|(id, s)| (id.clone(), s.told.clone()))
                .collect(),
        ),
        final_seats: Some(
            outcome
                .seats
                .iter()
                .filter(|(id, _)| seats.contains(*id))
                .map(|(id, s)| {
                    // A counter's row (and a username's) ends with its value alone.
                    let seat = FinalSeat {
                        status: s.status,
                        holder: s.holder.clone().filter(|_| s.value.is_none()),
                        value: s.value,
                    };
                    (id.clone(), seat)
                })
                .collect(),
        ),
        steps: Some(outcome.steps()),
    }
}

/// Seats an operation names, seats that start or end taken, and seats someone was told about.
fn touched_seats(schedule: &Schedule, outcome: &Outcome) -> BTreeSet<String> {
    let mut seats: BTreeSet<String> = schedule
        .actors()
        .iter()
        .flat_map(|a| a.program.iter().flat_map(|op| op.seats().iter().cloned()))
        .collect();
    seats.extend(
        schedule
            .scenario()
            .seats
            .iter()
            .filter(|s| s.status != SeatStatus::Available)
            .map(|s| s.id.clone()),
    );
    seats.extend(
        outcome
            .seats
            .iter()
            .filter(|(_, s)| s.status != SeatStatus::Available || !s.told.is_empty())
            .map(|(id, _)| id.clone()),
    );
    seats
}
