//! Row locks, their FIFO queues, waits for another transaction's end, and the wait-for graph
//! with its deadlock victim.
//!
//! Every row locker in the model is exclusive (UPDATE without a key change, FOR UPDATE), so a
//! row has at most one holder. As in PostgreSQL, waiters queue on one version of the row (the
//! tuple lock of its TID): the first waits for the end of the transaction that held the row
//! when it arrived; every later one waits for all the waiters ahead of it (`pg_blocking_pids`
//! of the third names the first two). A waiter that moves up to the head, or goes back to
//! waiting, starts a new wait, and so a new deadlock timer. When a committed update replaces
//! the version, its queue breaks up: each waiter in turn finds the row replaced (TM_Updated)
//! and fails (REPEATABLE READ, SERIALIZABLE) or re-checks and queues on the newest version.
//!
//! What a waiter does when the version it queued on is replaced depends on what it saw when its
//! wait began (the tuple's infomask, read before it slept): a locking read that saw the holder
//! had already *updated* the row locks the rest of the update chain after its wait
//! (heap_lock_updated_tuple), holding on to the tuple lock, so the queue behind it stays in
//! order; one that saw a lock only, like an UPDATE, finds the row replaced (TM_Updated), lets
//! go of the tuple lock at once and goes for the newest version, and so do all the others
//! behind it, one woken by the other in a quick cascade: they reach the newest version in
//! whichever order the machine runs them. The model keeps their queue order and marks the
//! entry as a race.
//!
//! When a holder ends, the woken head of the queue proceeds first, even if another statement
//! woken by the same commit reaches the row before it runs. (In PostgreSQL that is a race:
//! heap_update finds the row unlocked and does not ask for the tuple lock; the head, with
//! less work left, usually wins it, but not always: such orders can disagree with a real run.)
//!
//! A username's accounts (rows of `users`, never updated or deleted) have row locks of their
//! own beside the seats' (`Account`): a username's FOR UPDATE locks each account it sees, in
//! user_id order, and its waiters queue per account just as on a seat's row, without versions
//! to replace.
//!
//! Waiting is `queue`'s (joining a queue, moving up, whether a wait is over); the wait-for graph
//! and its deadlock victim are `deadlock`'s.

mod deadlock;
mod queue;

use super::mvcc::{TxId, VerId};

/// What a statement waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitOn {
    /// The row lock of a seat, queued on one of its versions.
    Row(u8, VerId),
    /// The end of a transaction (its uncommitted insert of the same unique key).
    Xact(TxId),
    /// The end of the transaction that is updating a row whose older version this statement
    /// evaluated: EvalPlanQual follows the update chain and waits for the updater without
    /// taking the tuple lock, so outside the row's queue.
    Update(u8, TxId),
    /// The row lock of an account of a username.
    Account(Account),
}

/// An account of a username (a row of `users`), named by the transaction that inserted it and
/// its place among that transaction's accounts of the name: the scenario's account of a taken
/// name is (`BOOTSTRAP`, 0). A transaction's accounts vanish together when it rolls back, so the
/// name of every other account stays the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Account {
    pub seat: u8,
    pub xmin: TxId,
    pub k: u8,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Wait {
    pub on: WaitOn,
    /// When its current wait began (a global sequence): orders wake-ups and deadlock checks.
    pub since: u32,
    /// The sequence at the start of the entry during which its current wait began: two waits
    /// with the same began in one wake-up, in an order the machine picks.
    pub began: u32,
    /// Its place in the row's queue (a global sequence).
    pub queued: u32,
    /// Whether it is the first in its row's queue.
    pub head: bool,
    /// The transaction whose end it waits for, as the head.
    pub holder: Option<TxId>,
    /// Its deadlock check has run and found no cycle through it: PostgreSQL checks once per
    /// wait, so it never fails this wait for a deadlock (see `mark_checked`).
    pub checked: bool,
    /// The row's holder when this waiter last read the row (as it joined the queue, or as it
    /// moved up to a holder other than the one it saw), and whether that holder had already
    /// updated the row then: a locking read that saw an update follows the update chain after
    /// its wait instead of letting go (see the module's comment).
    pub seen: Option<TxId>,
    pub saw_update: bool,
    /// As the head of its queue, it follows the update chain: it waits for `holder`, the
    /// holder of the row's newest version, and keeps its place (the tuple lock) meanwhile,
    /// so the queue behind it waits for it (heap_lock_updated_tuple runs inside
    /// heap_lock_tuple, before the tuple lock is let go).
    pub chain: bool,
}

impl Wait {
    /// Whether a locking read woken from this wait, its version replaced by `updater`'s
    /// committed update, locks the newest version along the update chain before it lets go
    /// of its place: it was already following the chain, or it saw that very update begin.
    /// (Had it seen another holder's update, since rolled back, its walk along that chain
    /// ends at once; it reads the row again and finds it replaced: TM_Updated.)
    pub fn follows_updates(&self, updater: Option<TxId>) -> bool {
        match self.on {
            WaitOn::Row(..) => self.chain || (self.saw_update && self.seen == updater),
            WaitOn::Update(..) => true,
            WaitOn::Xact(_) | WaitOn::Account(_) => false,
        }
    }
}

/// The row locks and who waits for what.
#[derive(Debug)]
pub(crate) struct Locks {
    /// Per seat: the transaction holding its row lock.
    pub holder: Vec<Option<TxId>>,
    /// Per seat: the entry during which its holder took it.
    taken: Vec<usize>,
    /// Per seat: one more than the entry during which a statement that a commit or rollback
    /// woke took its row lock (0: never).
    locked_by_woken: Vec<usize>,
    /// Per seat: one more than the entry during which a statement that a commit or rollback
    /// woke inserted its ticket (0: never).
    ticketed: Vec<usize>,
    /// The accounts' row locks: each account locked, and the transaction holding it.
    accounts: Vec<(Account, TxId)>,
    /// The accounts that a statement woken during the current entry locked.
    accounts_by_woken: Vec<Account>,
    /// Per actor: what its statement in flight waits for.
    pub waits: Vec<Option<Wait>>,
    seq: u32,
    /// The sequence at the start of the current entry (`start_entry`).
    entry_seq: u32,
}

clone_reusing!(Locks {
    holder,
    taken,
    locked_by_woken,
    ticketed,
    accounts,
    accounts_by_woken,
    waits,
    seq,
    entry_seq,
});

impl Locks {
    pub fn new(seats: usize, actors: usize) -> Locks {
        Locks {
            holder: vec![None; seats],
            taken: vec![0; seats],
            locked_by_woken: vec![0; seats],
            ticketed: vec![0; seats],
            accounts: Vec::new(),
            accounts_by_woken: Vec::new(),
            waits: vec![None; actors],
            seq: 0,
            entry_seq: 0,
        }
    }

    /// An entry begins: the waits that begin from now on began during it.
    pub fn start_entry(&mut self) {
        self.entry_seq = self.seq;
        self.accounts_by_woken.clear();
    }

    fn tick(&mut self) -> u32 {
        self.seq += 1;
        self.seq
    }

    /// Whether an actor other than `actor` queues for the row lock of `seat` (on any version).
    pub fn queued_for_seat(&self, seat: usize, actor: usize) -> bool {
        self.waits.iter().enumerate().any(|(a, w)| {
            a != actor && w.is_some_and(|w| matches!(w.on, WaitOn::Row(s, _) if s as usize == seat))
        })
    }

    /// The actors other than `actor` that queue on `on`.
    pub fn others_queued_on(&self, on: WaitOn, actor: usize) -> impl Iterator<Item = usize> + '_ {
        self.queued_on(on)
            .map(|(a, _)| a)
            .filter(move |&a| a != actor)
    }

    fn queued_on(&self, on: WaitOn) -> impl Iterator<Item = (usize, &Wait)> + '_ {
        self.waits
            .iter()
            .enumerate()
            .filter_map(move |(a, w)| w.as_ref().filter(|w| w.on == on).map(|w| (a, w)))
    }

    /// Whether `tx` must wait for the row lock of `seat` (at its newest committed version
    /// `tid`): someone else holds it, or queues for that version ahead of it (`had`: its own
    /// place, if it was woken from that queue).
    pub fn contended(&self, seat: usize, tid: VerId, tx: TxId, had: Option<&Wait>) -> bool {
        let on = WaitOn::Row(seat as u8, tid);
        let ahead = |o: &Wait| {
            had.filter(|h| h.on == on)
                .is_none_or(|h| o.queued < h.queued)
        };
        let chain = had.is_some_and(|h| match h.on {
            WaitOn::Update(s, _) => s == seat as u8,
            WaitOn::Row(s, _) => h.chain && s == seat as u8,
            WaitOn::Xact(_) | WaitOn::Account(_) => false,
        });
        match self.holder[seat] {
            Some(h) => h != tx,
            // Woken from following this row's update chain, it re-fetches the row at once and
            // finds it unlocked (TM_Ok): it never asks for the tuple lock the queue waits on.
            None if chain => false,
            None => self.queued_on(on).any(|(_, o)| ahead(o)),
        }
    }

    /// `tx` takes the row lock of `seat` during entry `k`.
    pub fn take(&mut self, seat: usize, tx: TxId, k: usize) {
        self.holder[seat] = Some(tx);
        self.taken[seat] = k;
    }

    /// A statement woken during entry `k` took the row lock of `seat`.
    pub fn lock_by_woken(&mut self, seat: usize, k: usize) {
        self.locked_by_woken[seat] = k + 1;
    }

    /// Whether a statement woken during entry `k` took the row lock of `seat` (it may have
    /// let go of it since).
    pub fn locked_by_woken(&self, seat: usize, k: usize) -> bool {
        self.locked_by_woken[seat] == k + 1
    }

    /// A statement woken during entry `k` inserted the ticket of `seat`.
    pub fn ticket_by_woken(&mut self, seat: usize, k: usize) {
        self.ticketed[seat] = k + 1;
    }

    /// Whether a statement woken during entry `k` inserted the ticket of `seat`.
    pub fn ticketed_by_woken(&self, seat: usize, k: usize) -> bool {
        self.ticketed[seat] == k + 1
    }

    /// Whether the row lock of `seat` was taken during entry `k`.
    pub fn taken_during(&self, seat: usize, k: usize) -> bool {
        self.holder[seat].is_some() && self.taken[seat] == k
    }

    /// Releases every row lock of `tx`, its accounts' included.
    pub fn release(&mut self, tx: TxId) {
        for h in &mut self.holder {
            if *h == Some(tx) {
                *h = None;
            }
        }
        self.accounts.retain(|&(_, h)| h != tx);
    }

    /// The transaction holding the row lock of account `a`.
    pub fn account_holder(&self, a: Account) -> Option<TxId> {
        self.accounts
            .iter()
            .find(|&&(b, _)| b == a)
            .map(|&(_, h)| h)
    }

    /// Whether any account's row lock is held.
    pub fn any_account_locked(&self) -> bool {
        !self.accounts.is_empty()
    }

    /// Whether `tx` must wait for the row lock of account `a`: someone else holds it, or
    /// queues for it ahead of it (`had`: its own place, if it was woken from that queue).
    pub fn account_contended(&self, a: Account, tx: TxId, had: Option<&Wait>) -> bool {
        let on = WaitOn::Account(a);
        match self.account_holder(a) {
            Some(h) => h != tx,
            None => self.queued_on(on).any(|(_, o)| {
                had.filter(|h| h.on == on)
                    .is_none_or(|h| o.queued < h.queued)
            }),
        }
    }

    /// `tx` takes the row lock of account `a`; `woken`: a statement that a commit or rollback
    /// woke during this entry.
    pub fn take_account(&mut self, a: Account, tx: TxId, woken: bool) {
        if self.account_holder(a).is_none() {
            self.accounts.push((a, tx));
        }
        if woken && !self.accounts_by_woken.contains(&a) {
            self.accounts_by_woken.push(a);
        }
    }

    /// Whether a statement woken during this entry took the row lock of account `a` (it may
    /// have let go of it since).
    pub fn account_locked_by_woken(&self, a: Account) -> bool {
        self.accounts_by_woken.contains(&a)
    }

    /// The wait sequence of `actor`'s current wait (for waking waiters in order).
    pub fn since(&self, actor: usize) -> Option<u32> {
        self.waits[actor].map(|w| w.since)
    }
}
