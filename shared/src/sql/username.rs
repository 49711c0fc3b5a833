//! The SQL of the operations on a username (`Shape::Username`), in both dialects: `read` and
//! `lock` look for the accounts that have the name (`users`, whose index on the name is not
//! unique), `write` creates one after the application's own check, `book` inserts the name into
//! `usernames`, whose primary key refuses a second (23505, 1062), and `claim` does so only if
//! it is not there yet (`on conflict do nothing`, `insert ignore`: 0 rows on a duplicate). The
//! tables are the migrations `0005_usernames.sql` and `innodb/0003_usernames.sql`.

use super::{Context, Param, Statement};
use crate::schedule::{Database, Op, Scenario};

/// A taken name's rows as the scenario starts: its account (created by the name itself) and
/// its claim in `usernames` (request id `sql::initial_hold(name)`). Parameters: the name, the
/// request id.
pub const SEED_PG: &str = "with u as (insert into users (username, created_by) values ($1, $1))
insert into usernames (username, owner, request_id) values ($1, $1, $2)";
/// InnoDB's seed of a taken name, two statements (parameters: the name, the name; then the
/// name, the name, the request id).
pub const SEED_INNODB: [&str; 2] = [
    "insert into users (username, created_by) values (?, ?)",
    "insert into usernames (username, owner, request_id) values (?, ?, ?)",
];

/// Every name's accounts as `(id, value)`: how many accounts have it (a name that none has is
/// not there: `complete` adds it).
pub const SNAPSHOT_ACCOUNTS: &str =
    "select username as id, count(*) as value from users group by username";

/// The claimed names as tickets (`seat_id, holder, booking_id`), for the snapshot of
/// `booking_seats` (a run fills one of the two).
pub const SNAPSHOT_CLAIMS: &str =
    "select username as seat_id, owner as holder, request_id as booking_id from usernames";

/// The names the scenario gives that no account has: their rows with value 0, so that every
/// name is in the tables as the model writes them (sorted by id).
pub fn complete(scenario: &Scenario, seats: &mut Vec<crate::outcome::SeatRow>) {
    if !scenario.kind.is_username() {
        return;
    }
    for row in &scenario.seats {
        if !seats.iter().any(|s| s.id == row.id) {
            seats.push(crate::outcome::SeatRow::counter(row.id.clone(), 0));
        }
    }
    seats.sort_by(|a, b| a.id.cmp(&b.id));
}

/// The SQL of an operation on a username, on `database`; `None` for begin, commit, rollback
/// and the operations the shape does not allow.
pub fn statement(database: Database, op: &Op, cx: &Context<'_>) -> Option<Statement> {
    use Param::Text;
    let name = op.seats().first()?.clone();
    let pg = database == Database::Postgresql;
    // InnoDB looks the name up in its index on users' names, as PostgreSQL does.
    // The name alone, one row per account: an account's id depends on every insert the
    // sequence has seen, rolled back or not, which no export could print.
    let read = if pg {
        "select username from users\n where username = $1\n order by user_id"
    } else {
        "select username from users force index (users_username)\n where username = ?\n order by user_id"
    };
    let claim_params = || {
        vec![
            Text(name.clone()),
            Text(cx.actor.into()),
            Text(cx.new_hold_id.clone()),
        ]
    };
    let (marks2, marks3) = if pg {
        ("($1, $2)", "($1, $2, $3)")
    } else {
        ("(?, ?)", "(?, ?, ?)")
    };
    let st = match op {
        Op::Read { .. } => Statement::new(read, vec![Text(name)]),
        Op::Lock { .. } => Statement::new(format!("{read}\n   for update"), vec![Text(name)]),
        Op::Write { .. } => Statement::new(
            format!("insert into users (username, created_by)\nvalues {marks2}"),
            vec![Text(name), Text(cx.actor.into())],
        ),
        Op::Book { .. } => Statement::new(
            format!("insert into usernames (username, owner, request_id)\nvalues {marks3}"),
            claim_params(),
        ),
        Op::Claim { .. } if pg => Statement::new(
            format!(
                "insert into usernames (username, owner, request_id)\nvalues {marks3}\non conflict do nothing"
            ),
            claim_params(),
        ),
        Op::Claim { .. } => Statement::new(
            format!("insert ignore into usernames (username, owner, request_id)\nvalues {marks3}"),
            claim_params(),
        ),
        _ => return None,
    };
    Some(st)
}
