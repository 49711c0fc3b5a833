//! Row locks, their FIFO queues, waits for another transaction's end, and the wait-for graph
//! with its deadlock victim.
//!
//! Every row locker in the model is exclusive (UPDATE without a key change, FOR UPDATE), so a
//! row has at most one holder. As in PostgreSQL, the first waiter of a row (which holds the
//! tuple lock) waits for the end of the transaction that held the row when it arrived; every
//! later one waits for all the waiters ahead of it (they queue on the tuple lock:
//! `pg_blocking_pids` of the third names the first two). A waiter that moves up to the head,
//! or goes back to waiting, starts a new wait, and so a new deadlock timer.
//!
//! The queue only orders those who find the row locked: a statement that reaches a row whose
//! holder has just ended, before the woken head has run, takes it at once (heap_update sees
//! the row unlocked, TM_Ok, and never asks for the tuple lock); the head, once it runs, waits
//! for it in turn, unless the row was replaced meanwhile (then it re-checks or fails without
//! waiting). In PostgreSQL that is a race between waiters woken by the same commit; the model
//! settles it as the wake-up order does, the earliest waiter first.

use super::mvcc::{Db, TxId};

/// What a statement waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitOn {
    /// The row lock of a seat.
    Row(u8),
    /// The end of a transaction (its uncommitted insert of the same unique key).
    Xact(TxId),
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Wait {
    pub on: WaitOn,
    /// When its current wait began (a global sequence): orders wake-ups and deadlock checks.
    pub since: u32,
    /// Its place in the row's queue (a global sequence).
    pub queued: u32,
    /// Whether it is the first in its row's queue.
    pub head: bool,
    /// The transaction whose end it waits for, as the head.
    pub holder: Option<TxId>,
}

/// The row locks and who waits for what.
#[derive(Clone, Debug)]
pub(crate) struct Locks {
    /// Per seat: the transaction holding its row lock.
    pub holder: Vec<Option<TxId>>,
    /// Per actor: what its statement in flight waits for.
    pub waits: Vec<Option<Wait>>,
    seq: u32,
}

impl Locks {
    pub fn new(seats: usize, actors: usize) -> Locks {
        Locks {
            holder: vec![None; seats],
            waits: vec![None; actors],
            seq: 0,
        }
    }

    fn tick(&mut self) -> u32 {
        self.seq += 1;
        self.seq
    }

    fn queued_on(&self, seat: usize) -> impl Iterator<Item = (usize, &Wait)> + '_ {
        self.waits.iter().enumerate().filter_map(move |(a, w)| {
            w.as_ref()
                .filter(|w| w.on == WaitOn::Row(seat as u8))
                .map(|w| (a, w))
        })
    }

    /// Whether someone other than `tx` holds the row lock of `seat`.
    pub fn contended(&self, seat: usize, tx: TxId) -> bool {
        self.holder[seat].is_some_and(|h| h != tx)
    }

    pub fn take(&mut self, seat: usize, tx: TxId) {
        self.holder[seat] = Some(tx);
    }

    /// `actor` joins the queue of `seat`, or goes back to waiting in the
    /// place it had (`had`: its wait before it was woken, if it was for this row).
    pub fn enqueue(&mut self, actor: usize, seat: usize, had: Option<Wait>) {
        let t = self.tick();
        let (queued, head) = match had.filter(|w| w.on == WaitOn::Row(seat as u8)) {
            Some(w) => (w.queued, w.head),
            None => (t, self.queued_on(seat).next().is_none()),
        };
        let holder = if head { self.holder[seat] } else { None };
        self.waits[actor] = Some(Wait {
            on: WaitOn::Row(seat as u8),
            since: t,
            queued,
            head,
            holder,
        });
    }

    /// `actor` waits for the transaction `other` to end.
    pub fn wait_for_tx(&mut self, actor: usize, other: TxId) {
        let t = self.tick();
        self.waits[actor] = Some(Wait {
            on: WaitOn::Xact(other),
            since: t,
            queued: t,
            head: true,
            holder: Some(other),
        });
    }

    /// Releases every row lock of `tx`.
    pub fn release(&mut self, tx: TxId) {
        for h in &mut self.holder {
            if *h == Some(tx) {
                *h = None;
            }
        }
    }

    /// The actors that `actor` waits for, in actor order.
    pub fn blockers(&self, actor: usize, db: &Db) -> Vec<usize> {
        let Some(w) = self.waits[actor] else {
            return Vec::new();
        };
        let mut out: Vec<usize> = match w.on {
            WaitOn::Xact(t) => vec![db.txs[t as usize].actor as usize],
            WaitOn::Row(_) if w.head => w
                .holder
                .filter(|&h| db.is_active(h))
                .map(|h| db.txs[h as usize].actor as usize)
                .into_iter()
                .collect(),
            WaitOn::Row(seat) => self
                .queued_on(seat as usize)
                .filter(|(_, o)| o.queued < w.queued)
                .map(|(a, _)| a)
                .collect(),
        };
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether the wait of `actor` is over: the transaction it waited for has ended (as the
    /// head of its row's queue, or for a unique key).
    pub fn runnable(&self, actor: usize, db: &Db) -> bool {
        let Some(w) = self.waits[actor] else {
            return false;
        };
        match w.on {
            WaitOn::Xact(t) => !db.is_active(t),
            WaitOn::Row(_) => w.head && w.holder.is_none_or(|h| !db.is_active(h)),
        }
    }

    /// Makes the first waiter of each queue its head: it now waits for the row's holder, a
    /// new wait.
    pub fn promote_heads(&mut self) {
        for a in 0..self.waits.len() {
            let Some(w) = self.waits[a] else { continue };
            let WaitOn::Row(seat) = w.on else { continue };
            if !w.head
                && self
                    .queued_on(seat as usize)
                    .all(|(_, o)| o.queued >= w.queued)
            {
                let t = self.tick();
                let holder = self.holder[seat as usize];
                let w = self.waits[a].as_mut().expect("a waiter");
                w.head = true;
                w.since = t;
                w.holder = holder;
            }
        }
    }

    /// The waiter whose wait began first among those that run into a cycle of waits leading
    /// back to themselves: PostgreSQL's deadlock check runs `deadlock_timeout` after a wait
    /// begins, so the earliest waiter on the cycle is the one that finds it and gives up.
    pub fn deadlock_victim(&self, db: &Db) -> Option<usize> {
        if self.waits.iter().flatten().count() < 2 {
            return None;
        }
        let n = self.waits.len();
        let edges: Vec<Vec<usize>> = (0..n).map(|a| self.blockers(a, db)).collect();
        let mut waiting: Vec<usize> = (0..n).filter(|&a| self.waits[a].is_some()).collect();
        waiting.sort_by_key(|&a| self.waits[a].map(|w| w.since));
        waiting.into_iter().find(|&a| reaches(&edges, a, a))
    }

    /// The wait sequence of `actor`'s current wait (for waking waiters in order).
    pub fn since(&self, actor: usize) -> Option<u32> {
        self.waits[actor].map(|w| w.since)
    }
}

/// Whether `to` can be reached from `from` along at least one edge.
fn reaches(edges: &[Vec<usize>], from: usize, to: usize) -> bool {
    let mut seen = vec![false; edges.len()];
    let mut stack: Vec<usize> = edges[from].clone();
    while let Some(a) = stack.pop() {
        if a == to {
            return true;
        }
        if !std::mem::replace(&mut seen[a], true) {
            stack.extend(edges[a].iter().copied());
        }
    }
    false
}
