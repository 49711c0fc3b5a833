//! The InnoDB model as its callers drive it: every built-in scenario raced on InnoDB (the
//! confirms included) is walked whole by the explorer, whose engine copies must group every
//! order exactly as simulating each order from scratch does.

#[allow(dead_code)]
mod common;

use common::explore::explore_slowly;
use shared::explorer::explore;
use shared::scenarios;
use shared::schedule::Database;

#[test]
fn every_builtin_on_innodb_is_explored_like_every_order_alone() {
    let mut explored = 0;
    for builtin in scenarios::all() {
        let on = builtin
            .schedule()
            .on(Database::Innodb)
            .unwrap_or_else(|e| panic!("{}: refused on InnoDB: {e}", builtin.id));
        assert_eq!(on.database(), Database::Innodb);
        let fast = explore(&on, u64::MAX);
        assert!(fast.complete, "{}: cut short", builtin.id);
        assert_eq!(fast, explore_slowly(&on, u64::MAX), "{}", builtin.id);
        explored += 1;
    }
    assert!(explored > 5, "only {explored} built-ins explored on InnoDB");
}
