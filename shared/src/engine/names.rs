//! The strings of a run, interned once per schedule and shared by every clone of the engine:
//! the names of actors and holders, the seat ids, every hold id an operation can create or
//! name, and each operation's seats as a bit mask (seat order is the scenario's, sorted by id).

use std::sync::Arc;

use crate::schedule::{Schedule, SeatStatus, SHAPES};
use crate::sql;

use super::mvcc::SeatVal;

#[derive(Debug)]
pub(crate) struct Names {
    /// Actors first (in the schedule's order), then holders named only by the scenario.
    pub names: Vec<String>,
    pub seats: Vec<String>,
    pub holds: Vec<String>,
    /// Per actor, per operation: the hold id it creates (`sql::hold_id`).
    pub op_hold: Vec<Vec<u16>>,
    /// Per actor: the placeholder hold id of an actor that holds nothing (`sql::no_hold`).
    pub no_hold: Vec<u16>,
    /// Per actor, per operation: its seats.
    pub op_seats: Vec<Vec<u64>>,
    /// The scenario's seats as stored rows.
    pub initial: Vec<SeatVal>,
    /// On a counter's rows: what one request takes (`take`).
    shape_take: Option<i64>,
    /// The rows are usernames (`username`).
    shape_username: bool,
}

impl Names {
    pub fn new(schedule: &Schedule) -> Arc<Names> {
        let scenario = schedule.scenario();
        let mut names: Vec<String> = schedule.actors().iter().map(|a| a.name.clone()).collect();
        let mut holds = Vec::new();
        let seats: Vec<String> = scenario.seats.iter().map(|s| s.id.clone()).collect();
        let mut initial = Vec::with_capacity(seats.len());
        for seat in &scenario.seats {
            let mut val = SeatVal {
                status: seat.status,
                holder: None,
                hold: None,
                until: seat.until,
                value: seat.value.unwrap_or(0),
            };
            if scenario.kind.is_username() && seat.value == Some(1) {
                // A taken name: its account and its claim are the name's own.
                val.holder = Some(intern(&mut names, &seat.id) as u8);
                val.hold = Some(intern(&mut holds, &sql::initial_hold(&seat.id)) as u16);
            }
            if let (Some(holder), SeatStatus::Held | SeatStatus::Booked) =
                (&seat.holder, seat.status)
            {
                val.holder = Some(intern(&mut names, holder) as u8);
                val.hold = Some(intern(&mut holds, &sql::initial_hold(holder)) as u16);
            }
            initial.push(val);
        }
        let mut op_seats = Vec::new();
        let mut op_hold = Vec::new();
        let mut no_hold = Vec::new();
        for actor in schedule.actors() {
            no_hold.push(intern(&mut holds, &sql::no_hold(&actor.name)) as u16);
            let per_op = actor.program.iter().enumerate();
            op_hold.push(
                per_op
                    .map(|(i, op)| intern(&mut holds, &sql::hold_id(&actor.name, i, op)) as u16)
                    .collect(),
            );
            op_seats.push(
                actor
                    .program
                    .iter()
                    .map(|op| mask(&seats, op.seats()))
                    .collect(),
            );
        }
        Arc::new(Names {
            names,
            seats,
            holds,
            op_hold,
            no_hold,
            op_seats,
            initial,
            shape_take: scenario.kind.is_counter().then_some(scenario.take),
            shape_username: scenario.kind.is_username(),
        })
    }

    /// On a counter's rows: what one request takes (its rows are read and shown as values).
    /// `None` at compile time without the `shapes` feature, so that a counter's branches of
    /// the model drop out of the page's first bundle.
    pub fn take(&self) -> Option<i64> {
        if SHAPES {
            self.shape_take
        } else {
            None
        }
    }

    /// The rows are usernames (shown as their number of accounts, read as accounts); false at
    /// compile time without the `shapes` feature, as `take`.
    pub fn username(&self) -> bool {
        SHAPES && self.shape_username
    }

    /// The index of a hold id that the client side names (always one of the interned ones).
    pub fn hold(&self, id: &str) -> u16 {
        self.holds
            .iter()
            .position(|h| h == id)
            .expect("every hold id a client names is interned") as u16
    }
}

fn intern(list: &mut Vec<String>, s: &str) -> usize {
    match list.iter().position(|x| x == s) {
        Some(i) => i,
        None => {
            list.push(s.to_string());
            list.len() - 1
        }
    }
}

fn mask(all: &[String], seats: &[String]) -> u64 {
    seats
        .iter()
        .filter_map(|s| all.iter().position(|x| x == s))
        .fold(0, |m, i| m | 1 << i)
}

/// The seat indices of a mask, in seat order.
pub(crate) fn seats_of(mask: u64) -> impl Iterator<Item = usize> {
    (0..64).filter(move |i| mask & (1u64 << i) != 0)
}

/// Capitalises a name for the start of a sentence.
pub(crate) fn title(name: &str) -> String {
    let mut c = name.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
