//! What every export of one script per buyer must hold, psql's or the mysql client's. Not
//! every test file that shares `common` uses it.
#![allow(dead_code)]

use shared::export;
use shared::schedule::CLOCK;
use shared::Schedule;

/// Each entry's heading is in its actor's script (the clock's in the setup), followed by
/// exactly the SQL the entry sent (`sql`, one per entry: `export::entry_sql`).
pub fn carry_their_sql(
    id: &str,
    s: &Schedule,
    scripts: &[(String, String)],
    sql: &[Option<String>],
) {
    assert_eq!(sql.len(), s.order().len(), "{id}");
    for (k, &a) in s.order().iter().enumerate() {
        let actor = &s.actors()[a].name;
        let label = if actor == CLOCK {
            export::setup_label(s)
        } else {
            actor.clone()
        };
        let script = &scripts
            .iter()
            .find(|(l, _)| *l == label)
            .unwrap_or_else(|| panic!("{id}: no script for {label}"))
            .1;
        let heading = format!("-- step {} of {}", k + 1, s.order().len());
        let at = script
            .find(&heading)
            .unwrap_or_else(|| panic!("{id}: no {heading}"));
        if let Some(sql) = &sql[k] {
            assert!(script[at..].contains(sql.as_str()), "{id}: {heading}");
        }
    }
}
