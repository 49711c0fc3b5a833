//! The SQL of every operation, defined once per database: the executor sends exactly this
//! text, the page shows it, and the psql export prints it with the parameters written in. The
//! schema's DDL is the migration file itself. This module is PostgreSQL's; `innodb` is the same
//! operations in MySQL/InnoDB's dialect; `redis` the Redis hold's commands.

pub mod counter;
pub mod innodb;
mod redis;
pub mod username;

pub use redis::{redis_hold_command, redis_key, redis_release_command};

use crate::schedule::{Database, Now, Op, Schedule, SeatStatus};

/// The booking schema, the counters' and the usernames' tables: the migrations also executed in every run's
/// own schema (the rooms' migrations are not).
pub const SCHEMA_DDL: &str = concat!(
    include_str!("../../../migrations/0001_booking.sql"),
    "\n",
    include_str!("../../../migrations/0004_counters.sql"),
    "\n",
    include_str!("../../../migrations/0005_usernames.sql")
);

/// The booking schema alone: the tables a race for numbered seats uses.
pub const BOOKING_DDL: &str = include_str!("../../../migrations/0001_booking.sql");

/// The tables an export of `schedule` creates: the booking schema for numbered seats (all the
/// page's first bundle carries), every run's whole schema for another shape.
pub fn ddl_of(schedule: &Schedule) -> &'static str {
    let kind = schedule.scenario().kind;
    if kind.is_counter() || kind.is_username() {
        return match schedule.database() {
            Database::Postgresql => SCHEMA_DDL,
            Database::Innodb => innodb::SCHEMA_DDL,
        };
    }
    match schedule.database() {
        Database::Postgresql => BOOKING_DDL,
        Database::Innodb => innodb::BOOKING_DDL,
    }
}

/// The `deadlock_timeout` of every actor's connection (in `SESSION_SETTINGS`), in ms.
pub const DEADLOCK_TIMEOUT_MS: u64 = 1000;

/// Session settings of every actor's connection. Index scans only, so that multi-row
/// statements visit (and lock) seats in key order, as the model does; PostgreSQL's default
/// deadlock timeout, far longer than the gap the executor leaves between two waits (50 ms), so
/// that the transaction that started waiting first is the one whose deadlock check fires first,
/// and after the cycle closed; custom plans only,
/// so that the functions' cached statements never switch to a generic plan after five calls.
pub const SESSION_SETTINGS: &str = "set enable_seqscan = off; set enable_bitmapscan = off; \
     set deadlock_timeout = '1000ms'; set statement_timeout = '20s'; set lock_timeout = 0; \
     set idle_in_transaction_session_timeout = '60s'; set plan_cache_mode = force_custom_plan";

/// Reads the committed seat rows (for the per-entry snapshots).
pub const SNAPSHOT_SEATS: &str =
    "select seat_id, status, holder, hold_id, held_until from show_seats where show_id = $1 order by seat_id";
/// Reads the committed ticket rows.
pub const SNAPSHOT_BOOKINGS: &str =
    "select seat_id, holder, booking_id from booking_seats where show_id = $1 order by seat_id, booking_id";
/// Reads the refunds owed.
pub const SNAPSHOT_REFUNDS: &str = "select holder from refund_outbox order by holder";
/// Reads the virtual clock.
pub const SNAPSHOT_CLOCK: &str = "select clock_now()";

/// Inserts one seat of the scenario.
pub const INSERT_SEAT: &str =
    "insert into show_seats (show_id, seat_id, status, holder, hold_id, held_until) values ($1, $2, $3, $4, $5, $6)";
/// Inserts the ticket of a seat that starts BOOKED.
pub const INSERT_BOOKING: &str =
    "insert into booking_seats (booking_id, show_id, seat_id, holder) values ($1, $2, $3, $4)";
/// Sets the clock's start.
pub const SET_CLOCK: &str = "select setval('clock', $1)";

/// A parameter of a statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Param {
    Int(i64),
    OptInt(Option<i64>),
    Text(String),
    OptText(Option<String>),
    TextArray(Vec<String>),
}

impl Param {
    /// The parameter as a SQL literal (for the psql export; every value is ours, quoted anyway).
    pub fn literal(&self) -> String {
        fn quote(s: &str) -> String {
            format!("'{}'", s.replace('\'', "''"))
        }
        match self {
            Param::Int(n) => n.to_string(),
            Param::OptInt(Some(n)) => n.to_string(),
            Param::OptInt(None) | Param::OptText(None) => "null".to_string(),
            Param::Text(s) | Param::OptText(Some(s)) => quote(s),
            Param::TextArray(v) => format!("{}::text[]", quote(&format!("{{{}}}", v.join(",")))),
        }
    }

    /// The parameter as a MySQL literal (backslashes escaped too: MySQL's default SQL mode
    /// reads them as escapes). An array, which MySQL has not, is its comma-separated text.
    pub fn mysql_literal(&self) -> String {
        fn quote(s: &str) -> String {
            format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
        }
        match self {
            Param::TextArray(v) => quote(&v.join(",")),
            Param::Text(s) | Param::OptText(Some(s)) => quote(s),
            other => other.literal(),
        }
    }
}

/// One round trip: SQL text with placeholders (`$n` on PostgreSQL, `?` on InnoDB) and its
/// parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    pub sql: String,
    pub params: Vec<Param>,
}

impl Statement {
    fn new(sql: impl Into<String>, params: Vec<Param>) -> Statement {
        Statement {
            sql: sql.into(),
            params,
        }
    }

    /// The statement with its parameters written in, ready to paste into psql.
    pub fn to_psql(&self) -> String {
        let mut out = self.sql.clone();
        // Highest index first, so that $1 does not eat the start of $10.
        for (i, p) in self.params.iter().enumerate().rev() {
            out = out.replace(&format!("${}", i + 1), &p.literal());
        }
        out
    }

    /// The statement with its `?` parameters written in, in order, ready to paste into the
    /// mysql client (InnoDB's dialect, `innodb::statement`).
    pub fn to_mysql(&self) -> String {
        let mut out = String::with_capacity(self.sql.len());
        let mut params = self.params.iter().peekable();
        for c in self.sql.chars() {
            match params.next_if(|_| c == '?') {
                Some(p) => out.push_str(&p.mysql_literal()),
                None => out.push(c),
            }
        }
        out
    }
}

/// What an operation's SQL depends on besides the op itself.
#[derive(Clone, Debug)]
pub struct Context<'a> {
    pub show: i64,
    pub actor: &'a str,
    pub hold_minutes: i64,
    /// The hold id this op would create (`claim`, `write`, `book`, `hold`).
    pub new_hold_id: String,
    /// The hold this actor has now (`confirm`, `release`), or a placeholder id owning nothing.
    pub current_hold: String,
    /// The clock when this actor's transaction began, or now if it has none open.
    pub tx_clock: i64,
    /// The clock now, as the statement is sent.
    pub clock: i64,
}

/// The hold id created by the op at `op_index` of `actor`'s program: a retry of the same
/// attempt reuses the id, so the database can recognise it.
pub fn hold_id(actor: &str, op_index: usize, op: &Op) -> String {
    match op {
        Op::Hold {
            attempt: Some(a), ..
        } => format!("{actor}:{a}"),
        _ => format!("{actor}:{}", op_index + 1),
    }
}

/// The hold id of a seat that is HELD or BOOKED when the scenario starts.
pub fn initial_hold(holder: &str) -> String {
    format!("{holder}:initial")
}

/// The placeholder hold id of an actor that holds nothing: it matches no row.
pub fn no_hold(actor: &str) -> String {
    format!("{actor}:none")
}

const READ: &str = "select seat_id, status, holder, held_until from show_seats\n where show_id = $1 and seat_id = any($2)\n order by seat_id";

/// The SQL of an operation; `None` for `pay` and the Redis ops, which talk to the payment
/// provider and to Redis instead.
pub fn statement(op: &Op, cx: &Context<'_>) -> Option<Statement> {
    use Param::*;
    let show = Int(cx.show);
    let seats = || TextArray(op.seats().to_vec());
    let now_of = |now: Now| match now {
        Now::Transaction => Int(cx.tx_clock),
        Now::Statement | Now::Evaluation => Int(cx.clock),
    };
    let st = match op {
        Op::Begin { isolation } => Statement::new(format!("begin isolation level {}", isolation.as_sql()), vec![]),
        Op::Commit => Statement::new("commit", vec![]),
        Op::Rollback => Statement::new("rollback", vec![]),
        Op::Read { .. } => Statement::new(READ, vec![show, seats()]),
        Op::Lock { wait, .. } => {
            let tail = match wait {
                crate::schedule::Wait::Wait => "",
                crate::schedule::Wait::Nowait => " nowait",
                crate::schedule::Wait::SkipLocked => " skip locked",
            };
            Statement::new(format!("{READ}\n   for update of show_seats{tail}"), vec![show, seats()])
        }
        Op::Write { status, .. } => {
            let until = match status {
                SeatStatus::Held => Some(cx.tx_clock + cx.hold_minutes),
                _ => None,
            };
            Statement::new(
                "update show_seats\n   set status = $3, holder = $4, hold_id = $5, held_until = $6\n where show_id = $1 and seat_id = any($2)",
                vec![show, seats(), Text(status.as_sql().into()), Text(cx.actor.into()), Text(cx.new_hold_id.clone()), OptInt(until)],
            )
        }
        Op::Claim { .. } => {
            let now = if op.now() == Now::Evaluation { "clock_now()" } else { "$6" };
            let mut params = vec![show, seats(), Text(cx.actor.into()), Text(cx.new_hold_id.clone()), Int(cx.hold_minutes)];
            if op.now() != Now::Evaluation {
                params.push(now_of(op.now()));
            }
            Statement::new(
                format!(
                    "update show_seats\n   set status = 'HELD', holder = $3, hold_id = $4, held_until = {now} + $5\n where show_id = $1 and seat_id = any($2)\n   and (status = 'AVAILABLE' or (status = 'HELD' and held_until < {now}))"
                ),
                params,
            )
        }
        Op::Book { .. } => Statement::new(
            "insert into booking_seats (booking_id, show_id, seat_id, holder)\nselect $3, $1, s, $4 from unnest($2::text[]) as s",
            vec![show, seats(), Text(cx.new_hold_id.clone()), Text(cx.actor.into())],
        ),
        Op::Hold { .. } => Statement::new(
            "select hold_seats($1, $2, $3, $4, $5, $6, $7)",
            vec![
                show,
                seats(),
                Text(cx.actor.into()),
                Text(cx.new_hold_id.clone()),
                Int(cx.hold_minutes),
                Text(op.now().as_str().into()),
                now_of(op.now()),
            ],
        ),
        Op::Confirm { .. } => Statement::new(
            "select confirm_hold($1, $2, $3, $4, $5)",
            vec![show, Text(cx.actor.into()), Text(cx.current_hold.clone()), Text(op.now().as_str().into()), now_of(op.now())],
        ),
        Op::Release => Statement::new(
            "update show_seats\n   set status = 'AVAILABLE', holder = null, hold_id = null, held_until = null\n where show_id = $1 and hold_id = $2 and status = 'HELD'",
            vec![show, Text(cx.current_hold.clone())],
        ),
        Op::Advance { minutes } => Statement::new("select setval('clock', clock_now() + $1)", vec![Int(*minutes)]),
        Op::Sweep => Statement::new(
            "update show_seats\n   set status = 'AVAILABLE', holder = null, hold_id = null, held_until = null\n where show_id = $1 and status = 'HELD' and held_until < clock_now()",
            vec![show],
        ),
        Op::Pay { .. } | Op::RedisHold { .. } | Op::RedisRelease => return None,
    };
    Some(st)
}

/// The SQL of an operation on `database`: PostgreSQL's (`statement`) or InnoDB's
/// (`innodb::statement`).
pub fn statement_on(database: Database, op: &Op, cx: &Context<'_>) -> Option<Statement> {
    match database {
        Database::Postgresql => statement(op, cx),
        Database::Innodb => innodb::statement(op, cx),
    }
}

/// The SQL of an operation of `schedule`: on a counter's rows `counter::statement`, on seats
/// `statement_on` its database.
pub fn statement_of(schedule: &Schedule, op: &Op, cx: &Context<'_>) -> Option<Statement> {
    let scenario = schedule.scenario();
    if scenario.kind.is_username() && !op.is_begin_or_end() {
        return username::statement(schedule.database(), op, cx);
    }
    if scenario.kind.is_counter() && !op.is_begin_or_end() {
        return counter::statement(schedule.database(), scenario.kind, scenario.take, op);
    }
    statement_on(schedule.database(), op, cx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psql_export_writes_parameters_in_without_mixing_up_indices() {
        let st = Statement::new("select $1, $10, $2", (1..=10).map(Param::Int).collect());
        assert_eq!(st.to_psql(), "select 1, 10, 2");
    }

    #[test]
    fn the_sessions_deadlock_timeout_is_the_one_the_executor_waits_out() {
        let setting = format!("set deadlock_timeout = '{DEADLOCK_TIMEOUT_MS}ms';");
        assert!(SESSION_SETTINGS.contains(&setting), "{SESSION_SETTINGS}");
    }

    #[test]
    fn text_is_quoted_for_psql() {
        assert_eq!(Param::Text("o'neil".into()).literal(), "'o''neil'");
        assert_eq!(
            Param::TextArray(vec!["A7".into(), "A8".into()]).literal(),
            "'{A7,A8}'::text[]"
        );
    }
}
