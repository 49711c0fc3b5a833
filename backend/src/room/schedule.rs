//! A round as a format v1 schedule: the participants as actors, the operations the server
//! carried out for each, the order in which it sent them, and the clock's advances. The
//! schedule's clock counts seconds (`"clock_unit": "second"`), as the round's does: its hold,
//! its advances and every moment its replay names are the round's seconds. Where two
//! statements were in flight at once the order is only one of the orders they could have
//! taken, and the answer says so; where none overlapped, the model's outcome of that order is
//! what happened live. A general-admission round is a schedule of that kind: its one row is
//! the section with the round's tickets, as it was seeded.

use std::collections::BTreeMap;

use serde::Serialize;
use shared::schedule::{
    op_value, ClockUnit, ProgramSpec, Scenario, ScheduleFile, SeatSpec, SeatStatus, Shape, CLOCK,
    MAX_ACTORS, MAX_ORDER, MAX_SEATS,
};
use shared::{Schedule, ScheduleError};
use sqlx::PgPool;

use super::booking::SHOW;
use super::error::RoomError;
use super::settings::SECTION;
use super::store::{Played, Room};

/// One participant's program so far as a schedule of its own (its entries in program order), on
/// the room's settings: the `Clients` of an attempt are driven by it.
pub fn one_actor(
    room: &Room,
    actor: &str,
    program: &[(shared::schedule::Op, shared::schedule::Condition)],
) -> Result<Schedule, ScheduleError> {
    let mut seats: Vec<String> = program
        .iter()
        .flat_map(|(op, _)| op.seats().to_vec())
        .collect();
    seats.sort();
    seats.dedup();
    if seats.is_empty() {
        seats.push("A1".to_string());
    }
    let file = ScheduleFile {
        version: 1,
        engine: Default::default(),
        name: format!("{actor} in room {}", room.code),
        description: None,
        scenario: scenario(room.settings.hold_seconds as i64, room.played, &seats),
        actors: BTreeMap::from([(
            actor.to_string(),
            ProgramSpec::Ops(program.iter().map(|(op, c)| op_value(op, *c)).collect()),
        )]),
        order: vec![actor.to_string(); program.len()],
        expect: None,
    };
    Schedule::parse(file)
}

/// The round's scenario: its seats, all free (or its section, every ticket left), and its hold
/// of `hold` seconds on a clock of seconds (the key `hold_minutes` counts the clock's unit).
fn scenario(hold: i64, played: Played, seats: &[String]) -> Scenario {
    let row = |id: &str, value: Option<i64>| SeatSpec {
        id: id.to_string(),
        status: SeatStatus::Available,
        holder: None,
        until: None,
        value,
    };
    let seats = match played.kind {
        Shape::Seats => seats.iter().map(|id| row(id, None)).collect(),
        Shape::GeneralAdmission
        | Shape::Balance
        | Shape::RateLimit
        | Shape::Coupon
        | Shape::Username => {
            vec![row(SECTION, Some(played.tickets.into()))]
        }
    };
    Scenario {
        show: SHOW,
        hold_minutes: hold,
        clock: 0,
        clock_unit: ClockUnit::Second,
        kind: played.kind,
        take: 1,
        seats,
    }
}

/// Two statements of different actors that were in flight at the same time.
#[derive(Clone, Debug, Serialize)]
pub struct Overlap {
    /// Entries (0-based, in the order) of the two.
    pub entries: [usize; 2],
    pub actors: [String; 2],
}

/// What happened live at one entry of the order.
#[derive(Clone, Debug, Serialize)]
pub struct LiveStep {
    pub actor: String,
    pub op_index: usize,
    pub result: String,
}

/// A round's schedule and where its statements overlapped.
#[derive(Clone, Debug, Serialize)]
pub struct RoundSchedule {
    pub schedule: ScheduleFile,
    pub overlaps: Vec<Overlap>,
    /// What each entry answered live (the clock's advances say `ok`).
    pub live: Vec<LiveStep>,
}

type Row = (
    String,
    i32,
    sqlx::types::Json<serde_json::Value>,
    Option<String>,
    sqlx::types::Json<shared::StepResult>,
    f64,
    f64,
);

/// Round `n` of `room` as a schedule; refused, saying why, when it does not fit the format's
/// limits (eight actors, 64 seats, 128 entries).
pub async fn round(pool: &PgPool, room: &Room, n: i32) -> Result<RoundSchedule, RoomError> {
    let rules: Option<(i32, String, i32, Option<i32>)> = sqlx::query_as(
        "select hold_seconds, kind, seats, tickets from lastseat_rooms.rounds where room = $1 and n = $2",
    )
    .bind(&room.code)
    .bind(n)
    .fetch_optional(pool)
    .await?;
    let (hold, kind, seats, tickets) = rules.ok_or_else(|| {
        RoomError::invalid(
            "round",
            format!(
                "round {n} has not been played in this room (rounds so far: {})",
                room.round
            ),
        )
    })?;
    let rows: Vec<Row> = sqlx::query_as(
        "select actor, op_index, op, sql, result, extract(epoch from sent_at)::float8,
                extract(epoch from answered_at)::float8 from lastseat_rooms.requests
          where room = $1 and round = $2 order by sent_at, id",
    )
    .bind(&room.code)
    .bind(n)
    .fetch_all(pool)
    .await?;
    let played = Played {
        kind: if kind == Shape::GeneralAdmission.id() {
            Shape::GeneralAdmission
        } else {
            Shape::Seats
        },
        seats,
        tickets: tickets.unwrap_or(0),
    };
    let mut sent = Sent::of(rows);
    sent.trim_trailing_clock();
    let seats = sent.within_limits(n)?;
    let overlaps = overlaps(&sent.spans);
    let schedule = ScheduleFile {
        version: 1,
        engine: Default::default(),
        name: format!("Room {}, round {n}", room.code),
        description: Some(if overlaps.is_empty() {
            "The order in which the server sent every statement; none of them overlapped, so the model's outcome is what happened live.".to_string()
        } else {
            format!("The order in which the server sent every statement. {} pairs of statements were in flight at once: there, PostgreSQL may have taken them in another order than this one.", overlaps.len())
        }),
        scenario: scenario(hold as i64, played, &seats),
        actors: sent
            .programs
            .into_iter()
            .map(|(a, ops)| (a, ProgramSpec::Ops(ops)))
            .collect(),
        order: sent.order,
        expect: None,
    };
    Ok(RoundSchedule {
        schedule,
        overlaps,
        live: sent.live,
    })
}

/// A round's requests as sent: each actor's program, the order, what each entry answered, the
/// spans of the statements sent (entry, actor, sent, answered) and the seats named.
#[derive(Default)]
struct Sent {
    programs: BTreeMap<String, Vec<serde_json::Value>>,
    order: Vec<String>,
    live: Vec<LiveStep>,
    spans: Vec<(usize, String, f64, f64)>,
    seats: Vec<String>,
}

impl Sent {
    /// The rows of the round's requests, in the order they were sent.
    fn of(rows: Vec<Row>) -> Sent {
        let mut sent = Sent::default();
        for (actor, _, op, sql, result, at, answered) in rows {
            if sql.is_some() {
                sent.spans
                    .push((sent.order.len(), actor.clone(), at, answered));
            }
            if actor == CLOCK {
                if sent.merged_advance(&op.0) {
                    continue;
                }
            } else if let Some(list) = op.0.get("seats").and_then(|s| s.as_array()) {
                let named = list.iter().filter_map(|s| s.as_str().map(str::to_string));
                sent.seats.extend(named);
            }
            let program = sent.programs.entry(actor.clone()).or_default();
            program.push(op.0);
            sent.live.push(LiveStep {
                actor: actor.clone(),
                op_index: program.len() - 1,
                result: result.0.short(),
            });
            sent.order.push(actor);
        }
        sent
    }

    /// Adds the clock's advance `op` to the one just before it, if the last entry is one:
    /// consecutive advances are one advance. Whether it did.
    fn merged_advance(&mut self, op: &serde_json::Value) -> bool {
        if self.order.last().map(String::as_str) != Some(CLOCK) {
            return false;
        }
        let Some(last) = self.programs.get_mut(CLOCK).and_then(|p| p.last_mut()) else {
            return false;
        };
        let minutes =
            |v: &serde_json::Value| v.get("minutes").and_then(|m| m.as_i64()).unwrap_or(0);
        last["minutes"] = (minutes(last) + minutes(op)).into();
        let entry = self.order.len();
        if let Some(span) = self.spans.last_mut().filter(|s| s.0 == entry) {
            span.0 = entry - 1;
        }
        true
    }

    /// Drops the advances after the last participant's entry: they change nothing anyone saw.
    fn trim_trailing_clock(&mut self) {
        while self.order.last().map(String::as_str) == Some(CLOCK) {
            self.order.pop();
            self.live.pop();
            if let Some(p) = self.programs.get_mut(CLOCK) {
                p.pop();
                if p.is_empty() {
                    self.programs.remove(CLOCK);
                }
            }
        }
    }

    /// The seats the round named (A1 if none), or why round `n` does not fit a schedule.
    fn within_limits(&self, n: i32) -> Result<Vec<String>, RoomError> {
        let people = self.programs.keys().filter(|a| *a != CLOCK).count();
        if people > MAX_ACTORS {
            return Err(RoomError::invalid("round", format!(
                "round {n} had {people} participants taking part: a schedule holds at most {MAX_ACTORS}, so this round cannot open in the simulator; play a round with fewer phones (and no bots)"
            )));
        }
        if self.order.len() > MAX_ORDER {
            return Err(RoomError::invalid("round", format!(
                "round {n} sent {} operations: a schedule holds at most {MAX_ORDER}; play a shorter round to open it in the simulator", self.order.len()
            )));
        }
        let mut seats = self.seats.clone();
        seats.sort();
        seats.dedup();
        if seats.len() > MAX_SEATS {
            return Err(RoomError::invalid(
                "round",
                format!(
                    "round {n} touched {} seats: a schedule holds at most {MAX_SEATS}",
                    seats.len()
                ),
            ));
        }
        if seats.is_empty() {
            seats.push("A1".into());
        }
        Ok(seats)
    }
}

/// The pairs of statements of different actors in flight at the same time.
fn overlaps(spans: &[(usize, String, f64, f64)]) -> Vec<Overlap> {
    let mut overlaps = Vec::new();
    for (i, a) in spans.iter().enumerate() {
        for b in &spans[i + 1..] {
            if a.1 != b.1 && b.2 < a.3 && a.2 < b.3 {
                overlaps.push(Overlap {
                    entries: [a.0, b.0],
                    actors: [a.1.clone(), b.1.clone()],
                });
            }
        }
    }
    overlaps
}
