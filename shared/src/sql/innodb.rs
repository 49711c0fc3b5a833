//! The same operations in MySQL/InnoDB's dialect (MariaDB 10.11, MySQL 8): the same columns and
//! the same WHERE conditions as PostgreSQL's text in `super`, with `?` placeholders in order, a
//! list of seats spelled `seat_id in (?, ?, …)` (one `?` a seat, seats in key order), and the
//! clock always a parameter read when the statement is sent (see the migration's head). The
//! executor on MariaDB sends exactly this text; `Statement::to_mysql` writes its parameters in.

use super::{Context, Param, Statement};
use crate::schedule::{Now, Op, SeatStatus, Wait};

/// The booking schema on InnoDB, executed in every run's own database. Its `delimiter` lines
/// are the mysql client's; `ddl_statements` cuts the text the same way.
pub const SCHEMA_DDL: &str = include_str!("../../../migrations/innodb/0001_booking.sql");

/// The lock wait timeout of every actor's connection, in seconds (PostgreSQL's
/// `statement_timeout`): a wait the model calls unbounded ends in 1205 after this long.
pub const LOCK_WAIT_TIMEOUT_S: u64 = 20;

/// Session settings of every actor's connection, one statement each: the lock wait timeout,
/// REPEATABLE READ (InnoDB's default) for what runs outside a `begin`, and byte-order text.
pub const SESSION_SETTINGS: [&str; 3] = [
    "set session innodb_lock_wait_timeout = 20",
    "set session transaction isolation level repeatable read",
    "set names utf8mb4 collate utf8mb4_bin",
];

/// Reads the committed seat rows (for the per-entry snapshots, at READ COMMITTED).
pub const SNAPSHOT_SEATS: &str =
    "select seat_id, status, holder, hold_id, held_until from show_seats where show_id = ? order by seat_id";
/// Reads the committed ticket rows.
pub const SNAPSHOT_BOOKINGS: &str =
    "select seat_id, holder, booking_id from booking_seats where show_id = ? order by seat_id, booking_id";
/// Reads the refunds owed.
pub const SNAPSHOT_REFUNDS: &str = "select holder from refund_outbox order by holder";
/// Reads the virtual clock.
pub const SNAPSHOT_CLOCK: &str = "select now from clock";

/// Inserts one seat of the scenario.
pub const INSERT_SEAT: &str =
    "insert into show_seats (show_id, seat_id, status, holder, hold_id, held_until) values (?, ?, ?, ?, ?, ?)";
/// Inserts the ticket of a seat that starts BOOKED.
pub const INSERT_BOOKING: &str =
    "insert into booking_seats (booking_id, show_id, seat_id, holder) values (?, ?, ?, ?)";
/// Sets the clock's start.
pub const SET_CLOCK: &str = "update clock set now = ?";

const READ: &str = "select seat_id, status, holder, held_until from show_seats\n where show_id = ? and seat_id in ({seats})\n order by seat_id";

/// The op's seats in key order (byte order, as the utf8mb4_bin columns compare).
fn sorted_seats(op: &Op) -> Vec<String> {
    let mut seats = op.seats().to_vec();
    seats.sort();
    seats
}

/// `?, ?, …`, one a seat.
fn marks(n: usize) -> String {
    vec!["?"; n].join(", ")
}

/// The SQL of an operation on InnoDB; `None` for `pay` and the Redis ops.
pub fn statement(op: &Op, cx: &Context<'_>) -> Option<Statement> {
    use Param::*;
    let seats = sorted_seats(op);
    let in_list = marks(seats.len());
    let show_and_seats = || {
        let mut p = vec![Int(cx.show)];
        p.extend(seats.iter().cloned().map(Text));
        p
    };
    // The clock a deadline test reads: the transaction's start, or the clock as the statement
    // is sent (`statement` and `evaluation` alike: see the module's head).
    let now_of = |now: Now| match now {
        Now::Transaction => Int(cx.tx_clock),
        Now::Statement | Now::Evaluation => Int(cx.clock),
    };
    let read = READ.replace("{seats}", &in_list);
    let st = match op {
        Op::Begin { isolation } => Statement::new(
            format!("set transaction isolation level {};\nstart transaction", isolation.as_sql()),
            vec![],
        ),
        Op::Commit => Statement::new("commit", vec![]),
        Op::Rollback => Statement::new("rollback", vec![]),
        Op::Read { .. } => Statement::new(read, show_and_seats()),
        Op::Lock { wait, .. } => {
            let tail = match wait {
                Wait::Wait => "",
                Wait::Nowait => " nowait",
                Wait::SkipLocked => " skip locked",
            };
            Statement::new(format!("{read}\n   for update{tail}"), show_and_seats())
        }
        Op::Write { status, .. } => {
            let until = match status {
                SeatStatus::Held => Some(cx.tx_clock + cx.hold_minutes),
                _ => None,
            };
            let mut params = vec![
                Text(status.as_sql().into()),
                Text(cx.actor.into()),
                Text(cx.new_hold_id.clone()),
                OptInt(until),
            ];
            params.extend(show_and_seats());
            Statement::new(
                format!(
                    "update show_seats\n   set status = ?, holder = ?, hold_id = ?, held_until = ?\n where show_id = ? and seat_id in ({in_list})"
                ),
                params,
            )
        }
        Op::Claim { .. } => {
            let mut params = vec![
                Text(cx.actor.into()),
                Text(cx.new_hold_id.clone()),
                now_of(op.now()),
                Int(cx.hold_minutes),
            ];
            params.extend(show_and_seats());
            params.push(now_of(op.now()));
            Statement::new(
                format!(
                    "update show_seats\n   set status = 'HELD', holder = ?, hold_id = ?, held_until = ? + ?\n where show_id = ? and seat_id in ({in_list})\n   and (status = 'AVAILABLE' or (status = 'HELD' and held_until < ?))"
                ),
                params,
            )
        }
        Op::Book { .. } => {
            let rows = vec!["(?, ?, ?, ?)"; seats.len()].join(", ");
            let params = seats
                .iter()
                .flat_map(|s| {
                    [
                        Text(cx.new_hold_id.clone()),
                        Int(cx.show),
                        Text(s.clone()),
                        Text(cx.actor.into()),
                    ]
                })
                .collect();
            Statement::new(
                format!("insert into booking_seats (booking_id, show_id, seat_id, holder)\nvalues {rows}"),
                params,
            )
        }
        Op::Hold { .. } => Statement::new(
            "call hold_seats(?, ?, ?, ?, ?, ?, ?)",
            vec![
                Int(cx.show),
                Text(seats.join(",")),
                Text(cx.actor.into()),
                Text(cx.new_hold_id.clone()),
                Int(cx.hold_minutes),
                Text(op.now().as_str().into()),
                now_of(op.now()),
            ],
        ),
        Op::Confirm { .. } => Statement::new(
            "call confirm_hold(?, ?, ?, ?, ?)",
            vec![
                Int(cx.show),
                Text(cx.actor.into()),
                Text(cx.current_hold.clone()),
                Text(op.now().as_str().into()),
                now_of(op.now()),
            ],
        ),
        Op::Release => Statement::new(
            "update show_seats\n   set status = 'AVAILABLE', holder = null, hold_id = null, held_until = null\n where show_id = ? and hold_id = ? and status = 'HELD'",
            vec![Int(cx.show), Text(cx.current_hold.clone())],
        ),
        Op::Advance { minutes } => {
            Statement::new("update clock set now = now + ?", vec![Int(*minutes)])
        }
        Op::Sweep => Statement::new(
            "update show_seats\n   set status = 'AVAILABLE', holder = null, hold_id = null, held_until = null\n where show_id = ? and status = 'HELD' and held_until < ?",
            vec![Int(cx.show), Int(cx.clock)],
        ),
        Op::Pay { .. } | Op::RedisHold { .. } | Op::RedisRelease => return None,
    };
    Some(st)
}

/// The migration's statements, as the mysql client cuts them: `;` ends a statement until a
/// `delimiter X` line makes `X` the end instead. Whole-line comments are dropped first (a `;` in
/// one ends nothing).
pub fn ddl_statements(ddl: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut delimiter = ";".to_string();
    let mut current = String::new();
    for line in ddl.lines().filter(|l| !l.trim_start().starts_with("--")) {
        if let Some(d) = line.trim().strip_prefix("delimiter ") {
            delimiter = d.trim().to_string();
            continue;
        }
        current.push_str(line);
        current.push('\n');
        while let Some(end) = current.find(&delimiter) {
            let piece = current[..end].to_string();
            current = current[end + delimiter.len()..].to_string();
            push_piece(&mut out, &piece);
        }
    }
    push_piece(&mut out, &current);
    out
}

fn push_piece(out: &mut Vec<String>, piece: &str) {
    if !piece.trim().is_empty() {
        out.push(piece.trim().to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::Isolation;

    fn cx() -> Context<'static> {
        Context {
            show: 7,
            actor: "ann",
            hold_minutes: 10,
            new_hold_id: "ann:2".into(),
            current_hold: "ann:1".into(),
            tx_clock: 3,
            clock: 5,
        }
    }

    fn mysql(op: Op) -> String {
        statement(&op, &cx()).expect("sql").to_mysql()
    }

    #[test]
    fn a_list_of_seats_is_one_mark_a_seat_in_key_order() {
        let op = Op::Lock {
            seats: vec!["B1".into(), "A10".into(), "A9".into()],
            wait: Wait::SkipLocked,
        };
        assert_eq!(
            mysql(op),
            "select seat_id, status, holder, held_until from show_seats\n where show_id = 7 and seat_id in ('A10', 'A9', 'B1')\n order by seat_id\n   for update skip locked"
        );
    }

    #[test]
    fn the_clock_is_a_parameter_read_when_the_statement_is_sent() {
        let claim = |now| Op::Claim {
            seats: vec!["A1".into()],
            now: Some(now),
        };
        assert!(mysql(claim(Now::Transaction)).contains("held_until = 3 + 10"));
        assert!(mysql(claim(Now::Evaluation)).contains("held_until < 5))"));
        assert!(mysql(Op::Sweep).ends_with("held_until < 5"));
        let hold = Op::Hold {
            seats: vec!["A2".into(), "A1".into()],
            attempt: None,
            now: None,
        };
        assert_eq!(
            mysql(hold),
            "call hold_seats(7, 'A1,A2', 'ann', 'ann:2', 10, 'evaluation', 5)"
        );
    }

    #[test]
    fn begin_is_two_statements_and_book_one_insert() {
        let begin = Op::Begin {
            isolation: Isolation::RepeatableRead,
        };
        assert_eq!(
            mysql(begin),
            "set transaction isolation level repeatable read;\nstart transaction"
        );
        let book = Op::Book {
            seats: vec!["A2".into(), "A1".into()],
        };
        assert_eq!(
            mysql(book),
            "insert into booking_seats (booking_id, show_id, seat_id, holder)\nvalues ('ann:2', 7, 'A1', 'ann'), ('ann:2', 7, 'A2', 'ann')"
        );
    }

    #[test]
    fn every_statement_has_as_many_marks_as_parameters() {
        let seats = vec!["A1".to_string(), "A2".to_string()];
        let ops = [
            Op::Read {
                seats: seats.clone(),
            },
            Op::Write {
                seats: seats.clone(),
                status: SeatStatus::Held,
            },
            Op::Claim {
                seats: seats.clone(),
                now: None,
            },
            Op::Book {
                seats: seats.clone(),
            },
            Op::Hold {
                seats,
                attempt: None,
                now: None,
            },
            Op::Confirm { now: None },
            Op::Release,
            Op::Advance { minutes: 3 },
            Op::Sweep,
        ];
        for op in ops {
            let st = statement(&op, &cx()).expect("sql");
            assert_eq!(st.sql.matches('?').count(), st.params.len(), "{}", st.sql);
        }
    }

    #[test]
    fn the_migration_cuts_into_statements_at_its_delimiters() {
        let steps = ddl_statements(SCHEMA_DDL);
        assert!(steps.iter().all(|s| !s.contains("delimiter")));
        let procs: Vec<_> = steps
            .iter()
            .filter(|s| s.starts_with("create procedure"))
            .collect();
        assert_eq!(procs.len(), 2);
        assert!(procs.iter().all(|p| p.trim_end().ends_with("end")));
        assert!(steps.iter().any(|s| s.starts_with("insert into clock")));
    }

    #[test]
    fn text_is_quoted_for_mysql() {
        let st = Statement::new(
            "select ?, ?, ?",
            vec![
                Param::Text("o'ne\\il?".into()),
                Param::OptInt(None),
                Param::Int(4),
            ],
        );
        assert_eq!(st.to_mysql(), r"select 'o''ne\\il?', null, 4");
    }
}
