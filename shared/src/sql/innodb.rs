//! The same operations in MySQL/InnoDB's dialect (MariaDB 10.11, MySQL 8): the same columns and
//! the same WHERE conditions as PostgreSQL's text in `super`, with `?` placeholders in order, a
//! list of seats spelled `seat_id in (?, ?, …)` (one `?` a seat, seats in key order), and the
//! clock always a parameter read when the statement is sent (see the migration's head). The
//! executor on MariaDB sends exactly this text; `Statement::to_mysql` writes its parameters in.

use super::{Context, Param, Statement};
use crate::schedule::{Now, Op, SeatStatus, Wait};

/// The booking schema on InnoDB, executed in every run's own database. Its `delimiter` lines
/// are the mysql client's; `ddl_statements` cuts the text the same way.
pub const SCHEMA_DDL: &str = concat!(
    include_str!("../../../migrations/innodb/0001_booking.sql"),
    "\n",
    include_str!("../../../migrations/innodb/0002_counters.sql"),
    "\n",
    include_str!("../../../migrations/innodb/0003_usernames.sql")
);

/// The booking schema alone (`sql::ddl_of`).
pub const BOOKING_DDL: &str = include_str!("../../../migrations/innodb/0001_booking.sql");

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

/// Reads the committed counters' rows (for the per-entry snapshots), a flag's value 1 while
/// unset; `cast` keeps a flag's value a number the driver reads as one.
pub fn snapshot_counters() -> String {
    format!(
        "select id, cast(value as signed) from ({}) c",
        super::counter::snapshot_all()
    )
}

/// Inserts one seat of the scenario.
pub const INSERT_SEAT: &str =
    "insert into show_seats (show_id, seat_id, status, holder, hold_id, held_until) values (?, ?, ?, ?, ?, ?)";
/// Inserts the ticket of a seat that starts BOOKED.
pub const INSERT_BOOKING: &str =
    "insert into booking_seats (booking_id, show_id, seat_id, holder) values (?, ?, ?, ?)";
/// Sets the clock's start.
pub const SET_CLOCK: &str = "update clock set now = ?";

/// The listed seats are read (and locked) by primary key, one lookup each: `force index
/// (primary)` makes MariaDB take its range access of point intervals, where it would otherwise
/// scan the show's rows by their show_id prefix (`ref`) or the whole index, and under REPEATABLE
/// READ lock every row it examined (found by random schedules on MariaDB 10.11: a claim of
/// three seats of four waited for the fourth's holder).
const READ: &str = "select seat_id, status, holder, held_until from show_seats force index (primary)\n where show_id = ? and seat_id in ({seats})\n order by seat_id";

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
                    "update show_seats force index (primary)\n   set status = ?, holder = ?, hold_id = ?, held_until = ?\n where show_id = ? and seat_id in ({in_list})"
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
                    "update show_seats force index (primary)\n   set status = 'HELD', holder = ?, hold_id = ?, held_until = ? + ?\n where show_id = ? and seat_id in ({in_list})\n   and (status = 'AVAILABLE' or (status = 'HELD' and held_until < ?))"
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
mod tests;
