//! The SQL of the operations on a counter's rows (`Shape`), in both dialects: each shape's own
//! table and column (a section's tickets left, an account's balance, a key's calls left, a
//! coupon's `used` flag), read, locked, taken from unconditionally after the application's own
//! check (`write`), or taken from only where enough is left (`claim`, the bounded decrement).
//! The tables are the migrations `0004_counters.sql` (PostgreSQL) and `innodb/0002_counters.sql`.

use super::{Param, Statement};
use crate::schedule::{Database, Op, Shape, Wait};

/// A counter shape's table, its key and its value column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Table {
    pub name: &'static str,
    pub key: &'static str,
    pub column: &'static str,
}

/// The table of a counter shape (`None` for seats).
pub fn table(kind: Shape) -> Option<Table> {
    if !kind.is_counter() {
        // Known at compile time without the `shapes` feature.
        return None;
    }
    let (name, key, column) = match kind {
        Shape::Seats | Shape::Username => return None,
        Shape::GeneralAdmission => ("sections", "section_id", "tickets_left"),
        Shape::Balance => ("accounts", "account_id", "balance"),
        Shape::RateLimit => ("api_keys", "api_key", "calls_left"),
        Shape::Coupon => ("coupons", "code", "used"),
    };
    Some(Table { name, key, column })
}

impl Table {
    /// Whether the column is a flag (a coupon's `used`): a row's value is 1 while it is false.
    pub fn is_flag(&self) -> bool {
        self.column == "used"
    }

    /// Inserts one row of the scenario; its parameters are the key and the value.
    pub fn insert(&self, database: Database) -> String {
        let value = match (self.is_flag(), database) {
            (true, Database::Postgresql) => "$2 = 0",
            (true, Database::Innodb) => "? = 0",
            (false, Database::Postgresql) => "$2",
            (false, Database::Innodb) => "?",
        };
        let key = if database == Database::Postgresql {
            "$1"
        } else {
            "?"
        };
        format!(
            "insert into {} ({}, {}) values ({key}, {value})",
            self.name, self.key, self.column
        )
    }

    /// The column as a number: a flag's value is 1 while unused.
    fn value_expr(&self) -> String {
        if self.is_flag() {
            format!("case when {} then 0 else 1 end", self.column)
        } else {
            self.column.to_string()
        }
    }

    /// `set …`: take `take` (a parameter) from the column, or set the flag.
    fn set(&self, take: &str) -> String {
        if self.is_flag() {
            format!("set {} = true", self.column)
        } else {
            format!("set {col} = {col} - {take}", col = self.column)
        }
    }

    /// The bounded decrement's check: enough left for `take`, or the flag not yet set.
    fn enough(&self, take: &str) -> String {
        if self.is_flag() {
            format!("not {}", self.column)
        } else {
            format!("{} >= {take}", self.column)
        }
    }
}

/// Every counter table's rows as `(id, value)`, a flag's value 1 while unset, and the usernames'
/// accounts counted per name: a run fills one of them (its scenario's), so the union reads
/// exactly its rows, in one statement.
pub fn snapshot_all() -> String {
    [
        Shape::GeneralAdmission,
        Shape::Balance,
        Shape::RateLimit,
        Shape::Coupon,
    ]
    .into_iter()
    .filter_map(table)
    .map(|t| {
        format!(
            "select {} as id, {} as value from {}",
            t.key,
            t.value_expr(),
            t.name
        )
    })
    .chain([super::username::SNAPSHOT_ACCOUNTS.to_string()])
    .collect::<Vec<_>>()
    .join(" union all ")
}

/// The SQL of a read, lock, write or claim on a counter's rows, on `database`; `None` for any
/// other operation (the shape does not allow them).
pub fn statement(database: Database, kind: Shape, take: i64, op: &Op) -> Option<Statement> {
    let t = table(kind)?;
    let mut rows = op.seats().to_vec();
    rows.sort();
    let (rows_where, mut params, take_mark) = match database {
        Database::Postgresql => (
            format!("{} = any($1)", t.key),
            vec![Param::TextArray(rows)],
            "$2",
        ),
        Database::Innodb => (
            format!("{} in ({})", t.key, vec!["?"; rows.len()].join(", ")),
            rows.into_iter().map(Param::Text).collect(),
            "?",
        ),
    };
    // InnoDB reads the listed rows by primary key, one lookup each, as it does seats.
    let force = match database {
        Database::Postgresql => "",
        Database::Innodb => " force index (primary)",
    };
    let read = format!(
        "select {key}, {col} from {name}{force}\n where {rows_where}\n order by {key}",
        key = t.key,
        col = t.column,
        name = t.name
    );
    let sql = match op {
        Op::Read { .. } => read,
        Op::Lock { wait, .. } => {
            let tail = match wait {
                Wait::Wait => "",
                Wait::Nowait => " nowait",
                Wait::SkipLocked => " skip locked",
            };
            format!("{read}\n   for update{tail}")
        }
        Op::Write { .. } => {
            if !t.is_flag() {
                take_before_rows(database, &mut params, take);
            }
            format!(
                "update {}{force}\n   {}\n where {rows_where}",
                t.name,
                t.set(take_mark)
            )
        }
        Op::Claim { .. } => {
            if !t.is_flag() {
                take_before_rows(database, &mut params, take);
                if database == Database::Innodb {
                    params.push(Param::Int(take));
                }
            }
            format!(
                "update {}{force}\n   {}\n where {rows_where}\n   and {}",
                t.name,
                t.set(take_mark),
                t.enough(take_mark)
            )
        }
        _ => return None,
    };
    Some(Statement::new(sql, params))
}

/// The amount taken as the SET's parameter: `$2` after the rows on PostgreSQL (a claim's WHERE
/// names it again), the first `?` on InnoDB, whose marks are in the text's order.
fn take_before_rows(database: Database, params: &mut Vec<Param>, take: i64) {
    match database {
        Database::Postgresql => params.push(Param::Int(take)),
        Database::Innodb => params.insert(0, Param::Int(take)),
    }
}
