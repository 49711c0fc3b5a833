//! Two statements of a live round that were in flight at once, in words: the order a round's
//! replay gives is only one of the orders PostgreSQL could have taken there. The room's
//! facilitator reads these beside the link that opens the round in the sandbox.

use super::{join, title};
use crate::schedule::{Op, Schedule, CLOCK};

/// "Ana's claim of A1 (step 3) and Bo's claim of A1 (step 4) were in flight at once: PostgreSQL
/// may have taken them in the other order". `entries` are 0-based entries of the schedule's
/// order; `None` when either is not in it.
pub fn overlap_line(schedule: &Schedule, entries: [usize; 2]) -> Option<String> {
    let [a, b] = entries.map(|entry| deed_at(schedule, entry));
    Some(format!(
        "{} and {} were in flight at once: PostgreSQL may have taken them in the other order",
        a?, b?
    ))
}

/// Entry `entry` of the order as a noun: "Ana's claim of A1 (step 3)".
fn deed_at(schedule: &Schedule, entry: usize) -> Option<String> {
    let &actor = schedule.order().get(entry)?;
    let sent_before = schedule.order()[..entry]
        .iter()
        .filter(|&&a| a == actor)
        .count();
    let who = &schedule.actors()[actor];
    let op = who.program.get(sent_before)?;
    let whose = if who.name == CLOCK {
        "the clock's".to_string()
    } else {
        format!("{}'s", title(&who.name))
    };
    Some(format!("{whose} {} (step {})", deed(op), entry + 1))
}

/// What an operation is, as a noun: "claim of A1", "payment", "commit".
fn deed(op: &Op) -> String {
    let seats = join(op.seats());
    match op {
        Op::Begin { .. } => "begin".to_string(),
        Op::Commit => "commit".to_string(),
        Op::Rollback => "rollback".to_string(),
        Op::Read { .. } => format!("read of {seats}"),
        Op::Lock { .. } => format!("lock of {seats}"),
        Op::Write { .. } => format!("write of {seats}"),
        Op::Claim { .. } => format!("claim of {seats}"),
        Op::Book { .. } => format!("ticket for {seats}"),
        Op::Hold { .. } => format!("hold of {seats}"),
        Op::Confirm { .. } => "confirmation of the hold".to_string(),
        Op::Pay { .. } => "payment".to_string(),
        Op::Release => "release of the hold".to_string(),
        Op::RedisHold { .. } => format!("Redis hold of {seats}"),
        Op::RedisRelease => "release of the Redis hold".to_string(),
        Op::Advance { .. } => "advance".to_string(),
        Op::Sweep => "sweep of the holds that ran out".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::overlap_line;
    use crate::Schedule;

    #[test]
    fn two_claims_in_flight_at_once_are_named_with_their_steps() {
        let s = Schedule::parse_json(
            r#"{"version": 1, "name": "round",
                "scenario": {"seats": [{"id": "A1"}], "clock_unit": "second"},
                "actors": {"ana": [{"op": "begin"}, {"op": "claim", "seats": ["A1"]}, {"op": "commit"}],
                           "bo": [{"op": "claim", "seats": ["A1"]}],
                           "clock": [{"op": "advance", "minutes": 2}]},
                "order": ["ana", "ana", "bo", "ana", "clock"]}"#,
        )
        .unwrap();
        assert_eq!(
            overlap_line(&s, [1, 2]).unwrap(),
            "Ana's claim of A1 (step 2) and Bo's claim of A1 (step 3) were in flight at once: \
             PostgreSQL may have taken them in the other order"
        );
        assert!(overlap_line(&s, [3, 4])
            .unwrap()
            .starts_with("Ana's commit (step 4) and the clock's advance (step 5)"));
        assert_eq!(overlap_line(&s, [1, 9]), None);
    }
}
