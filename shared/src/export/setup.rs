//! What the setup script runs, as the executor does: the migration in a schema of its own, the
//! seats and their tickets, the clock's start; and the settings of every session.

use crate::schedule::{Schedule, SeatStatus};
use crate::sql::{self, Param, Statement};

/// What the setup runs, as the executor does it: the migration in a fresh schema, the seats
/// and their tickets, the clock's start, with `ddl` as the migration's text.
pub(super) fn setup_sql(schedule: &Schedule, schema: &str, ddl: &str) -> String {
    let scenario = schedule.scenario();
    let quoted = quote_ident(schema);
    let mut out = format!(
        "set client_min_messages = warning;\ndrop schema if exists {quoted} cascade;\ncreate schema {quoted};\nset search_path to {quoted};\n\n{}\n",
        ddl.trim_end()
    );
    out.push_str(&format!(
        "\n-- The scenario: show {}, holds of {}, the clock at {}.\n",
        scenario.show,
        scenario.clock_unit.span(scenario.hold_minutes),
        scenario.clock_unit.at(scenario.clock)
    ));
    let clock = Statement {
        sql: sql::SET_CLOCK.to_string(),
        params: vec![Param::Int(scenario.clock)],
    };
    out.push_str(&format!("{};\n", clock.to_psql()));
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
