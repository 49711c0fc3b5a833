//! The scenario of a file: the show, a hold's length, the clock's first reading and its unit,
//! and each seat with its status, holder and end of hold.

use serde_json::Value;

use super::super::{ClockUnit, Scenario, ScheduleError, SeatSpec, SeatStatus, Shape};
use super::reader::{self, choice, error, text, whole, Obj};
use super::{status, words};

pub(super) fn scenario(v: &Value) -> Result<Scenario, ScheduleError> {
    let o = Obj::of(
        "scenario",
        v,
        "the scenario, an object, e.g. {\"seats\": [{\"id\": \"A7\"}]}",
    )?;
    o.only(
        &[
            "show",
            "hold_minutes",
            "clock",
            "clock_unit",
            "kind",
            "take",
            "seats",
        ],
        "the scenario",
    )?;
    let seats = o.need(
        "seats",
        "the show's seats, e.g. \"seats\": [{\"id\": \"A7\"}]",
    )?;
    let Value::Array(items) = seats else {
        return Err(error(
            &o.path("seats"),
            format!(
                "found {}, but this is a list of seats, e.g. [{{\"id\": \"A7\"}}]",
                reader::found(seats)
            ),
        ));
    };
    let mut scenario = Scenario {
        show: o
            .opt("show", |p, v| {
                whole(p, v, "the show's id, a number, e.g. 501")
            })?
            .unwrap_or(501),
        hold_minutes: o
            .opt("hold_minutes", |p, v| {
                whole(p, v, "a hold's length in minutes, e.g. 10")
            })?
            .unwrap_or(10),
        clock: o
            .opt("clock", |p, v| {
                whole(p, v, "the clock's first minute, e.g. 0")
            })?
            .unwrap_or(0),
        clock_unit: o.opt("clock_unit", clock_unit)?.unwrap_or_default(),
        kind: o.opt("kind", kind)?.unwrap_or_default(),
        take: o
            .opt("take", |p, v| {
                whole(p, v, "what one request takes from a counter, e.g. 100")
            })?
            .unwrap_or(1),
        seats: items
            .iter()
            .enumerate()
            .map(|(i, seat)| self::seat(&format!("scenario.seats[{i}]"), seat))
            .collect::<Result<_, _>>()?,
    };
    if scenario.kind.is_username() {
        // A free name may be written without its value: it is 0, and written so.
        for row in &mut scenario.seats {
            if row.value.is_none() && row.status == SeatStatus::Available && row.holder.is_none() {
                row.value = Some(0);
            }
        }
    }
    Ok(scenario)
}

fn clock_unit(path: &str, v: &Value) -> Result<ClockUnit, ScheduleError> {
    choice(path, v, "the clock's unit", &words::CLOCK_UNITS)
}

fn kind(path: &str, v: &Value) -> Result<Shape, ScheduleError> {
    choice(path, v, "the scenario's kind", &words::SHAPES)
}

fn seat(path: &str, v: &Value) -> Result<SeatSpec, ScheduleError> {
    let o = Obj::of(path, v, "a seat, an object, e.g. {\"id\": \"A7\"}")?;
    o.only(&["id", "status", "holder", "until", "value"], "a seat")?;
    Ok(SeatSpec {
        id: text(
            &o.path("id"),
            o.need("id", "every seat has one, e.g. \"id\": \"A7\"")?,
            "a seat id",
        )?,
        status: o.opt("status", status)?.unwrap_or_default(),
        holder: o.opt("holder", |p, v| text(p, v, "the actor holding the seat"))?,
        until: o.opt("until", |p, v| {
            whole(p, v, "the minute the hold ends, e.g. 5")
        })?,
        value: o.opt("value", |p, v| {
            whole(p, v, "a counter's value, a whole number, e.g. 100")
        })?,
    })
}
