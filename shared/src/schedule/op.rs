//! The operations of a program: what each one is, as the file names it and as the rest of the
//! crate asks about it, and when it runs (its `"if"`). Their arguments are `args`'s.

mod args;

use serde::{Deserialize, Serialize};

use super::SeatStatus;

pub use args::{Isolation, Now, PayOutcome, Wait};

/// Every operation's name as a file writes it (`Op::name`), in the order the errors list them.
pub(crate) const OP_NAMES: [&str; 16] = [
    "begin",
    "commit",
    "rollback",
    "read",
    "lock",
    "write",
    "claim",
    "book",
    "hold",
    "confirm",
    "pay",
    "release",
    "redis_hold",
    "redis_release",
    "advance",
    "sweep",
];

fn default_held() -> SeatStatus {
    SeatStatus::Held
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// One operation: exactly one round trip to the database (`pay` and the Redis ops excepted:
/// they talk to the payment provider and to a simulated Redis).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    Begin {
        #[serde(default, skip_serializing_if = "is_default")]
        isolation: Isolation,
    },
    Commit,
    Rollback,
    Read {
        seats: Vec<String>,
    },
    Lock {
        seats: Vec<String>,
        #[serde(default, skip_serializing_if = "is_default")]
        wait: Wait,
    },
    Write {
        seats: Vec<String>,
        #[serde(default = "default_held")]
        status: SeatStatus,
    },
    Claim {
        seats: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        now: Option<Now>,
    },
    Book {
        seats: Vec<String>,
    },
    Hold {
        seats: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        attempt: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        now: Option<Now>,
    },
    Confirm {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        now: Option<Now>,
    },
    Pay {
        #[serde(default, skip_serializing_if = "is_default")]
        outcome: PayOutcome,
    },
    Release,
    /// A hold kept in Redis instead of the database, simulated like the payment provider (no
    /// PostgreSQL round trip): `SET hold:{show}:{seat} {hold id} NX PX {hold length}` for every
    /// seat, all or nothing (a Lua script when there are several). It answers `held` if no
    /// seat had a live key, else `unavailable`; the key dies by itself when its time runs out.
    RedisHold {
        seats: Vec<String>,
    },
    /// Deletes this actor's Redis hold keys, only where the key still holds its hold id (a
    /// compare-and-delete script): `released`, or `expired` when none was left.
    RedisRelease,
    Advance {
        minutes: i64,
    },
    Sweep,
}

impl Op {
    /// The op's name as written in a file.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Begin { .. } => "begin",
            Op::Commit => "commit",
            Op::Rollback => "rollback",
            Op::Read { .. } => "read",
            Op::Lock { .. } => "lock",
            Op::Write { .. } => "write",
            Op::Claim { .. } => "claim",
            Op::Book { .. } => "book",
            Op::Hold { .. } => "hold",
            Op::Confirm { .. } => "confirm",
            Op::Pay { .. } => "pay",
            Op::Release => "release",
            Op::RedisHold { .. } => "redis_hold",
            Op::RedisRelease => "redis_release",
            Op::Advance { .. } => "advance",
            Op::Sweep => "sweep",
        }
    }

    /// The seats the op names (empty for ops that name none).
    pub fn seats(&self) -> &[String] {
        match self {
            Op::Read { seats }
            | Op::Lock { seats, .. }
            | Op::Write { seats, .. }
            | Op::Claim { seats, .. }
            | Op::Book { seats }
            | Op::Hold { seats, .. }
            | Op::RedisHold { seats } => seats,
            _ => &[],
        }
    }

    pub(super) fn seats_mut(&mut self) -> Option<&mut Vec<String>> {
        match self {
            Op::Read { seats }
            | Op::Lock { seats, .. }
            | Op::Write { seats, .. }
            | Op::Claim { seats, .. }
            | Op::Book { seats }
            | Op::Hold { seats, .. }
            | Op::RedisHold { seats } => Some(seats),
            _ => None,
        }
    }

    /// The clock reading its deadline test uses, with the op's default filled in.
    pub fn now(&self) -> Now {
        match self {
            Op::Claim { now, .. } => now.unwrap_or(Now::Transaction),
            Op::Hold { now, .. } | Op::Confirm { now } => now.unwrap_or(Now::Evaluation),
            _ => Now::Transaction,
        }
    }

    /// One-call operations run as their own transaction and may not sit inside `begin`.
    pub fn is_one_call(&self) -> bool {
        matches!(
            self,
            Op::Hold { .. }
                | Op::Confirm { .. }
                | Op::Release
                | Op::Pay { .. }
                | Op::RedisHold { .. }
                | Op::RedisRelease
        )
    }

    /// Talks to the simulated Redis, not to PostgreSQL.
    pub fn is_redis(&self) -> bool {
        matches!(self, Op::RedisHold { .. } | Op::RedisRelease)
    }

    /// Can get the actor seats: a hold (in the database or in Redis), a claim, a write, a
    /// ticket.
    pub fn takes_seats(&self) -> bool {
        matches!(
            self,
            Op::Hold { .. }
                | Op::RedisHold { .. }
                | Op::Claim { .. }
                | Op::Write { .. }
                | Op::Book { .. }
        )
    }

    /// A statement that can run inside a transaction or, outside one, as one of its own.
    pub fn is_statement(&self) -> bool {
        matches!(
            self,
            Op::Read { .. }
                | Op::Lock { .. }
                | Op::Write { .. }
                | Op::Claim { .. }
                | Op::Book { .. }
        )
    }

    /// `begin`, `commit` or `rollback`: the same on every shape's rows.
    pub fn is_begin_or_end(&self) -> bool {
        matches!(self, Op::Begin { .. } | Op::Commit | Op::Rollback)
    }

    pub fn is_clock_op(&self) -> bool {
        matches!(self, Op::Advance { .. } | Op::Sweep)
    }
}

/// When an operation of a program runs: always, or only if an earlier answer of its own buyer
/// says so (an application does not pay for a seat it was refused, and retries a transaction
/// that failed). An operation whose condition does not hold is `skipped`, so programs keep
/// their length and every order stays a permutation of the entries. Written `"if": "held"` or
/// `"if": "failed"` on an operation of a file; the exact rules are `client`'s (the module's
/// documentation), the one place that decides them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    #[default]
    Always,
    /// Only while the buyer's application was told it has its seats.
    Held,
    /// Only if the buyer's last attempt failed in a way worth retrying.
    Failed,
}

/// An operation as a file writes it, with its `"if"` unless it always runs.
pub fn op_value(op: &Op, condition: Condition) -> serde_json::Value {
    let mut value = serde_json::to_value(op).expect("ops serialise");
    if condition != Condition::Always {
        if let Some(o) = value.as_object_mut() {
            o.insert(
                "if".to_string(),
                serde_json::to_value(condition).expect("conditions serialise"),
            );
        }
    }
    value
}

impl Op {
    /// An operation as a file or the server's outcome writes it (`{"op": "claim", "seats":
    /// ["A7"]}`), read by the format's own reader: `None` if it is not one. The page reads the
    /// real run's steps with it (serde's derived reader of this enum is several times larger).
    pub fn from_json(value: &serde_json::Value) -> Option<Op> {
        super::decode::op("op", "", value).ok().map(|(op, _)| op)
    }
}
