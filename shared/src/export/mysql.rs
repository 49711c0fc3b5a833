//! The run as scripts for the mysql (or mariadb) client, for a schedule on InnoDB: a setup
//! script (the schema in a database of its own, the seats, the clock's steps) and one script per
//! buyer, each step under a comment giving its place in the order and what MariaDB answers.
//! The steps are psql's (`psql::step`) in MySQL's words.

use super::psql::step::scripted_steps;
use super::setup_label;
use crate::explain;
use crate::outcome::Outcome;
use crate::schedule::{Schedule, SeatStatus, CLOCK};
use crate::sql::innodb::{self as sql, SESSION_SETTINGS};
use crate::sql::{initial_hold, Param, Statement};

/// The scripts in the database `SCHEMA`: the setup first (labelled by `setup_label`), then one
/// per buyer, labelled with its name.
pub fn mysql_scripts(schedule: &Schedule, outcome: &Outcome) -> Vec<(String, String)> {
    let database = super::SCHEMA;
    let total = schedule.order().len();
    let (buyers, steps) = scripted_steps(schedule, outcome, true);
    let steps_of = |actor: &str| steps.get(actor).cloned().unwrap_or_default();
    let label = setup_label(schedule);
    let files: Vec<String> = buyers.iter().map(|b| format!("{b}.sql")).collect();
    let mut setup = format!(
        "-- Last Seat: {}\n-- {}\n--\n-- The run on MariaDB (or MySQL 8), one terminal per buyer ({}) beside this one:\n\
         -- 1. Run this script in a terminal of its own (mariadb < {label}.sql). It creates the\n\
         --    database `{database}` (nothing else is touched) and the scenario's {rows}.\n\
         -- 2. In each buyer's terminal, open `mariadb {database}` and paste that buyer's script up to its step 1.\n\
         -- 3. Then take the steps in order, 1 to {total}, each in the terminal of its script.\n\
         -- When you are done: drop database `{database}`;\n\n",
        schedule.name(),
        explain::headline(schedule, outcome),
        explain::join(&files),
        rows = if schedule.scenario().kind.is_counter() {
            "rows"
        } else {
            "seats"
        },
    );
    setup.push_str(&setup_sql(schedule, database));
    let clock_steps = steps_of(CLOCK);
    if !clock_steps.is_empty() {
        setup.push_str("\n-- The clock runs here: run each of its steps when its turn comes.\n");
        setup.push_str(&clock_steps);
    }
    let mut scripts = vec![(label.clone(), setup)];
    for buyer in buyers {
        let mut script = format!(
            "-- Last Seat: {}\n-- {buyer}'s terminal: `mariadb {database}` after {label}.sql ran; paste the lines up\n\
             -- to step 1, then each of {buyer}'s steps when its number comes up.\n\n",
            schedule.name()
        );
        for setting in SESSION_SETTINGS {
            script.push_str(&format!("{setting};\n"));
        }
        script.push_str(
            "-- Typed by hand, a step can take minutes: a lock wait may last an hour.\nset session innodb_lock_wait_timeout = 3600;\n\n",
        );
        let steps = steps_of(buyer);
        if steps.is_empty() {
            script.push_str(&format!("-- {buyer} has no step in this order.\n"));
        }
        script.push_str(&steps);
        scripts.push((buyer.to_string(), script));
    }
    scripts
}

/// What the setup runs, as the executor does: the migration in a fresh database, the clock's
/// start, the seats and their tickets.
fn setup_sql(schedule: &Schedule, database: &str) -> String {
    let scenario = schedule.scenario();
    let mut out = format!(
        "drop database if exists `{database}`;\ncreate database `{database}`;\nuse `{database}`;\n\n{}\n",
        crate::sql::ddl_of(schedule).trim_end()
    );
    out.push_str(&super::setup::scenario_comment(schedule));
    let line = |sql: &str, params: Vec<Param>| {
        let st = Statement {
            sql: sql.to_string(),
            params,
        };
        format!("{};\n", st.to_mysql())
    };
    out.push_str(&line(sql::SET_CLOCK, vec![Param::Int(scenario.clock)]));
    if let Some(rows) = super::setup::counter_rows(schedule, crate::schedule::Database::Innodb) {
        out.push_str(&rows);
        return out;
    }
    for seat in &scenario.seats {
        let hold_id = match seat.status {
            SeatStatus::Available => None,
            SeatStatus::Held | SeatStatus::Booked => seat.holder.as_deref().map(initial_hold),
        };
        out.push_str(&line(
            sql::INSERT_SEAT,
            vec![
                Param::Int(scenario.show),
                Param::Text(seat.id.clone()),
                Param::Text(seat.status.as_sql().to_string()),
                Param::OptText(seat.holder.clone()),
                Param::OptText(hold_id.clone()),
                Param::OptInt(seat.until),
            ],
        ));
        if let (SeatStatus::Booked, Some(holder), Some(booking)) =
            (seat.status, &seat.holder, hold_id)
        {
            out.push_str(&line(
                sql::INSERT_BOOKING,
                vec![
                    Param::Text(booking),
                    Param::Int(scenario.show),
                    Param::Text(seat.id.clone()),
                    Param::Text(holder.clone()),
                ],
            ));
        }
    }
    out
}
