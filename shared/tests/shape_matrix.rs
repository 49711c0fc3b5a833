//! Chapter 6's matrix: every defence of the matrix against a seat, each counter shape and a
//! username, two buyers each. A cell exists exactly where the defence fits the shape; the check
//! and the write apart oversell every shape, the write that carries the condition never does,
//! nor the row lock on a row that exists (a username's is not there yet: the key stops it), and
//! every cell says so in the shape's own words.

use shared::explorer::{
    matrix_cell, matrix_defences, matrix_schedule, matrix_shape_columns, StopHow,
};
use shared::schedule::Shape;
use shared::Defence;

#[test]
fn a_cell_exists_exactly_where_the_defence_fits_the_shape() {
    let columns = matrix_shape_columns();
    assert_eq!(columns.len(), 6, "a seat, four counters and a username");
    let mut cells = 0;
    for d in matrix_defences() {
        for c in columns {
            let cell = matrix_cell(*d, c.id);
            assert_eq!(cell.is_some(), d.fits(c.kind), "{d} on {}", c.id);
            if let Some(cell) = cell {
                let schedule = matrix_schedule(*d, c.id).expect("a schedule");
                assert_eq!(schedule.scenario().kind, c.kind);
                assert!(cell.exploration.complete, "{d} on {}", c.id);
                assert!(!cell.summary.contains('_'), "{}", cell.summary);
                cells += 1;
            }
        }
    }
    assert!(cells >= 6 * 8, "{cells} cells");
    assert!(matrix_cell(Defence::UniqueConstraint, "balance").is_none());
}

#[test]
fn checking_apart_from_the_write_oversells_every_shape_and_the_conditional_write_never_does() {
    for c in matrix_shape_columns() {
        let bad = matrix_cell(Defence::CheckThenAct, c.id).expect("fits");
        assert!(
            bad.exploration.double_booked() > 0,
            "{}: {}",
            c.id,
            bad.summary
        );
        // A row lock of a name nobody has yet locks nothing: only a counter's and a seat's
        // row lock stops the second request.
        let stoppers: &[Defence] = if c.kind == Shape::Username {
            &[Defence::AtomicUpdate, Defence::UniqueConstraint]
        } else {
            &[Defence::AtomicUpdate, Defence::LockRow]
        };
        for &d in stoppers {
            let good = matrix_cell(d, c.id).expect("fits");
            assert_eq!(
                good.exploration.double_booked(),
                0,
                "{d} on {}: {}",
                c.id,
                good.summary
            );
        }
    }
    let atomic = matrix_cell(Defence::AtomicUpdate, "balance").expect("fits");
    assert!(
        atomic.ways.iter().all(|w| w
            .stop
            .as_ref()
            .is_some_and(|s| s.how == StopHow::UpdatedNoRows)),
        "{atomic:?}"
    );
    assert!(
        atomic.summary.starts_with("None of the"),
        "{}",
        atomic.summary
    );
    assert!(
        atomic.summary.contains("overdraws the account"),
        "{}",
        atomic.summary
    );
    assert!(
        atomic
            .summary
            .contains("found less than 100 and updated no rows"),
        "{}",
        atomic.summary
    );
    let coupon = matrix_cell(Defence::CheckThenAct, "coupon").expect("fits");
    assert!(
        coupon.summary.contains("use the coupon twice"),
        "{}",
        coupon.summary
    );
    assert_eq!(
        coupon.ways[0].words,
        "nobody was stopped: the coupon was used twice"
    );
}

#[test]
fn the_username_column_says_batman_created_twice_and_a_row_lock_locks_nothing() {
    let lock = matrix_cell(Defence::LockRow, "username").expect("a row lock fits a name");
    assert!(lock.exploration.double_booked() > 0, "{}", lock.summary);
    assert!(
        lock.summary.contains("create batman twice")
            || lock.summary.contains("creates batman twice"),
        "{}",
        lock.summary
    );
    let key = matrix_cell(Defence::UniqueConstraint, "username").expect("the key fits a name");
    assert!(key.summary.starts_with("None of the"), "{}", key.summary);
    assert!(
        key.ways.iter().any(|w| w
            .words
            .contains("duplicate key: batman was already claimed")),
        "{:?}",
        key.ways
    );
    let check = matrix_cell(Defence::CheckThenAct, "username").expect("fits");
    assert_eq!(
        check.ways[0].words,
        "nobody was stopped: batman was created twice"
    );
    for d in [
        Defence::LockNowait,
        Defence::SkipLocked,
        Defence::HoldConfirm,
    ] {
        assert!(
            matrix_cell(d, "username").is_none(),
            "{d} does not fit a name"
        );
    }
    for cell in [&lock, &key, &check] {
        let all = format!("{} {:?}", cell.summary, cell.ways);
        for w in ["seat", "ticket", "sold", "buyer"] {
            assert!(!all.contains(w), "{all}");
        }
    }
}
