//! Every sentence about a SQLSTATE, one method per register: the explorer's short name, the
//! timeline cell's gist, the reason line (present tense, about the step at the playhead), the
//! story (past tense), the story's consequence for a buyer refused with it, and the phone (what
//! an application tells its user). A surface that words a code calls one of these and nothing
//! else, so that a new code, or a new engine's, is worded here once. MySQL's error numbers are
//! worded as PostgreSQL's codes of the same meaning, except where InnoDB does something else
//! (only the statement is undone, or the whole transaction at once).

use super::SqlState;
use SqlState::*;

impl SqlState {
    /// What it means in a few words, for the explorer's stops ("got error 40001 (serialization
    /// failure)"); "an error" for a code the races do not meet.
    pub fn name(&self) -> &'static str {
        match self {
            SerializationFailure => "serialization failure",
            DeadlockDetected => "deadlock",
            LockNotAvailable => "lock not available",
            UniqueViolation => "duplicate ticket, refused by the unique key",
            InFailedTransaction => "the transaction had already failed",
            QueryCanceled => "statement cancelled",
            DuplicateEntry => "duplicate entry, refused by the unique key",
            LockWaitTimeout => "lock wait timeout",
            LockDeadlock => "deadlock",
            LockNowait => "lock not available",
            Other(_) => "an error",
        }
    }

    /// One word for a timeline cell, which has room for the code and little else.
    pub fn gist(&self) -> &'static str {
        match self {
            SerializationFailure => "conflict",
            DeadlockDetected | LockDeadlock => "deadlock",
            LockNotAvailable | LockNowait | LockWaitTimeout => "busy",
            UniqueViolation | DuplicateEntry => "duplicate",
            InFailedTransaction => "aborted",
            QueryCanceled | Other(_) => "error",
        }
    }

    /// Why the statement at the playhead is refused, for the reason line; `message` is
    /// PostgreSQL's own text (which tells the two kinds of 40001 apart, and stands for a code
    /// the races do not meet).
    pub fn reason_words(&self, message: &str) -> String {
        match self {
            SerializationFailure if message.contains("concurrent update") => {
                "the row changed after this transaction's snapshot was taken (serialization failure)"
            }
            SerializationFailure => {
                "serialization failure: SERIALIZABLE found a dangerous cycle of read/write dependencies"
            }
            DeadlockDetected => "deadlock detected",
            LockDeadlock => "deadlock found: InnoDB rolled this transaction back the moment the cycle closed",
            LockNotAvailable | LockNowait => "the row is locked and NOWAIT does not queue",
            LockWaitTimeout => {
                "the row is locked and the statement would not wait (MariaDB reports NOWAIT as a lock wait timeout); the transaction goes on"
            }
            UniqueViolation => "a ticket for the seat already exists",
            DuplicateEntry => "a ticket for the seat already exists; only this statement is undone",
            InFailedTransaction => {
                "an earlier error aborted the transaction; everything is ignored until it ends"
            }
            QueryCanceled | Other(_) => message,
        }
        .to_string()
    }

    /// What happened, in a few words, for the story ("adam's commit failed: a serialization
    /// failure (40001)"); `message` stands for a code the races do not meet.
    pub fn story_words(&self, message: &str) -> String {
        match self {
            SerializationFailure => "a serialization failure",
            DeadlockDetected => "a deadlock, and PostgreSQL failed it to break the cycle",
            LockDeadlock => {
                "a deadlock, and InnoDB rolled the whole transaction back to break the cycle"
            }
            LockNotAvailable | LockNowait => "the row was locked, and NOWAIT does not wait",
            LockWaitTimeout => "the row was locked, and it would not wait",
            UniqueViolation | DuplicateEntry => "a ticket for the seat already exists",
            InFailedTransaction => "the transaction had already failed",
            QueryCanceled => "it was cancelled",
            Other(_) => message,
        }
        .to_string()
    }

    /// How the story's consequence says a buyer was refused with it ("Omar was refused by a
    /// serialization failure (40001)"), after "was" or "were"; `None` for a code that is not
    /// a refusal of its own (25P02 follows an earlier one).
    pub fn refused_words(&self) -> Option<String> {
        Some(match self {
            SerializationFailure => format!("refused by a serialization failure ({self})"),
            DeadlockDetected | LockDeadlock => format!("the deadlock victim ({self})"),
            UniqueViolation | DuplicateEntry => format!("refused a second ticket {}", self.tag()),
            LockNotAvailable | LockNowait | LockWaitTimeout | InFailedTransaction
            | QueryCanceled | Other(_) => return None,
        })
    }

    /// The code beside its meaning, as the phone and the story print it: "(55P03, lock not
    /// available)".
    pub fn tag(&self) -> String {
        let name = match self {
            UniqueViolation | DuplicateEntry => "duplicate key",
            other => other.name(),
        };
        format!("({self}, {name})")
    }

    /// What an application tells its user when a statement fails with it and there is nothing
    /// better to say (a busy seat and a ticket that exists are worded with their seats),
    /// starting in lowercase.
    pub fn phone_words(&self) -> String {
        let what = match self {
            SerializationFailure => format!("someone booked at the same time {}", self.tag()),
            DeadlockDetected | LockDeadlock => {
                format!("two bookings blocked each other {}", self.tag())
            }
            other => format!("something went wrong (error {other})"),
        };
        format!("{what}: try again")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_register_words_every_named_code_and_a_stranger() {
        let stranger = SqlState::parse("XX000");
        for state in SqlState::NAMED.into_iter().chain([stranger.clone()]) {
            let code = state.code().to_string();
            assert!(
                !state.name().is_empty() && !state.gist().is_empty(),
                "{code}"
            );
            assert!(!state.reason_words("its message").is_empty(), "{code}");
            assert!(!state.story_words("its message").is_empty(), "{code}");
            assert!(state.tag().starts_with(&format!("({code}, ")), "{code}");
            assert_eq!(state.mysql_sqlstate().is_some(), code.len() == 4, "{code}");
            assert!(state.phone_words().ends_with(": try again"), "{code}");
            if let Some(words) = state.refused_words() {
                assert!(words.contains(&code), "{words}");
            }
        }
        assert_eq!(stranger.story_words("boom"), "boom");
        assert_eq!(
            stranger.phone_words(),
            "something went wrong (error XX000): try again"
        );
        assert_eq!(
            SqlState::LockNotAvailable.tag(),
            "(55P03, lock not available)"
        );
        assert_eq!(SqlState::UniqueViolation.tag(), "(23505, duplicate key)");
    }
}
