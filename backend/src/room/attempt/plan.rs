//! Which operations a request carries out: a tap runs the room's defence up to its payment, a
//! payment runs the rest (delivered twice if the room says so), a cancel releases the hold (a
//! general-admission round has none: its ticket is sold on the tap).

use shared::schedule::{Condition, Op};

use crate::room::error::RoomError;
use crate::room::request::{Kind, Planned};
use crate::room::store::Room;

/// The operations `kind` adds, and those left for a later payment (`pending`: those a tap
/// left).
pub(super) fn plan(
    room: &Room,
    kind: &Kind,
    pending: Vec<Planned>,
) -> Result<(Vec<Planned>, Vec<Planned>), RoomError> {
    let s = &room.settings;
    Ok(match kind {
        Kind::Tap(seats) => {
            let (ops, conditions) = s.defence.program(seats);
            let all: Vec<Planned> = ops.into_iter().zip(conditions).collect();
            let pay = all
                .iter()
                .position(|(op, _)| matches!(op, Op::Pay { .. }))
                .unwrap_or(all.len());
            (all[..pay].to_vec(), all[pay..].to_vec())
        }
        Kind::Pay => {
            if pending.is_empty() {
                return Err(RoomError::Conflict(if s.defence.pays() {
                    "there is nothing to pay: tap a seat first".into()
                } else {
                    "this round's defence books on the tap: there is nothing to pay".into()
                }));
            }
            let mut ops = pending;
            if s.duplicate_payments {
                // The payment provider delivers its webhook twice.
                if let Some(last) = ops.last().cloned() {
                    ops.push(last);
                }
            }
            (ops, vec![])
        }
        Kind::Cancel if room.played.kind.is_counter() => {
            return Err(RoomError::Conflict(
                "a general-admission ticket is sold on the tap: there is no hold to cancel".into(),
            ))
        }
        Kind::Cancel => {
            let release = if s.defence.needs_redis() {
                Op::RedisRelease
            } else {
                Op::Release
            };
            (vec![(release, Condition::Held)], vec![])
        }
    })
}
