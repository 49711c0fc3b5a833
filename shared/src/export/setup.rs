//! What the setup script runs, as the executor does: the migration in a schema of its own, the
//! seats and their tickets (or a counter's rows), the clock's start; and the settings of every
//! session.

use crate::counter_words::CounterWords;
use crate::schedule::{Database, Schedule, SeatStatus};
use crate::sql::{self, Param, Statement};

/// A counter scenario's rows as the executors seed them (`Table::insert`, one statement a row)
/// in `database`'s dialect, under a comment saying what they are (a username's, its seed);
/// `None` for seats.
pub(super) fn counter_rows(schedule: &Schedule, database: Database) -> Option<String> {
    if let Some(rows) = super::username::rows(schedule, database) {
        return Some(rows);
    }
    let scenario = schedule.scenario();
    let table = sql::counter::table(scenario.kind)?;
    let words = CounterWords::of(scenario)?;
    let rows: Vec<String> = scenario
        .seats
        .iter()
        .map(|r| words.with_value(&r.id, r.value.unwrap_or(0)))
        .collect();
    let mut out = format!(
        "\n-- The scenario's rows in {} ({}), each request {}: {}.\n",
        table.name,
        scenario.kind.id(),
        match words.take() {
            1 if table.is_flag() => "uses it".to_string(),
            take => format!("takes {take}"),
        },
        crate::explain::join(&rows)
    );
    for row in &scenario.seats {
        let insert = Statement {
            sql: table.insert(database),
            params: vec![
                Param::Text(row.id.clone()),
                Param::Int(row.value.unwrap_or(0)),
            ],
        };
        let text = match database {
            Database::Postgresql => insert.to_psql(),
            Database::Innodb => insert.to_mysql(),
        };
        out.push_str(&format!("{text};\n"));
    }
    Some(out)
}

/// The comment over the scenario's rows: the show, its holds and the clock, or a counter's clock
/// alone (its rows say what they are below it).
pub(super) fn scenario_comment(schedule: &Schedule) -> String {
    let scenario = schedule.scenario();
    let unit = scenario.clock_unit;
    if !scenario.kind.is_seats() {
        return format!("\n-- The clock at {}.\n", unit.at(scenario.clock));
    }
    format!(
        "\n-- The scenario: show {}, holds of {}, the clock at {}.\n",
        scenario.show,
        unit.span(scenario.hold_minutes),
        unit.at(scenario.clock)
    )
}

/// Whether the setup ends on the clock's `setval`, which returns a row: no row of the scenario
/// is inserted after it (a username no account has yet).
pub(super) fn ends_on_clock(schedule: &Schedule) -> bool {
    crate::username_words::UsernameWords::of(schedule.scenario())
        .is_some_and(|u| !u.taken_at_start())
}

/// What the setup runs, as the executor does it: the migration in a fresh schema, the seats
/// and their tickets, the clock's start, with `ddl` as the migration's text.
pub(super) fn setup_sql(schedule: &Schedule, schema: &str, ddl: &str) -> String {
    let scenario = schedule.scenario();
    let quoted = quote_ident(schema);
    let mut out = format!(
        "set client_min_messages = warning;\ndrop schema if exists {quoted} cascade;\ncreate schema {quoted};\nset search_path to {quoted};\n\n{}\n",
        ddl.trim_end()
    );
    out.push_str(&scenario_comment(schedule));
    let clock = Statement {
        sql: sql::SET_CLOCK.to_string(),
        params: vec![Param::Int(scenario.clock)],
    };
    out.push_str(&format!("{};\n", clock.to_psql()));
    if let Some(rows) = counter_rows(schedule, Database::Postgresql) {
        out.push_str(&rows);
        return out;
    }
    for seat in &scenario.seats {
        let hold_id = match seat.status {
            SeatStatus::Available => None,
            SeatStatus::Held | SeatStatus::Booked => seat.holder.as_deref().map(sql::initial_hold),
        };
        let insert = Statement {
            sql: sql::INSERT_SEAT.to_string(),
            params: vec![
                Param::Int(scenario.show),
                Param::Text(seat.id.clone()),
                Param::Text(seat.status.as_sql().to_string()),
                Param::OptText(seat.holder.clone()),
                Param::OptText(hold_id.clone()),
                Param::OptInt(seat.until),
            ],
        };
        out.push_str(&format!("{};\n", insert.to_psql()));
        if let (SeatStatus::Booked, Some(holder), Some(booking)) =
            (seat.status, &seat.holder, hold_id)
        {
            let ticket = Statement {
                sql: sql::INSERT_BOOKING.to_string(),
                params: vec![
                    Param::Text(booking),
                    Param::Int(scenario.show),
                    Param::Text(seat.id.clone()),
                    Param::Text(holder.clone()),
                ],
            };
            out.push_str(&format!("{};\n", ticket.to_psql()));
        }
    }
    out
}

/// Every session's settings, one statement per line.
pub(super) fn session_settings(schema: &str) -> String {
    let mut out = format!("set search_path to {};\n", quote_ident(schema));
    for setting in sql::SESSION_SETTINGS.split(';') {
        let setting = setting.trim();
        if !setting.is_empty() {
            out.push_str(setting);
            out.push_str(";\n");
        }
    }
    out
}

/// A schema name as a quoted identifier (it is ours, quoted anyway).
pub(super) fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}
