//! The chapters come in two bundles: the first carries PostgreSQL's model only, the second
//! InnoDB's as well. An address needs the second when its state races on InnoDB, or when its
//! query asks for InnoDB: `db=innodb` (the reader chose it: switch the lab to it), or
//! `with=innodb` (the reader asked for a view that needs both models, staying on PostgreSQL).
//! The server reads an address with `needs_innodb` to pick the HTML; the page writes these
//! queries when a reader of the first bundle asks for InnoDB, and acts on them in the second.

use crate::schedule::Database;

/// The query's name and value that switch the lab to InnoDB.
pub const SWITCH: (&str, &str) = ("db", "innodb");

/// The query's name and value that load InnoDB's model and keep the lab where it is.
pub const WITH: (&str, &str) = ("with", "innodb");

/// Whether the address with this query (without its `?`, form-encoded) needs InnoDB's model.
pub fn needs_innodb(query: &str) -> bool {
    query.split('&').any(|pair| {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        (name, value) == SWITCH
            || (name, value) == WITH
            || (name == "s"
                && super::decode(value).is_ok_and(|view| view.database == Database::Innodb))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::{encode, View};
    use crate::scenarios;

    /// A link's token on `database`.
    fn token(database: Database) -> String {
        let built = scenarios::get("ch4-check_then_act").unwrap();
        let view = View::of(4, built.id, None, &built.schedule(), 2);
        encode(&View { database, ..view })
    }

    /// (A state is read whole, its schedule checked: only a build with InnoDB's model, as the
    /// server's, can tell one on InnoDB.)
    #[cfg(feature = "innodb")]
    #[test]
    fn a_state_on_innodb_or_a_request_for_it_needs_the_second_bundle() {
        assert!(needs_innodb(&format!("s={}", token(Database::Innodb))));
        assert!(needs_innodb(&format!(
            "s={}&present=1",
            token(Database::Innodb)
        )));
        assert!(needs_innodb(&format!(
            "s={}&db=innodb",
            token(Database::Postgresql)
        )));
        assert!(needs_innodb("with=innodb&claim=1"));
    }

    #[test]
    fn postgresql_and_anything_unreadable_keep_the_first() {
        assert!(!needs_innodb(""));
        assert!(!needs_innodb(&format!("s={}", token(Database::Postgresql))));
        assert!(!needs_innodb("s=1.4.nonsense&db=postgresql&with=mysql"));
        assert!(!needs_innodb("present=1&dbinnodb"));
    }
}
