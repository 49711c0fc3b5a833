//! Which server the executor talks to, MariaDB 10.11 or MySQL 8 (written for, never tried here),
//! and where each shows who waits for whom: the monitor's query is joined to it.

/// Which server: where it shows who waits for whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Flavor {
    /// INFORMATION_SCHEMA.INNODB_LOCK_WAITS.
    MariaDb,
    /// performance_schema.data_lock_waits (MySQL 8 has no INNODB_LOCK_WAITS).
    MySql,
}

impl Flavor {
    pub fn of(version: &str) -> Flavor {
        if version.contains("MariaDB") {
            Flavor::MariaDb
        } else {
            Flavor::MySql
        }
    }

    /// The blocking lock when its transaction has no id (`holders`), else null.
    pub(super) fn anonymous_blocker(self) -> &'static str {
        match self {
            Flavor::MariaDb => "case when w.blocking_trx_id = 0 then w.blocking_lock_id end",
            Flavor::MySql => "cast(null as char)",
        }
    }

    pub(super) fn waits(self) -> &'static str {
        match self {
            Flavor::MariaDb => {
                // A transaction without an id (trx_id 0, `holders`) is matched by the lock it
                // waits for too, and is never joined as a blocker by its id.
                "left join information_schema.innodb_lock_waits w
                        on w.requesting_trx_id = t.trx_id
                       and w.requested_lock_id = t.trx_requested_lock_id
                 left join information_schema.innodb_trx b
                        on b.trx_id = w.blocking_trx_id and b.trx_id <> 0"
            }
            Flavor::MySql => {
                "left join performance_schema.data_lock_waits w
                        on w.requesting_engine_transaction_id = t.trx_id
                 left join information_schema.innodb_trx b
                        on b.trx_id = w.blocking_engine_transaction_id"
            }
        }
    }
}
