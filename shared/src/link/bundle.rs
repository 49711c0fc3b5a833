//! The chapters come in three bundles: the first carries PostgreSQL's model of numbered seats
//! only, the third the shapes beyond seats as well (counters and usernames, chapter 6), the
//! second InnoDB's model and the shapes. An address needs the second when its state races on
//! InnoDB, or when its query asks for InnoDB: `db=innodb` (the reader chose it: switch the lab
//! to it), or `with=innodb` (the reader asked for a view that needs both models, staying on
//! PostgreSQL). It needs the third when it is chapter 6, when its state is of another shape
//! than seats, or when its query says `with=shapes` (the sandbox, to paste such a schedule).
//! The server reads an address with `pick` to choose the HTML; the page writes these queries
//! when a reader of the first bundle asks for InnoDB, and acts on them in the second.

use crate::schedule::Database;

/// The query's name and value that switch the lab to InnoDB.
pub const SWITCH: (&str, &str) = ("db", "innodb");

/// The query's name and value that load InnoDB's model and keep the lab where it is.
pub const WITH: (&str, &str) = ("with", "innodb");

/// The query's name and value that load the shapes' models and keep the lab where it is.
pub const WITH_SHAPES: (&str, &str) = ("with", "shapes");

/// The chapter of the shapes beyond seats: every scenario of it needs the third bundle.
pub const SHAPES_CHAPTER: u8 = 6;

/// The bundles of the chapters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bundle {
    /// PostgreSQL's model of numbered seats: every first visit to chapters 1 to 5.
    First,
    /// InnoDB's model too, and the shapes.
    WithInnodb,
    /// The shapes beyond seats (counters, usernames), on PostgreSQL.
    WithShapes,
}

/// The bundle the address `path` with this query (without its `?`, form-encoded) needs.
pub fn pick(path: &str, query: &str) -> Bundle {
    if needs_innodb(query) {
        Bundle::WithInnodb
    } else if needs_shapes(path, query) {
        Bundle::WithShapes
    } else {
        Bundle::First
    }
}

/// The name-value pairs of a query.
fn pairs(query: &str) -> impl Iterator<Item = (&str, &str)> {
    query
        .split('&')
        .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
}

/// Whether the address with this query (without its `?`, form-encoded) needs InnoDB's model.
pub fn needs_innodb(query: &str) -> bool {
    pairs(query).any(|(name, value)| {
        (name, value) == SWITCH
            || (name, value) == WITH
            || (name == "s"
                && super::decode(value).is_ok_and(|view| view.database == Database::Innodb))
    })
}

/// Whether the address `path` with this query needs the shapes' models: chapter 6, a state of
/// another shape than seats (such as a counter pasted into the sandbox), or `with=shapes`.
pub fn needs_shapes(path: &str, query: &str) -> bool {
    chapter_of(path) == Some(SHAPES_CHAPTER)
        || pairs(query).any(|(name, value)| {
            (name, value) == WITH_SHAPES
                || (name == "s" && super::decode(value).is_ok_and(|view| !seats(&view)))
        })
}

/// The chapter an address opens, if it is one: `/chapter/6`, `/chapter/6/`.
pub fn chapter_of(path: &str) -> Option<u8> {
    path.strip_prefix("/chapter/")?
        .trim_end_matches('/')
        .parse()
        .ok()
}

/// Whether a link's state races for numbered seats.
fn seats(view: &super::View) -> bool {
    let kind = match &view.custom {
        Some(file) => Some(file.scenario.kind),
        None => crate::scenarios::get(&view.scenario).map(|b| b.file.scenario.kind),
    };
    kind.is_none_or(|k| k.is_seats())
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

    /// (The server, as every test, builds the shapes in.)
    #[cfg(feature = "shapes")]
    #[test]
    fn chapter_6_a_state_of_another_shape_or_a_request_for_it_needs_the_third_bundle() {
        assert_eq!(pick("/chapter/6", ""), Bundle::WithShapes);
        assert_eq!(pick("/chapter/6/", "present=1"), Bundle::WithShapes);
        assert_eq!(pick("/chapter/5", "with=shapes"), Bundle::WithShapes);
        let built = scenarios::get("shapes-balance").unwrap();
        let view = View::of(5, built.id, None, &built.schedule(), 1);
        assert_eq!(
            pick("/chapter/5", &format!("s={}", encode(&view))),
            Bundle::WithShapes
        );
        // InnoDB's bundle has the shapes too.
        assert_eq!(pick("/chapter/6", "db=innodb"), Bundle::WithInnodb);
        assert_eq!(pick("/chapter/1", ""), Bundle::First);
        assert_eq!(pick("/chapter/60", ""), Bundle::First);
        assert_eq!(pick("/", "with=shape"), Bundle::First);
        assert_eq!(
            pick("/chapter/4", &format!("s={}", token(Database::Postgresql))),
            Bundle::First
        );
    }

    #[test]
    fn postgresql_and_anything_unreadable_keep_the_first() {
        assert!(!needs_innodb(""));
        assert!(!needs_innodb(&format!("s={}", token(Database::Postgresql))));
        assert!(!needs_innodb("s=1.4.nonsense&db=postgresql&with=mysql"));
        assert!(!needs_innodb("present=1&dbinnodb"));
    }
}
