//! The expectations of a file (`expect`): the verdict's fields, who was told they got each seat,
//! how each seat ends, and every step's result.

use std::collections::BTreeMap;

use serde_json::Value;

use super::super::{Expect, FinalSeat, ScheduleError, SeatStatus};
use super::reader::{boolean, text, texts, whole, Obj};
use super::status;

/// Every key of `expect`, in the order an exported file writes them.
pub(crate) const EXPECT_KEYS: [&str; 8] = [
    "double_booked",
    "lost_seat",
    "refund_due",
    "unpaid_hold",
    "booked_late",
    "told",
    "final",
    "steps",
];

pub(super) fn expect(path: &str, v: &Value) -> Result<Expect, ScheduleError> {
    let o = Obj::of(
        path,
        v,
        "the expectations, an object, e.g. {\"double_booked\": false}",
    )?;
    o.only(&EXPECT_KEYS, "the expectations")?;
    let names = |p: &str, v: &Value| {
        texts(
            p,
            v,
            "a list of actor names, e.g. [\"adam\"]",
            "an actor's name",
        )
    };
    Ok(Expect {
        double_booked: o.opt("double_booked", boolean)?,
        lost_seat: o.opt("lost_seat", boolean)?,
        refund_due: o.opt("refund_due", names)?,
        unpaid_hold: o.opt("unpaid_hold", names)?,
        booked_late: o.opt("booked_late", names)?,
        told: o.opt("told", |p, v| {
            per_seat(p, v, "the actors told they have it", |p, v| {
                texts(
                    p,
                    v,
                    "a list of actor names, e.g. [\"adam\"]",
                    "an actor's name",
                )
            })
        })?,
        final_seats: o.opt("final", |p, v| {
            per_seat(p, v, "its stored state at the end", final_seat)
        })?,
        steps: o.opt("steps", |p, v| {
            texts(
                p,
                v,
                "a list of steps, one per entry, e.g. [\"ok\", \"ok:1\"]",
                "a step",
            )
        })?,
    })
}

/// An object from seat id to what `read` reads.
fn per_seat<T>(
    path: &str,
    v: &Value,
    what: &str,
    read: impl Fn(&str, &Value) -> Result<T, ScheduleError>,
) -> Result<BTreeMap<String, T>, ScheduleError> {
    let o = Obj::of(path, v, &format!("an object from each seat id to {what}"))?;
    o.entries()
        .map(|(seat, value)| Ok((seat.clone(), read(&o.path(seat), value)?)))
        .collect()
}

fn final_seat(path: &str, v: &Value) -> Result<FinalSeat, ScheduleError> {
    let o = Obj::of(
        path,
        v,
        "a seat's state at the end, e.g. {\"status\": \"BOOKED\", \"holder\": \"adam\"}, or \
         a counter's value, e.g. {\"value\": -50}",
    )?;
    o.only(
        &["status", "holder", "value"],
        "a seat's state at the end (or a counter's value)",
    )?;
    // A counter's row ends with a value alone (`check::expect` holds it to the scenario's kind).
    if let Some(value) = o.opt("value", |p, v| {
        whole(p, v, "the counter's value at the end, e.g. -50")
    })? {
        if let Some(key) = ["status", "holder"]
            .into_iter()
            .find(|k| o.get(k).is_some())
        {
            return Err(ScheduleError::new(
                o.path(key),
                "a counter's row ends with its value alone: remove \"status\" and \"holder\"",
            ));
        }
        return Ok(FinalSeat {
            status: SeatStatus::Available,
            holder: None,
            value: Some(value),
        });
    }
    Ok(FinalSeat {
        status: status(
            &o.path("status"),
            o.need(
                "status",
                "the seat's status at the end, e.g. \"status\": \"BOOKED\"",
            )?,
        )?,
        holder: o.opt("holder", |p, v| text(p, v, "the actor holding the seat"))?,
        value: None,
    })
}
