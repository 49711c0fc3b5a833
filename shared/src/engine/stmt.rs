//! A statement in flight: where it is, what it has done so far (for its answer and its reason
//! line), the kinds of statement that visit rows, and the errors they end with.

use crate::outcome::StepResult;
use crate::schedule::{Condition, SeatStatus, Wait};
use crate::sqlstate::SqlState;

use super::mvcc::{SeatVal, Snap, TxId, VerId};

/// A statement sent and not finished: where it is, and what it has done so far.
#[derive(Debug)]
pub(crate) struct Running {
    pub entry: usize,
    pub op_index: usize,
    pub tx: TxId,
    /// An autocommit statement's own transaction, which ends with it.
    pub implicit: bool,
    pub kind: Kind,
    pub snap: Snap,
    /// Seats still to fetch, lowest index first.
    pub todo: u64,
    /// The seats its WHERE names; the others in `todo` are only fetched (see `scan`).
    pub want: u64,
    /// Rows updated, locked, inserted.
    pub count: u32,
    /// Rows a locking read returned: (seat, version).
    pub rows: Vec<(u8, VerId)>,
    /// The row it waits on, with the version it evaluated and whether that version was
    /// already found replaced (READ COMMITTED re-checks whatever is newest after the wait).
    pub pending: Option<(u8, VerId, bool)>,
    /// The clock when the row it waits on was fetched: the new row an UPDATE writes was
    /// computed then (`clock_now()` in its SET), unless EvalPlanQual recomputes it.
    pub fetched_at: i64,
    /// What happened to each row, for the reason line.
    pub facts: Facts,
    /// Its wait before it was woken: it keeps its place if it must wait for the row again.
    pub woken: Option<super::locks::Wait>,
    /// The entry during which a commit or rollback last woke it.
    pub woken_in: Option<usize>,
    /// A username's `lock`: the accounts of the name its scan found (each a row returned).
    pub accounts: u32,
}

clone_reusing!(Running {
    entry,
    op_index,
    tx,
    implicit,
    kind,
    snap,
    todo,
    want,
    count,
    rows,
    pending,
    fetched_at,
    facts,
    woken,
    woken_in,
    accounts,
});

/// What a statement did with one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fact {
    /// Updated, locked or inserted.
    Took,
    /// Its WHERE was false on the version it saw: this status.
    NoMatch(SeatStatus),
    /// After a wait, the re-check on the newest version failed: this status (the lock stays).
    Recheck(SeatStatus),
    /// Locked by someone else: skipped (SKIP LOCKED).
    Skipped,
}

/// What a statement did with each row, in seat order (a set of bit masks: no allocation).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Facts {
    took: u64,
    skipped: u64,
    no_match: u64,
    recheck: u64,
    /// Two bits per seat: the status seen, for `NoMatch` and `Recheck`.
    status: u128,
    /// InnoDB: rows an UPDATE wrote over a commit its REPEATABLE READ view does not see.
    overwrote: u64,
    /// Not sent: the operation's condition (`"if"`) did not hold.
    pub unmet: Option<Condition>,
}

impl Facts {
    pub fn push(&mut self, seat: u8, fact: Fact) {
        let bit = 1u64 << seat;
        let mut seen = |s: SeatStatus| self.status |= (s as u128) << (2 * seat as u32);
        match fact {
            Fact::Took => self.took |= bit,
            Fact::Skipped => self.skipped |= bit,
            Fact::NoMatch(s) => {
                seen(s);
                self.no_match |= bit
            }
            Fact::Recheck(s) => {
                seen(s);
                self.recheck |= bit
            }
        }
    }

    /// InnoDB: `seat` was updated over a commit the transaction's read view does not see.
    pub fn overwrote(&mut self, seat: u8) {
        self.overwrote |= 1 << seat;
    }

    /// The seats updated over a commit the read view does not see, in seat order.
    pub fn overwritten(&self) -> impl Iterator<Item = u8> + '_ {
        (0..64u8).filter(move |&s| self.overwrote & (1 << s) != 0)
    }

    /// Every row's fact, in seat order.
    pub fn iter(&self) -> impl Iterator<Item = (u8, Fact)> + '_ {
        let all = self.took | self.skipped | self.no_match | self.recheck;
        (0..64u8)
            .filter(move |&s| all & (1 << s) != 0)
            .map(move |s| {
                let bit = 1u64 << s;
                let status = match (self.status >> (2 * s as u32)) & 3 {
                    0 => SeatStatus::Available,
                    1 => SeatStatus::Held,
                    _ => SeatStatus::Booked,
                };
                let fact = if self.took & bit != 0 {
                    Fact::Took
                } else if self.skipped & bit != 0 {
                    Fact::Skipped
                } else if self.no_match & bit != 0 {
                    Fact::NoMatch(status)
                } else {
                    Fact::Recheck(status)
                };
                (s, fact)
            })
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    Lock(Wait),
    Update(Upd),
    Book {
        hold: u16,
    },
    Confirm(Confirm),
    /// A username's account: `insert into users` (no key on the name).
    Account,
    /// A username's claim that ignores a duplicate: `on conflict do nothing`, `insert ignore`.
    Ignore {
        hold: u16,
    },
}

/// The UPDATE statements.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Upd {
    /// The conditional claim; `now: None` reads the clock at each evaluation.
    Claim {
        holder: u8,
        hold: u16,
        minutes: i64,
        now: Option<i64>,
    },
    /// The unconditional write of these values.
    Write(SeatVal),
    /// On a counter's row: `take` from its value (a flag: set it), only where at least `take`
    /// is left if `bounded` (the claim), whatever is left if not (the write after a check).
    Take {
        take: i64,
        bounded: bool,
        flag: bool,
    },
    /// Back to AVAILABLE where the hold is this one and still HELD.
    Release { hold: u16 },
    /// Back to AVAILABLE where the hold ran out by `clock_now()`.
    Sweep,
}

/// `confirm_hold` in flight: its hold, its `p_called_at` (`None`: evaluation), the seats it
/// locks, and whether it has moved on to inserting the tickets.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Confirm {
    pub hold: u16,
    pub holder: u8,
    pub called_at: Option<i64>,
    pub seats: u64,
    pub inserting: bool,
    /// InnoDB's `confirm_hold`: how far it got (`innodb::confirm`), and the seats it found
    /// valid on their locked rows.
    pub stage: u8,
    pub valid: u64,
}

/// The result of visiting a row.
pub(crate) enum Visit {
    /// Finished with this row: the version it took, if any.
    Done(Option<VerId>),
    /// Queued for the row lock.
    Wait,
    Fail(StepResult),
}

pub(crate) fn error(code: SqlState, message: &str) -> StepResult {
    StepResult::Error {
        code,
        message: message.to_string(),
    }
}

pub(crate) fn concurrent_update() -> StepResult {
    error(
        SqlState::SerializationFailure,
        "could not serialize access due to concurrent update",
    )
}

pub(crate) fn rw_dependencies() -> StepResult {
    error(
        SqlState::SerializationFailure,
        "could not serialize access due to read/write dependencies among transactions",
    )
}
