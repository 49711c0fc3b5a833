//! What the tester prints under a step once it is done: an error in PostgreSQL's words, or the
//! rows, aligned as libpq's `PQprint` aligns them.

use super::super::Sent;
use crate::outcome::{Outcome, StepResult};
use crate::schedule::Op;

/// What the tester prints under a step once it is done: an error, or the rows it returned.
pub(super) fn result(sent: &Sent<'_>, outcome: &Outcome) -> String {
    let Some(result) = sent.result() else {
        return "ERROR:  canceling statement due to statement timeout\n".to_string();
    };
    if let StepResult::Error { message, .. } = result {
        return format!("ERROR:  {}\n", message);
    }
    let table_of = sent
        .counter
        .and_then(|c| crate::sql::counter::table(c.kind()));
    match (sent.op, result) {
        (Op::Read { .. } | Op::Lock { .. }, _) if table_of.is_some() => {
            let t = table_of.expect("a counter's table");
            let rows: Vec<Vec<String>> = sent
                .entry
                .map(|e| {
                    e.trace
                        .seen
                        .iter()
                        .map(|r| {
                            let v = r.value.unwrap_or(0);
                            // psql prints a boolean as t or f; a coupon's value is 1 while unused.
                            let shown = match t.is_flag() {
                                true if v >= 1 => "f".to_string(),
                                true => "t".to_string(),
                                false => v.to_string(),
                            };
                            vec![r.seat.clone(), shown]
                        })
                        .collect()
                })
                .unwrap_or_default();
            table(&[t.key, t.column], &rows)
        }
        // A username's: the name, once per account that has it.
        (Op::Read { .. } | Op::Lock { .. }, _) if sent.username().is_some() => {
            let rows: Vec<Vec<String>> = sent
                .entry
                .map(|e| e.trace.seen.iter().map(|r| vec![r.seat.clone()]).collect())
                .unwrap_or_default();
            table(&["username"], &rows)
        }
        (Op::Read { .. } | Op::Lock { .. }, _) => {
            let rows: Vec<Vec<String>> = sent
                .entry
                .map(|e| {
                    e.trace
                        .seen
                        .iter()
                        .map(|r| {
                            vec![
                                r.seat.clone(),
                                r.status.as_sql().to_string(),
                                r.holder.clone().unwrap_or_default(),
                                r.until.map(|u| u.to_string()).unwrap_or_default(),
                            ]
                        })
                        .collect()
                })
                .unwrap_or_default();
            table(&["seat_id", "status", "holder", "held_until"], &rows)
        }
        (Op::Hold { .. }, StepResult::Answer { answer }) => {
            table(&["hold_seats"], &[vec![answer.as_str().to_string()]])
        }
        (Op::Confirm { .. }, StepResult::Answer { answer }) => {
            table(&["confirm_hold"], &[vec![answer.as_str().to_string()]])
        }
        (Op::Advance { .. }, _) => {
            let clock = sent
                .completed_after()
                .and_then(|c| outcome.entries.get(c))
                .map_or(0, |e| e.trace.tables.clock);
            setval(clock)
        }
        _ => String::new(),
    }
}

/// What the clock's `setval` returns: the clock.
pub(super) fn setval(clock: i64) -> String {
    table(&["setval"], &[vec![clock.to_string()]])
}

/// A result set as libpq's `PQprint` aligns it for the tester: columns that hold only numbers
/// (or nulls) to the right, the others to the left, `|` between them.
fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let numeric: Vec<bool> = (0..header.len())
        .map(|j| rows.iter().all(|r| looks_numeric(&r[j])))
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|j| {
            rows.iter()
                .map(|r| r[j].len())
                .chain([header[j].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| -> String {
        let cells: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(j, c)| {
                if numeric[j] {
                    format!("{c:>w$}", w = widths[j])
                } else {
                    format!("{c:<w$}", w = widths[j])
                }
            })
            .collect();
        cells.join("|") + "\n"
    };
    let mut out = line(header.to_vec());
    out.push_str(
        &widths
            .iter()
            .map(|&w| "-".repeat(w))
            .collect::<Vec<_>>()
            .join("+"),
    );
    out.push('\n');
    for row in rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    let n = rows.len();
    out.push_str(&format!("({n} row{})\n\n", if n == 1 { "" } else { "s" }));
    out
}

/// `PQprint`'s test: digits, `.`, `E`, `e`, space and `-` only, not starting with an `E`, and
/// ending in a digit (an empty value passes).
fn looks_numeric(value: &str) -> bool {
    if value.is_empty() {
        return true;
    }
    value
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'E' | 'e' | ' ' | '-'))
        && !value.starts_with(['E', 'e'])
        && value.ends_with(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_set_is_aligned_as_pqprint_aligns_it() {
        let rows = vec![
            vec![
                "A12".into(),
                "AVAILABLE".into(),
                String::new(),
                String::new(),
            ],
            vec!["A7".into(), "HELD".into(), "adam".into(), "10".into()],
        ];
        assert_eq!(
            table(&["seat_id", "status", "holder", "held_until"], &rows),
            "seat_id|status   |holder|held_until\n-------+---------+------+----------\n\
             A12    |AVAILABLE|      |          \nA7     |HELD     |adam  |        10\n(2 rows)\n\n"
        );
        assert_eq!(
            table(&["setval"], &[vec!["11".into()]]),
            "setval\n------\n    11\n(1 row)\n\n"
        );
    }
}
