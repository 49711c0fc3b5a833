#![allow(dead_code)]

//! The counter built-ins (`shared/scenarios/shapes-*.json`) with every defence that fits their
//! shape, on both databases, in the order the page plays them and in every order the explorer
//! finds (up to a bound): the schedules the word tests run over.

use shared::defences::Defence;
use shared::explorer;
use shared::scenarios;
use shared::schedule::Database;
use shared::view;
use shared::Schedule;

/// One counter built-in with one defence on one database, and the orders to run it in.
pub struct Case {
    /// "shapes-balance, lock_row, innodb".
    pub label: String,
    pub schedules: Vec<Schedule>,
}

/// Every counter built-in × every fitting defence × both databases, each with up to
/// `orders` orders besides the page's own.
pub fn cases(orders: u64) -> Vec<Case> {
    let mut out = Vec::new();
    for b in scenarios::all() {
        let kind = b.schedule().scenario().kind;
        if !kind.is_counter() {
            continue;
        }
        for defence in Defence::ALL.into_iter().filter(|d| d.fits(kind)) {
            for database in Database::ALL {
                let mut file = b.file_with_defence(Some(defence));
                file.engine = database;
                let label = format!("{}, {}, {}", b.id, defence.id(), database.id());
                let schedule = Schedule::parse(file).unwrap_or_else(|e| panic!("{label}: {e}"));
                let base = view::playable(&schedule);
                let (found, _) = explorer::orders(&base, orders);
                let mut schedules = vec![base.clone()];
                schedules.extend(found.into_iter().map(|o| base.with_order(o)));
                out.push(Case { label, schedules });
            }
        }
    }
    out
}
