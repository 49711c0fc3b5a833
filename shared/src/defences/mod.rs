//! The defences: named presets that generate a buyer's program for some seats, as one type.
//! Each knows its identifier (as schedules, links and the room API spell it), its title and
//! summary (as every page shows it), its program (`program.rs`), whether it pays and whether it
//! needs Redis. They behave like applications: they pay and confirm only while they hold their
//! seats (`if: held`), and the `_retry` variants write their transaction again under
//! `if: failed`, a bounded retry after 40001, 40P01 or 55P03 (a variant of its own, as one retry
//! doubles a program's length and multiplies its interleavings).

mod program;

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::schedule::Shape;

/// Declares `Defence`, `Defence::ALL` and each defence's words from one table, so that a
/// defence is written down once: its variant, identifier, title and summary.
macro_rules! defences {
    ($($variant:ident => $id:literal, $title:literal, $summary:literal;)*) => {
        /// A defence, by name.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum Defence {
            $(#[serde(rename = $id)] $variant,)*
        }

        /// How many defences there are.
        const COUNT: usize = [$($id),*].len();

        impl Defence {
            /// Every defence, in the order the page offers them.
            pub const ALL: [Defence; COUNT] = [$(Defence::$variant),*];

            /// Identifier, title, summary.
            const fn words(self) -> (&'static str, &'static str, &'static str) {
                match self {
                    $(Defence::$variant => ($id, $title, $summary),)*
                }
            }
        }
    };
}

defences! {
    CheckThenAct => "check_then_act", "Check, then act",
        "read the seat, then book it if it looked free";
    Transaction => "transaction", "Transaction",
        "the same read and write inside a READ COMMITTED transaction";
    RepeatableRead => "repeatable_read", "Repeatable read",
        "the same read and write inside a REPEATABLE READ transaction";
    Serializable => "serializable", "Serializable",
        "the same read and write inside a SERIALIZABLE transaction";
    AtomicUpdate => "atomic_update", "Atomic write",
        "one conditional UPDATE that takes the seat only if it is still free";
    LockRow => "lock_row", "Row lock",
        "lock the row with SELECT … FOR UPDATE, then write";
    LockNowait => "lock_nowait", "Row lock, NOWAIT",
        "lock every seat with FOR UPDATE NOWAIT: all of them or none";
    SkipLocked => "skip_locked", "Row lock, SKIP LOCKED",
        "lock with FOR UPDATE SKIP LOCKED, then write what was not skipped";
    RepeatableReadRetry => "repeatable_read_retry", "Repeatable read, and try again",
        "the REPEATABLE READ transaction, tried once more if it fails with 40001 or 40P01";
    SerializableRetry => "serializable_retry", "Serializable, and try again",
        "the SERIALIZABLE transaction, tried once more if it fails with 40001 or 40P01";
    LockNowaitRetry => "lock_nowait_retry", "Row lock, NOWAIT, and try again",
        "lock every seat with FOR UPDATE NOWAIT, and try once more if they were busy (55P03)";
    UniqueConstraint => "unique_constraint", "Unique constraint",
        "read, then insert the ticket: the unique key refuses a second one";
    HoldConfirm => "hold_confirm", "Hold, pay, confirm",
        "hold the seat, pay with the hold id, confirm only if the hold is still ours";
    ExpiryOnly => "expiry_only", "A hold left to expire",
        "hold, leave without releasing, come back: locked out by one's own hold";
    ReleaseOnExit => "release_on_exit", "A hold released on leaving",
        "hold, release on leaving, come back: the seat is there again";
    RedisHold => "redis_hold", "Redis hold, then a ticket",
        "hold in Redis with SET NX and a TTL, pay, insert the ticket: the unique key decides";
    RedisUpdate => "redis_update", "Redis hold, then an UPDATE",
        "hold in Redis with SET NX and a TTL, pay, UPDATE the seat to BOOKED: nothing checks";
    RedisExpiryOnly => "redis_expiry_only", "Redis hold, left to its TTL",
        "hold in Redis, leave without deleting the key, come back: locked out until the TTL";
    RedisReleaseOnExit => "redis_release_on_exit", "Redis hold, deleted on leaving",
        "hold in Redis, delete the key on leaving, come back: the seat is there again";
}

use Defence::*;

impl Defence {
    /// The defence spelled `id` (`check_then_act`), or `None`.
    pub fn parse(id: &str) -> Option<Defence> {
        Defence::ALL.into_iter().find(|d| d.id() == id)
    }

    /// Every identifier, in the order of `ALL` (for messages that list what is accepted).
    pub fn ids() -> impl Iterator<Item = &'static str> {
        Defence::ALL.into_iter().map(Defence::id)
    }

    /// The identifier, as schedules, links and the room API spell it.
    pub const fn id(self) -> &'static str {
        self.words().0
    }

    /// What a page calls it ("Check, then act").
    pub const fn title(self) -> &'static str {
        self.words().1
    }

    /// One line saying what it does.
    pub const fn summary(self) -> &'static str {
        self.words().2
    }

    /// Whether it holds the seat first and books when the buyer pays: its program has a
    /// payment (a live room splits a tap from a payment there).
    pub fn pays(self) -> bool {
        matches!(self, HoldConfirm | RedisHold | RedisUpdate)
    }

    /// Whether its hold lives in Redis (`SET NX` with a TTL).
    pub fn needs_redis(self) -> bool {
        matches!(
            self,
            RedisHold | RedisUpdate | RedisExpiryOnly | RedisReleaseOnExit
        )
    }

    /// Whether it applies to a scenario of `kind`: every operation of its program does (on a
    /// counter, the defences that read, lock, write and claim; not those that hold, pay or
    /// insert a ticket).
    pub fn fits(self, kind: Shape) -> bool {
        self.ops(&[String::new()]).iter().all(|op| kind.fits(op))
    }

    /// The defence whose transaction a `_retry` variant tries twice, or `None`.
    pub fn retried(self) -> Option<Defence> {
        match self {
            RepeatableReadRetry => Some(RepeatableRead),
            SerializableRetry => Some(Serializable),
            LockNowaitRetry => Some(LockNowait),
            _ => None,
        }
    }
}

impl fmt::Display for Defence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl std::str::FromStr for Defence {
    type Err = String;

    /// The defence spelled `id`; the error names every accepted identifier.
    fn from_str(id: &str) -> Result<Defence, String> {
        Defence::parse(id).ok_or_else(|| {
            format!(
                "unknown defence {id:?}: expected one of {}",
                Defence::ids().collect::<Vec<_>>().join(", ")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::Op;

    #[test]
    fn every_defence_reads_back_from_its_id_and_has_a_program_title_and_summary() {
        for d in Defence::ALL {
            assert_eq!(Defence::parse(d.id()), Some(d));
            assert_eq!(
                serde_json::to_string(&d).unwrap(),
                format!("\"{}\"", d.id())
            );
            let (ops, conditions) = d.program(&["A7".to_string()]);
            assert!(!ops.is_empty() && ops.len() == conditions.len(), "{d}");
            assert!(!d.title().is_empty() && !d.summary().is_empty(), "{d}");
            let pays = ops.iter().any(|op| matches!(op, Op::Pay { .. }));
            assert_eq!(d.pays(), pays, "{d}");
            let redis = ops.iter().any(|op| matches!(op, Op::RedisHold { .. }));
            assert_eq!(d.needs_redis(), redis, "{d}");
        }
        assert_eq!(Defence::parse("optimism"), None);
        assert_eq!(Defence::parse("check_then_act_retry"), None);
        assert!("optimism"
            .parse::<Defence>()
            .unwrap_err()
            .contains("check_then_act"));
    }
}
