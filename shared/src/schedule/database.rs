//! Which database a schedule races on: PostgreSQL (the default, and every file written before
//! there was a choice) or InnoDB, MySQL's and MariaDB's storage engine. The same programs and
//! the same order can end differently on the two: InnoDB's REPEATABLE READ lets a second writer
//! overwrite where PostgreSQL refuses it, it breaks a deadlock the moment the cycle closes, and
//! most of its errors undo one statement, not the transaction.

use serde::{Deserialize, Serialize};

/// The database a schedule names in `"engine"`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Database {
    #[default]
    Postgresql,
    Innodb,
}

impl Database {
    /// Both, PostgreSQL first.
    pub const ALL: [Database; 2] = [Database::Postgresql, Database::Innodb];

    /// The word a file writes (`"engine": "innodb"`).
    pub fn id(self) -> &'static str {
        match self {
            Database::Postgresql => "postgresql",
            Database::Innodb => "innodb",
        }
    }

    /// Its name for a reader: "PostgreSQL", "MySQL/InnoDB".
    pub fn title(self) -> &'static str {
        match self {
            Database::Postgresql => "PostgreSQL",
            Database::Innodb => "MySQL/InnoDB",
        }
    }

    /// The server the backend runs it on: "PostgreSQL", "MariaDB".
    pub fn product(self) -> &'static str {
        match self {
            Database::Postgresql => "PostgreSQL",
            Database::Innodb => "MariaDB",
        }
    }

    /// The server the backend runs it on and the model follows: "PostgreSQL 15", "MariaDB 10.11".
    pub fn server(self) -> &'static str {
        match self {
            Database::Postgresql => "PostgreSQL 15",
            Database::Innodb => "MariaDB 10.11",
        }
    }

    /// The default, which a file leaves unsaid (serde's `skip_serializing_if`).
    pub fn is_postgresql(&self) -> bool {
        *self == Database::Postgresql
    }
}

#[cfg(test)]
mod tests {
    use super::Database;

    #[test]
    fn each_database_is_written_as_its_id() {
        for db in Database::ALL {
            assert_eq!(serde_json::to_value(db).unwrap(), db.id());
        }
        assert_eq!(Database::default(), Database::Postgresql);
    }
}
