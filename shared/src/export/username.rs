//! A username scenario in the scripts (`UsernameWords`): its seed as the executors run it (a
//! taken name's first account and its claim, `sql::username`), and each entry's comment in the
//! name's words ("adam creates an account named batman, after the application's check").

use crate::outcome::SeenRow;
use crate::schedule::{Database, Op, Schedule};
use crate::sql::{self, Param, Statement};
use crate::username_words::{accounts, UsernameWords};

/// The name's rows as the executors seed them, under a comment saying what they are; `None`
/// when the scenario is not a username.
pub(super) fn rows(schedule: &Schedule, database: Database) -> Option<String> {
    let u = UsernameWords::of(schedule.scenario())?;
    let name = u.name().to_string();
    if !u.taken_at_start() {
        return Some(format!(
            "\n-- The scenario's username: {name}, free (no account in users has it, no claim in usernames).\n"
        ));
    }
    let mut out = format!(
        "\n-- The scenario's username: {name}, taken: an account in users has it, and its claim is in usernames.\n"
    );
    let request = sql::initial_hold(&name);
    let statements = match database {
        Database::Postgresql => vec![Statement {
            sql: sql::username::SEED_PG.to_string(),
            params: vec![Param::Text(name.clone()), Param::Text(request)],
        }],
        Database::Innodb => vec![
            Statement {
                sql: sql::username::SEED_INNODB[0].to_string(),
                params: vec![Param::Text(name.clone()), Param::Text(name.clone())],
            },
            Statement {
                sql: sql::username::SEED_INNODB[1].to_string(),
                params: vec![
                    Param::Text(name.clone()),
                    Param::Text(name.clone()),
                    Param::Text(request),
                ],
            },
        ],
    };
    for st in statements {
        let text = match database {
            Database::Postgresql => st.to_psql(),
            Database::Innodb => st.to_mysql(),
        };
        out.push_str(&format!("{text};\n"));
    }
    Some(out)
}

/// What an entry does on the name, for the comments; `None` for the words every shape shares.
pub(super) fn what(actor: &str, op: &Op, u: &UsernameWords) -> Option<String> {
    let name = u.name();
    Some(match op {
        Op::Read { .. } => format!("{actor} checks whether an account in users has {name}"),
        Op::Lock { .. } => {
            format!("{actor} checks {name} in users and locks the accounts it finds (for update)")
        }
        Op::Write { .. } => format!(
            "{actor} creates an account named {name}, after the application's check (nothing in users refuses a second)"
        ),
        Op::Book { .. } => format!("{actor} claims {name} in usernames, whose key allows one"),
        Op::Claim { .. } => format!(
            "{actor} claims {name} in usernames, inserting nothing if it is already claimed"
        ),
        _ => return None,
    })
}

/// Why a write the application did not send sent nothing.
pub(super) fn not_sent(actor: &str, u: &UsernameWords) -> String {
    format!(
        "Not sent: {actor}'s check found {} taken, so the application says \"{}\" instead.",
        u.name(),
        crate::engine::capitalise(&u.taken_checked())
    )
}

/// The rows a check returned: "1 row: an account named batman".
pub(super) fn seen(seen: &[SeenRow], u: &UsernameWords) -> String {
    let rows = match seen.len() {
        1 => "1 row".to_string(),
        n => format!("{n} rows"),
    };
    match seen.len() {
        0 => format!("0 rows: no account has {}", u.name()),
        n => format!("{rows}: {} named {}", accounts(n as i64), u.name()),
    }
}
