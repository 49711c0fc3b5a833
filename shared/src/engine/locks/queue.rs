//! Waiting for a row lock or for a transaction's end: joining a row's queue (or going back to
//! one's place in it), following a row's update chain, moving up to the head of a queue, and
//! whether a wait is over.

use super::super::mvcc::{Db, TxId, VerId};
use super::{Account, Locks, Wait, WaitOn};

/// Whether `tx` is still running and has written the newest version of `seat`.
fn updating(db: &Db, seat: usize, tx: Option<TxId>) -> bool {
    tx.is_some_and(|t| db.is_active(t) && db.versions[db.newest[seat] as usize].xmin == t)
}

impl Locks {
    /// `actor` joins the queue of version `tid` of `seat`, or goes back to waiting in the
    /// place it had (`had`: its wait before it was woken, if it was for that version). It
    /// reads the row as it does (`seen`, `saw_update`).
    pub fn enqueue(&mut self, actor: usize, seat: usize, tid: VerId, had: Option<Wait>, db: &Db) {
        let seen = self.holder[seat];
        let saw_update = updating(db, seat, seen);
        self.join(
            actor,
            WaitOn::Row(seat as u8, tid),
            (seen, saw_update),
            had,
            db,
        );
    }

    /// `actor` joins the queue of account `a`, or goes back to waiting in the place it had.
    /// An account is never updated: there is no update to see.
    pub fn enqueue_account(&mut self, actor: usize, a: Account, had: Option<Wait>, db: &Db) {
        let seen = self.account_holder(a);
        self.join(actor, WaitOn::Account(a), (seen, false), had, db);
    }

    /// `actor` joins the queue `on` (a row's or an account's), having read its holder `seen`.
    fn join(
        &mut self,
        actor: usize,
        on: WaitOn,
        (seen, saw_update): (Option<TxId>, bool),
        had: Option<Wait>,
        db: &Db,
    ) {
        let (queued, head) = match had.filter(|w| w.on == on) {
            Some(w) => (w.queued, w.head),
            None => {
                if had.is_some() {
                    // It left the queue of another version: the next there moves up first.
                    self.promote_heads(db);
                }
                (self.tick(), self.queued_on(on).next().is_none())
            }
        };
        let holder = if head { seen } else { None };
        let t = self.tick();
        self.waits[actor] = Some(Wait {
            on,
            since: t,
            began: self.entry_seq,
            queued,
            head,
            holder,
            checked: false,
            seen,
            saw_update,
            chain: false,
        });
    }

    /// `actor`, the head of a row's queue (`place`: its wait there), follows the row's update
    /// chain to a newer version that `other` holds, and waits for `other` in its place: a new
    /// wait, with a deadlock timer of its own.
    pub fn wait_on_chain(&mut self, actor: usize, place: Wait, other: TxId) {
        let t = self.tick();
        self.waits[actor] = Some(Wait {
            since: t,
            began: self.entry_seq,
            head: true,
            holder: Some(other),
            checked: false,
            chain: true,
            ..place
        });
    }

    /// `actor` waits for the transaction `other` to end (`on`: `Xact` or `Update`).
    pub fn wait_for_tx(&mut self, actor: usize, other: TxId, on: WaitOn) {
        let t = self.tick();
        self.waits[actor] = Some(Wait {
            on,
            since: t,
            began: self.entry_seq,
            queued: t,
            head: true,
            holder: Some(other),
            checked: false,
            seen: Some(other),
            saw_update: false,
            chain: false,
        });
    }

    /// Whether the wait of `actor` is over: the transaction it waited for has ended (as the
    /// head of its row's queue, or for a unique key), or, as the head, its version of the row
    /// was replaced by a committed update.
    pub fn runnable(&self, actor: usize, db: &Db) -> bool {
        let Some(w) = self.waits[actor] else {
            return false;
        };
        match w.on {
            WaitOn::Xact(t) | WaitOn::Update(_, t) => !db.is_active(t),
            WaitOn::Row(seat, tid) => {
                w.head
                    && (w.holder.is_none_or(|h| !db.is_active(h))
                        || (!w.chain && db.replaced(seat as usize, tid)))
            }
            WaitOn::Account(_) => w.head && w.holder.is_none_or(|h| !db.is_active(h)),
        }
    }

    /// Makes the first waiter of each queue its head: it now waits for the row's holder, a
    /// new wait. Given the tuple lock, it waits for the holder it saw as it queued; if that
    /// one has ended and another holds the row (its version not replaced), it reads the row
    /// again, and sees what the one ahead of it did to the row before it let go.
    pub fn promote_heads(&mut self, db: &Db) {
        for a in 0..self.waits.len() {
            let Some(w) = self.waits[a] else { continue };
            if w.head || self.queued_on(w.on).any(|(_, o)| o.queued < w.queued) {
                continue;
            }
            let (holder, reread, saw_update) = match w.on {
                WaitOn::Row(seat, tid) => {
                    let seat = seat as usize;
                    let holder = self.holder[seat];
                    // A version replaced by a committed update is not read again: the waiter
                    // goes by what it saw as it queued.
                    let reread = holder != w.seen && !db.replaced(seat, tid);
                    (holder, reread, updating(db, seat, holder))
                }
                // An account is never replaced: it is read again, and never seen updated.
                WaitOn::Account(acct) => {
                    let holder = self.account_holder(acct);
                    (holder, holder != w.seen, false)
                }
                WaitOn::Xact(_) | WaitOn::Update(..) => continue,
            };
            let t = self.tick();
            let began = self.entry_seq;
            let w = self.waits[a].as_mut().expect("a waiter");
            w.head = true;
            w.since = t;
            w.began = began;
            w.holder = holder;
            w.checked = false;
            if reread {
                w.seen = holder;
                w.saw_update = saw_update;
            }
        }
    }
}
