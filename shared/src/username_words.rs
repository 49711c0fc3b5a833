//! Every word about a username scenario (`Shape::Username`): one name ("batman"), free or taken
//! by an account, and the two tables that keep it: `users`, where an account is created and
//! whose index on the name is not unique (so a second account of the same name is let in), and
//! `usernames`, whose primary key is the name (so a second claim is refused, 23505 on
//! PostgreSQL and 1062 on MariaDB, or inserts nothing with `on conflict do nothing` / `insert
//! ignore`). The reason lines, the phones, the story, the explorer's stops, the matrix and the
//! exports say a username's facts with these words, never a seat's. This file is what the
//! database does; `told.rs` what a person signing up is told, `verdict.rs` how the name ends.

mod told;
mod verdict;

use crate::schedule::{Database, Scenario};
use crate::sqlstate::SqlState;

/// The words of one username scenario: its name and whether an account had it at the start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsernameWords {
    name: String,
    taken_at_start: bool,
    /// Cannot be made without the `shapes` feature: an `Option<UsernameWords>` is then `None`
    /// by its type, wherever it is kept, and every branch that speaks of a name drops out.
    _built: Built,
}

#[cfg(feature = "shapes")]
type Built = ();
#[cfg(not(feature = "shapes"))]
type Built = std::convert::Infallible;

/// "1 account", "2 accounts".
pub fn accounts(n: i64) -> String {
    if n == 1 {
        "1 account".to_string()
    } else {
        format!("{n} accounts")
    }
}

impl UsernameWords {
    /// The words of `scenario`, or `None` when its rows are not a username.
    pub fn of(scenario: &Scenario) -> Option<UsernameWords> {
        #[cfg(feature = "shapes")]
        return {
            let row = scenario.seats.first()?;
            scenario.kind.is_username().then(|| UsernameWords {
                name: row.id.clone(),
                taken_at_start: row.value.unwrap_or(0) > 0,
                _built: (),
            })
        };
        #[cfg(not(feature = "shapes"))]
        return {
            let _ = scenario;
            None
        };
    }

    /// The name raced for: "batman".
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether an account already had the name when the scenario starts.
    pub fn taken_at_start(&self) -> bool {
        self.taken_at_start
    }

    /// What a check that found `n` accounts means: "no account has it yet, so it looks free",
    /// "1 account has it, so it is taken".
    pub fn found(&self, n: usize) -> String {
        match n {
            0 => "no account has it yet, so it looks free".to_string(),
            1 => "1 account has it, so it is taken".to_string(),
            n => format!("{n} accounts have it, so it is taken"),
        }
    }

    /// A read's reason line, after the subject: "checks batman in users: no account has it
    /// yet, so it looks free".
    pub fn checks(&self, n: usize) -> String {
        format!("checks {} in users: {}", self.name, self.found(n))
    }

    /// A locking read's reason line, after the subject. PostgreSQL has no row to lock where no
    /// account has the name; InnoDB under REPEATABLE READ or SERIALIZABLE locks the gap where
    /// one would go (`gap`).
    pub fn locks(&self, n: usize, database: Database, gap: bool) -> String {
        let name = &self.name;
        match (n, database) {
            (0, Database::Postgresql) => format!(
                "checks {name} with FOR UPDATE and locks nothing: {}, and there is no row to lock",
                self.found(0)
            ),
            (0, Database::Innodb) if gap => format!(
                "checks {name} with FOR UPDATE: {}; InnoDB locks the gap in the name index where it would go",
                self.found(0)
            ),
            (0, Database::Innodb) => format!(
                "checks {name} with FOR UPDATE and locks nothing: {}, and READ COMMITTED locks no gap",
                self.found(0)
            ),
            (n, _) => format!(
                "locks the accounts named {name}: {}",
                self.found(n)
            ),
        }
    }

    /// A `write` that ran, after the subject: "creates an account named batman in users
    /// (nothing there refuses a second)".
    pub fn creates(&self) -> String {
        format!(
            "creates an account named {} in users (nothing there refuses a second)",
            self.name
        )
    }

    /// A `book` or `claim` that inserted the name, after the subject.
    pub fn claims(&self, on_conflict: bool, database: Database) -> String {
        let how = match (on_conflict, database) {
            (false, _) => "the key of usernames allows one",
            (true, Database::Postgresql) => "ON CONFLICT DO NOTHING found no claim",
            (true, Database::Innodb) => "INSERT IGNORE found no claim",
        };
        format!("claims {} in usernames ({how})", self.name)
    }

    /// A `claim` that inserted nothing, after the subject.
    pub fn claimed_already(&self, waited: bool, database: Database) -> String {
        let how = match database {
            Database::Postgresql => "ON CONFLICT DO NOTHING",
            Database::Innodb => "INSERT IGNORE",
        };
        let after = if waited { " once the wait is over" } else { "" };
        format!(
            "finds {} already claimed in usernames{after}: {how} inserts nothing",
            self.name
        )
    }

    /// A write or claim the application did not send, after the subject.
    pub fn not_sent(&self, op: &str) -> String {
        format!(
            "skips the {op}: the application's check found {} taken",
            self.name
        )
    }

    /// Why a statement waits for the name's uncommitted claim, after the blockers' names.
    pub fn waits_for_claim(&self) -> String {
        format!(
            "inserted {} into usernames and has not committed yet",
            self.name
        )
    }

    /// InnoDB: why a locking check waits for an account another transaction created and has
    /// not committed (its implicit lock, made explicit for the check), after the creators'
    /// names (`many` of them).
    pub fn waits_for_account(&self, many: bool) -> String {
        let verb = if many { "have" } else { "has" };
        format!(
            "created an account named {} in users and {verb} not committed yet: the locking \
             check waits for it",
            self.name
        )
    }

    /// Why a statement waits for the accounts' row lock, after one blocker's name.
    pub fn waits_for_lock(&self) -> String {
        format!("has the accounts named {} locked", self.name)
    }

    /// PostgreSQL: why a statement waits for an account's row lock (its FOR UPDATE locks the
    /// accounts one by one), after the holder's name.
    pub fn waits_for_account_lock(&self) -> String {
        format!("has an account named {} locked", self.name)
    }

    /// PostgreSQL: why a statement waits in an account's queue, after the names of those ahead
    /// (`many` of them).
    pub fn waits_in_account_queue(&self, many: bool) -> String {
        let verb = if many { "are" } else { "is" };
        format!(
            "{verb} ahead in the queue for an account named {}",
            self.name
        )
    }

    /// Why a statement waits in the queue, after the names of those ahead (`many` of them).
    pub fn waits_in_queue(&self, many: bool) -> String {
        let verb = if many { "are" } else { "is" };
        format!(
            "{verb} ahead in the queue for the accounts named {}",
            self.name
        )
    }

    /// InnoDB: why an insert waits for a gap lock, after the holders' names (`many`); `users`
    /// for an account's insert (the gap a locking check left), else the claim's duplicate check.
    pub fn waits_for_gap(&self, many: bool, users: bool) -> String {
        let verb = if many { "have" } else { "has" };
        if users {
            format!(
                "{verb} locked the gap where an account named {} would go (their locking check found none)",
                self.name
            )
        } else {
            format!(
                "{verb} locked the gap where {} goes in usernames, left by a duplicate check",
                self.name
            )
        }
    }

    /// An error's meaning for the reason line: a duplicate is the name's claim; any other code
    /// says what it says everywhere.
    pub fn error_reason(&self, code: &SqlState, message: &str) -> String {
        match code {
            SqlState::UniqueViolation => {
                format!(
                    "{} is already in usernames, whose key allows one",
                    self.name
                )
            }
            SqlState::DuplicateEntry => format!(
                "{} is already in usernames, whose key allows one; only this statement is undone",
                self.name
            ),
            other => other.reason_words(message),
        }
    }

    /// An error's meaning in the story (past tense).
    pub fn error_story(&self, code: &SqlState, message: &str) -> String {
        match code {
            code if code.is_duplicate() => {
                format!("{} was already claimed in usernames", self.name)
            }
            other => other.story_words(message),
        }
    }

    /// An error's name in the explorer's stops: "got error 23505 (duplicate key: batman was
    /// already claimed)".
    pub fn error_stop(&self, code: &SqlState) -> String {
        if code.is_duplicate() {
            format!(
                "got error {code} (duplicate key: {} was already claimed)",
                self.name
            )
        } else {
            format!("got error {code} ({})", code.name())
        }
    }
}
