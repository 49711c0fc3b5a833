//! The migration text, cut into steps that a run's connections can share; and the tables it
//! creates, which a ready schema empties between runs.
//!
//! Creating a table with a key builds its indexes, and PostgreSQL 15 fsyncs every index it
//! builds: the schema's nine tables cost eighteen fsyncs, which dominate a run on an ordinary disk.
//! Independent `create table` statements in a row can run at once on separate connections;
//! everything else runs in order. A schema half made by a step that failed is dropped like any
//! other run's schema.
//!
//! Between two runs of a ready schema its tables are emptied with `delete` (one round trip for
//! all), not `truncate`: truncating gives every table and index new files, which costs as much
//! as making the schema. The dead rows `delete` leaves change nothing a statement sees or locks;
//! a `vacuum` now and then clears them, as the server's autovacuum (which may be off) would.

use std::sync::LazyLock;

/// Empties every table of the migration (one simple query, so one transaction).
pub(crate) static EMPTY: LazyLock<String> = LazyLock::new(|| {
    tables(shared::sql::SCHEMA_DDL)
        .iter()
        .map(|t| format!("delete from {t};"))
        .collect::<Vec<_>>()
        .join(" ")
});

/// Vacuums every table of the migration.
pub(crate) static VACUUM: LazyLock<String> =
    LazyLock::new(|| format!("vacuum {}", tables(shared::sql::SCHEMA_DDL).join(", ")));

/// The tables `ddl` creates, in order.
pub(crate) fn tables(ddl: &str) -> Vec<String> {
    statements(ddl)
        .iter()
        .filter_map(|statement| {
            let code = code_only(statement).to_lowercase();
            let mut words = code.split_whitespace();
            let creates = words.next() == Some("create") && words.next() == Some("table");
            let name = words.next()?.split('(').next()?.to_string();
            (creates && !name.is_empty()).then_some(name)
        })
        .collect()
}

/// One step of the DDL.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Step<'a> {
    /// Statements to run in order, as one simple query.
    InOrder(String),
    /// Tables that do not refer to one another: any of them may be created on any connection.
    AtOnce(Vec<&'a str>),
}

/// The steps of `ddl`, in order.
pub(crate) fn steps(ddl: &str) -> Vec<Step<'_>> {
    let mut steps: Vec<Step<'_>> = Vec::new();
    for statement in statements(ddl) {
        if is_independent_table(statement) {
            match steps.last_mut() {
                Some(Step::AtOnce(tables)) => tables.push(statement),
                _ => steps.push(Step::AtOnce(vec![statement])),
            }
        } else {
            match steps.last_mut() {
                Some(Step::InOrder(text)) => {
                    text.push_str(statement);
                    text.push_str(";\n");
                }
                _ => steps.push(Step::InOrder(format!("{statement};\n"))),
            }
        }
    }
    steps
}

/// A `create table` that refers to no other table (no foreign key), so that its place among
/// its neighbours does not matter.
fn is_independent_table(statement: &str) -> bool {
    let lower = code_only(statement).to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().take(2).collect();
    words == ["create", "table"] && !lower.contains("references") && !lower.contains("like")
}

/// The statement without its comments.
fn code_only(statement: &str) -> String {
    statement
        .lines()
        .map(|l| l.split("--").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The statements of `sql`, split at the semicolons that are outside comments, quotes and
/// dollar quotes; each trimmed, without its semicolon, empty ones (comments only) left out.
pub(crate) fn statements(sql: &str) -> Vec<&str> {
    let bytes = sql.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                i = sql[i..].find('\n').map_or(bytes.len(), |n| i + n);
            }
            b'\'' | b'"' => {
                let quote = bytes[i];
                i = sql[i + 1..]
                    .find(quote as char)
                    .map_or(bytes.len(), |n| i + 1 + n + 1);
                continue;
            }
            b'$' => {
                let tag_end = sql[i + 1..]
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .map(|n| i + 1 + n);
                if let Some(end) = tag_end.filter(|&e| bytes[e] == b'$') {
                    let tag = &sql[i..=end];
                    i = sql[end + 1..]
                        .find(tag)
                        .map_or(bytes.len(), |n| end + 1 + n + tag.len());
                    continue;
                }
            }
            b';' => {
                push_statement(&mut out, &sql[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    push_statement(&mut out, &sql[start..]);
    out
}

fn push_statement<'a>(out: &mut Vec<&'a str>, text: &'a str) {
    let text = text.trim();
    if !code_only(text).trim().is_empty() {
        out.push(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semicolons_inside_comments_quotes_and_dollar_quotes_do_not_split() {
        let sql =
            "-- a; comment\ncreate function f() returns int language sql as $$ select 1; $$;\n\
                   select 'a;b'; select $x$ ; $x$ ;\n-- the end;\n";
        assert_eq!(
            statements(sql),
            [
                "-- a; comment\ncreate function f() returns int language sql as $$ select 1; $$",
                "select 'a;b'",
                "select $x$ ; $x$"
            ]
        );
    }

    #[test]
    fn the_booking_schema_creates_its_five_tables_at_once_between_ordered_steps_then_the_counters()
    {
        let steps = steps(shared::sql::SCHEMA_DDL);
        assert_eq!(steps.len(), 5, "{steps:#?}");
        assert!(
            matches!(&steps[0], Step::InOrder(s) if s.contains("create sequence clock") && s.contains("clock_now()"))
        );
        assert!(matches!(&steps[1], Step::AtOnce(t) if t.len() == 5));
        assert!(
            matches!(&steps[2], Step::InOrder(s) if s.contains("hold_seats") && s.contains("confirm_hold"))
        );
        // The counters' four tables and the usernames' two, then the index on users' names.
        assert!(matches!(&steps[3], Step::AtOnce(t) if t.len() == 6));
        assert!(
            matches!(&steps[4], Step::InOrder(s) if s.starts_with("create index users_username"))
        );
    }

    #[test]
    fn the_tables_a_ready_schema_empties_are_those_the_migration_creates() {
        assert_eq!(
            tables(shared::sql::SCHEMA_DDL),
            [
                "show_seats",
                "booking_seats",
                "hold_attempts",
                "payments",
                "refund_outbox",
                "sections",
                "accounts",
                "api_keys",
                "coupons",
                "users",
                "usernames"
            ]
        );
        assert!(EMPTY.starts_with("delete from show_seats; delete from booking_seats;"));
    }

    #[test]
    fn a_table_with_a_foreign_key_keeps_its_place() {
        let sql = "create table a (id int primary key); create table b (a int references a); create table c (x int);";
        assert_eq!(
            steps(sql),
            [
                Step::AtOnce(vec!["create table a (id int primary key)"]),
                Step::InOrder("create table b (a int references a);\n".to_string()),
                Step::AtOnce(vec!["create table c (x int)"]),
            ]
        );
    }
}
