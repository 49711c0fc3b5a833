//! The check of a schedule's `expect`: each key it gives against the outcome (keys it does
//! not give are not checked).

use crate::outcome::Outcome;
use crate::schedule::Schedule;

/// Where the outcome fails the schedule's `expect`; empty if it holds (or there is none).
pub fn check_expect(schedule: &Schedule, outcome: &Outcome) -> Vec<String> {
    let Some(expect) = schedule.expect() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let v = &outcome.verdict;
    let mut check = |key: &str, want: String, got: String| {
        if want != got {
            out.push(format!("expect.{key}: expected {want}, got {got}"));
        }
    };
    if let Some(want) = expect.double_booked {
        check(
            "double_booked",
            want.to_string(),
            v.double_booked.to_string(),
        );
    }
    if let Some(want) = expect.lost_seat {
        check("lost_seat", want.to_string(), v.lost_seat.to_string());
    }
    if let Some(want) = &expect.refund_due {
        check(
            "refund_due",
            format!("{:?}", sorted(want)),
            format!("{:?}", v.refund_due),
        );
    }
    if let Some(want) = &expect.unpaid_hold {
        check(
            "unpaid_hold",
            format!("{:?}", sorted(want)),
            format!("{:?}", v.unpaid_hold),
        );
    }
    if let Some(want) = &expect.booked_late {
        check(
            "booked_late",
            format!("{:?}", sorted(want)),
            format!("{:?}", sorted(&v.booked_late)),
        );
    }
    if let Some(want) = &expect.told {
        for (seat, actors) in want {
            let got = outcome
                .seats
                .get(seat)
                .map(|s| s.told.clone())
                .unwrap_or_default();
            check(
                &format!("told.{seat}"),
                format!("{:?}", sorted(actors)),
                format!("{got:?}"),
            );
        }
    }
    if let Some(want) = &expect.final_seats {
        for (seat, f) in want {
            let got = outcome.seats.get(seat);
            if let Some(value) = f.value {
                check(
                    &format!("final.{seat}.value"),
                    value.to_string(),
                    got.and_then(|s| s.value)
                        .map(|v| v.to_string())
                        .unwrap_or_default(),
                );
                continue;
            }
            check(
                &format!("final.{seat}"),
                format!("{} {:?}", f.status.as_sql(), f.holder),
                got.map(|s| format!("{} {:?}", s.status.as_sql(), s.holder))
                    .unwrap_or_default(),
            );
        }
    }
    if let Some(want) = &expect.steps {
        for (k, (w, e)) in want.iter().zip(&outcome.entries).enumerate() {
            check(&format!("steps[{k}]"), w.clone(), e.step.clone());
        }
    }
    out
}

fn sorted(v: &[String]) -> Vec<String> {
    let mut v = v.to_vec();
    v.sort();
    v.dedup();
    v
}
