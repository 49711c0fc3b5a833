//! The chapters come in three bundles. The first shows the races for numbered seats on
//! PostgreSQL (chapters 1 to 5, the home page); the third is chapter 6 alone, the shapes beyond
//! seats (counters and usernames), which simulates a seat only for its matrix; the second is the
//! whole page: InnoDB's model, the shapes and the seats.
//!
//! An address needs InnoDB's model when its state races on InnoDB, or when its query asks for
//! it: `db=innodb` (the reader chose it: switch the lab to it), or `with=innodb` (the reader
//! asked for a view that needs both models, staying on PostgreSQL). It needs the shapes when it
//! is chapter 6, when its state is of another shape than seats, or when its query says
//! `with=shapes` (the sandbox, to paste such a schedule); and the seats when it is any page but
//! chapter 6, or its state races for seats. The server reads an address with `pick` to choose
//! the HTML; a bundle opens a link whose models it has not anew (the page's `handover.rs`).

use crate::schedule::Database;

/// The query's name and value that switch the lab to InnoDB.
pub const SWITCH: (&str, &str) = ("db", "innodb");

/// The query's name and value that load InnoDB's model and keep the lab where it is.
pub const WITH: (&str, &str) = ("with", "innodb");

/// The query's name and value that load the shapes' models and keep the lab where it is.
pub const WITH_SHAPES: (&str, &str) = ("with", "shapes");

/// The chapter of the shapes beyond seats: the one the third bundle shows.
pub const SHAPES_CHAPTER: u8 = 6;

/// The bundles of the chapters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bundle {
    /// The races for numbered seats on PostgreSQL: every first visit to chapters 1 to 5.
    First,
    /// The whole page: InnoDB's model, the shapes and the seats.
    Whole,
    /// Chapter 6 alone: the shapes beyond seats (counters, usernames), on PostgreSQL.
    Shapes,
}

/// The bundle the address `path` with this query (without its `?`, form-encoded) needs.
pub fn pick(path: &str, query: &str) -> Bundle {
    match (needs_innodb(query), needs_shapes(path, query)) {
        (true, _) => Bundle::Whole,
        (false, false) => Bundle::First,
        (false, true) if needs_seats(path, query) => Bundle::Whole,
        (false, true) => Bundle::Shapes,
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

/// Whether the address `path` with this query shows a race for numbered seats: every page but
/// chapter 6 (the home page, chapters 1 to 5), and a state that races for seats anywhere (such
/// as an example of the shapes matrix's seat column).
pub fn needs_seats(path: &str, query: &str) -> bool {
    chapter_of(path) != Some(SHAPES_CHAPTER)
        || pairs(query)
            .any(|(name, value)| name == "s" && super::decode(value).is_ok_and(|view| seats(&view)))
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
    #[cfg(feature = "seats")]
    use crate::link::{encode, View};
    #[cfg(feature = "seats")]
    use crate::scenarios;

    /// A link's token on `database` (of a seats' built-in, which chapter 6's bundle leaves out).
    #[cfg(feature = "seats")]
    fn token(database: Database) -> String {
        let built = scenarios::get("ch4-check_then_act").unwrap();
        let view = View::of(4, built.id, None, &built.schedule(), 2);
        encode(&View { database, ..view })
    }

    /// (A state is read whole, its schedule checked: only a build with InnoDB's model, as the
    /// server's, can tell one on InnoDB.)
    #[cfg(all(feature = "innodb", feature = "seats"))]
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
    #[cfg(all(feature = "shapes", feature = "seats"))]
    #[test]
    fn chapter_6_alone_needs_the_third_bundle_and_a_shape_beside_the_seats_the_whole_page() {
        assert_eq!(pick("/chapter/6", ""), Bundle::Shapes);
        assert_eq!(pick("/chapter/6/", "present=1"), Bundle::Shapes);
        let balance = scenarios::get("shapes-balance").unwrap();
        let on_6 = View::of(6, balance.id, None, &balance.schedule(), 1);
        assert_eq!(
            pick("/chapter/6", &format!("s={}", encode(&on_6))),
            Bundle::Shapes
        );
        // The sandbox with a schedule of another shape shows seats and shapes.
        assert_eq!(pick("/chapter/5", "with=shapes"), Bundle::Whole);
        let on_5 = View::of(5, balance.id, None, &balance.schedule(), 1);
        assert_eq!(
            pick("/chapter/5", &format!("s={}", encode(&on_5))),
            Bundle::Whole
        );
        // A race for a seat on chapter 6 (the seat column's example, kept in a link).
        let seat = scenarios::get("ch4-check_then_act").unwrap();
        let seat_on_6 = View::of(6, "shapes-balance", None, &seat.schedule(), 2);
        assert!(seat_on_6.custom.is_some());
        assert_eq!(
            pick("/chapter/6", &format!("s={}", encode(&seat_on_6))),
            Bundle::Whole
        );
        assert_eq!(pick("/chapter/6", "db=innodb"), Bundle::Whole);
        assert_eq!(pick("/chapter/1", ""), Bundle::First);
        assert_eq!(pick("/chapter/60", ""), Bundle::First);
        assert_eq!(pick("/", "with=shape"), Bundle::First);
        assert_eq!(
            pick("/chapter/4", &format!("s={}", token(Database::Postgresql))),
            Bundle::First
        );
    }

    #[test]
    fn every_page_but_chapter_6_shows_seats() {
        assert!(needs_seats("/", ""));
        assert!(needs_seats("/chapter/5", "with=shapes"));
        assert!(needs_seats("/chapter/60", ""));
        assert!(!needs_seats("/chapter/6", ""));
        assert!(!needs_seats("/chapter/6/", "present=1&s=1.6.nonsense"));
    }

    #[cfg(feature = "seats")]
    #[test]
    fn postgresql_and_anything_unreadable_keep_the_first() {
        assert!(!needs_innodb(""));
        assert!(!needs_innodb(&format!("s={}", token(Database::Postgresql))));
        assert!(!needs_innodb("s=1.4.nonsense&db=postgresql&with=mysql"));
        assert!(!needs_innodb("present=1&dbinnodb"));
    }
}
