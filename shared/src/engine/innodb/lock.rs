//! InnoDB's record locks, as lock0lock.cc keeps them: one list of lock requests in the order they
//! were made (the record's queue), each a mode (S or X) on a record, with or without the gap
//! before it, granted or waiting.
//!
//! A new request waits if any lock on the record, granted or still waiting, of another
//! transaction conflicts with it (lock_rec_other_has_conflicting); a waiting one is granted,
//! when locks go, as soon as no lock AHEAD of it conflicts (lock_rec_has_to_wait_in_queue).
//! INFORMATION_SCHEMA.INNODB_LOCK_WAITS names every conflicting lock ahead of a waiter, granted
//! or waiting: with three on a row, the third waits for the holder and the second (checked on
//! MariaDB 10.11). Which locks conflict is lock_rec_has_to_wait: S with S never; a gap lock
//! never waits; a record lock never waits for a gap lock, nor an insert intention for a lock on
//! the record alone; nothing waits for an insert intention.
//!
//! The seat rows are never inserted or deleted, so the gap half of the next-key locks that
//! REPEATABLE READ's scans take on them can never matter: every seat lock is kept as a record
//! lock. Gaps matter in `booking_seats` only, whose unique key is its clustered index.

use super::super::mvcc::TxId;

/// A record of an index that a lock names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rec {
    /// A seat's row in `show_seats`' primary key.
    Seat(u8),
    /// A seat's ticket in `booking_seats`' unique key (its clustered index).
    Ticket(u8),
    /// The supremum of `booking_seats`' index: the gap after its last ticket.
    TicketEnd,
    /// The supremum of `show_seats`' primary key: locked only by a SKIP LOCKED lookup that
    /// skipped the show's last seat (`rows`).
    SeatEnd,
    /// A hold's payment in `payments`' primary key.
    Payment(u16),
    /// The supremum of `payments`' index.
    PaymentEnd,
    /// An account in a username scenario's index on `users`' names (its id; the scenario's 0).
    Account(u16),
    /// The supremum of that index: the gap after the name's last account.
    AccountEnd,
    /// An account's row in `users`' clustered index (its id): a locking read through the
    /// index on the name locks it after the name's record, on a page of its own.
    AccountRow(u16),
}

impl Rec {
    /// Which index: locks of one transaction share a lock struct only within one index page
    /// (each index here fits on one page), and a lock that goes wakes the waiters of its page.
    pub(super) fn index(self) -> u8 {
        match self {
            Rec::Seat(_) | Rec::SeatEnd => 0,
            Rec::Ticket(_) | Rec::TicketEnd => 1,
            Rec::Payment(_) | Rec::PaymentEnd => 2,
            Rec::Account(_) | Rec::AccountEnd => 3,
            Rec::AccountRow(_) => 4,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    S,
    X,
}

/// What of the record a lock covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Span {
    /// The record alone (LOCK_REC_NOT_GAP).
    Record,
    /// The gap before the record alone (LOCK_GAP).
    Gap,
    /// An insert's intention to insert into the gap before the record.
    Insert,
    /// The record and the gap before it (LOCK_ORDINARY): only ever on `Rec::SeatEnd`, where it
    /// is a struct apart from a gap lock's.
    NextKey,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Lock {
    pub tx: TxId,
    pub actor: u8,
    pub rec: Rec,
    pub mode: Mode,
    pub span: Span,
    pub waiting: bool,
    /// Its lock struct: a transaction's granted locks of one kind on one page share one, which
    /// is what the deadlock victim's weight counts.
    pub strukt: u32,
}

/// Whether a request for `mode`/`span` on `rec` must wait for `other` (another transaction's
/// lock on the same record): lock_rec_has_to_wait.
pub(crate) fn has_to_wait(rec: Rec, mode: Mode, span: Span, other: &Lock) -> bool {
    if mode == Mode::S && other.mode == Mode::S {
        return false;
    }
    let supremum = matches!(
        rec,
        Rec::TicketEnd | Rec::SeatEnd | Rec::PaymentEnd | Rec::AccountEnd
    );
    if (supremum || span == Span::Gap) && span != Span::Insert {
        return false;
    }
    if span != Span::Insert && other.span == Span::Gap {
        return false;
    }
    if matches!(span, Span::Gap | Span::Insert) && other.span == Span::Record {
        return false;
    }
    other.span != Span::Insert
}

/// Every lock request, in the order made.
#[derive(Clone, Debug, Default)]
pub(crate) struct Table {
    pub list: Vec<Lock>,
    next_struct: u32,
    /// Lock structs that lock nothing any more but stay with their transactions until they
    /// end (lock_rec_unlock only resets the record's bit): counted in the weight, used again
    /// for a like lock on their page, and let go of at the end. (tx, page, mode, span, struct)
    vacant: Vec<(TxId, u8, Mode, Span, u32)>,
}

impl Table {
    /// Whether `tx` already holds a granted lock on `rec` at least as strong (lock_rec_has_expl).
    pub fn holds(&self, tx: TxId, rec: Rec, mode: Mode, span: Span) -> bool {
        span != Span::Insert
            && self.list.iter().any(|l| {
                l.tx == tx
                    && l.rec == rec
                    && !l.waiting
                    && (l.mode == Mode::X || mode == Mode::S)
                    && (l.span == span || (span == Span::Gap && l.span == Span::Gap))
            })
    }

    /// The first lock on `rec` of another transaction that a request would wait for.
    pub fn conflict(&self, tx: TxId, rec: Rec, mode: Mode, span: Span) -> Option<&Lock> {
        self.list
            .iter()
            .find(|l| l.tx != tx && l.rec == rec && has_to_wait(rec, mode, span, l))
    }

    /// A record inserted before `next` takes on the gap locks granted on `next`, for the gap
    /// before it (lock_rec_inherit_to_gap_if_gap_lock).
    pub fn inherit_gaps(&mut self, next: Rec, inserted: Rec) {
        let gaps: Vec<_> = self
            .list
            .iter()
            .filter(|l| l.rec == next && !l.waiting && l.span == Span::Gap)
            .map(|l| (l.tx, l.actor, l.mode))
            .collect();
        for (tx, actor, mode) in gaps {
            self.grant(tx, actor as usize, inserted, mode, Span::Gap);
        }
    }

    /// Adds a granted lock, in the struct of a like one of the same transaction on the same page
    /// unless another transaction waits for this record (lock_rec_add_to_queue).
    pub fn grant(&mut self, tx: TxId, actor: usize, rec: Rec, mode: Mode, span: Span) {
        let contested = self
            .list
            .iter()
            .any(|l| l.rec == rec && l.waiting && l.tx != tx);
        let like = self.list.iter().find(|l| {
            l.tx == tx
                && !l.waiting
                && l.rec.index() == rec.index()
                && l.mode == mode
                && l.span == span
        });
        let page = rec.index();
        let empty = self
            .vacant
            .iter()
            .position(|v| (v.0, v.1, v.2, v.3) == (tx, page, mode, span));
        let strukt = match (like, empty) {
            _ if contested => self.new_struct(),
            (Some(l), _) => l.strukt,
            (None, Some(i)) => self.vacant.remove(i).4,
            (None, None) => self.new_struct(),
        };
        self.push(tx, actor, rec, mode, span, false, strukt);
    }

    /// `grant`, placed ahead of the record's first waiting lock (lock_rec_create_low's
    /// insert_before_waiting, MariaDB 10.6 on): a waiting lock then waits for it too, though it
    /// was asked for later. Seen on MariaDB 10.11 with three lockers of a free username: the
    /// third's gap lock, granted while the second's insert intention waited, held that insert up
    /// after the first's rollback. Used for a username's locks only (`accounts`): the seats' and
    /// tickets' cases were run before it and keep `grant`.
    pub fn grant_before_waiting(
        &mut self,
        tx: TxId,
        actor: usize,
        rec: Rec,
        mode: Mode,
        span: Span,
    ) {
        self.grant(tx, actor, rec, mode, span);
        let Some(first_waiting) = self.list.iter().position(|l| l.rec == rec && l.waiting) else {
            return;
        };
        let granted = self.list.pop().expect("just pushed");
        self.list.insert(first_waiting, granted);
    }

    /// Adds a waiting lock, always a struct of its own, at the end of the queue.
    pub fn enqueue(&mut self, tx: TxId, actor: usize, rec: Rec, mode: Mode, span: Span) {
        let strukt = self.new_struct();
        self.push(tx, actor, rec, mode, span, true, strukt);
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        tx: TxId,
        actor: usize,
        rec: Rec,
        mode: Mode,
        span: Span,
        waiting: bool,
        strukt: u32,
    ) {
        self.list.push(Lock {
            tx,
            actor: actor as u8,
            rec,
            mode,
            span,
            waiting,
            strukt,
        });
    }

    fn new_struct(&mut self) -> u32 {
        self.next_struct += 1;
        self.next_struct
    }

    /// The waiting lock of `tx`, if any (a transaction waits for one lock at a time).
    pub fn waiting_of(&self, tx: TxId) -> Option<usize> {
        self.list.iter().position(|l| l.tx == tx && l.waiting)
    }

    /// The locks ahead of the waiting lock at `i` that it waits for: what INNODB_LOCK_WAITS
    /// names as blocking it.
    pub fn blockers(&self, i: usize) -> impl Iterator<Item = &Lock> + '_ {
        let w = self.list[i];
        self.list[..i].iter().filter(move |l| {
            l.tx != w.tx && l.rec == w.rec && has_to_wait(w.rec, w.mode, w.span, l)
        })
    }

    /// How many lock structs `tx` has (its record locks; table locks are counted apart).
    pub fn structs(&self, tx: TxId) -> usize {
        let mut seen: Vec<u32> = self
            .list
            .iter()
            .filter(|l| l.tx == tx)
            .map(|l| l.strukt)
            .chain(self.vacant.iter().filter(|v| v.0 == tx).map(|v| v.4))
            .collect();
        seen.sort_unstable();
        seen.dedup();
        seen.len()
    }

    /// Drops every lock of `tx`: the index pages they were on, as a mask.
    pub fn release(&mut self, tx: TxId) -> u8 {
        let pages = self
            .list
            .iter()
            .filter(|l| l.tx == tx)
            .fold(0, |m, l| m | 1 << l.rec.index());
        let vacant = self
            .vacant
            .iter()
            .filter(|v| v.0 == tx)
            .fold(0, |m, v| m | 1 << v.1);
        self.list.retain(|l| l.tx != tx);
        self.vacant.retain(|v| v.0 != tx);
        pages | vacant
    }

    /// Drops the granted locks of `tx` on `rec` (READ COMMITTED lets go of a row its UPDATE
    /// examined and did not change: lock_rec_unlock).
    /// Its struct stays, empty, unless another lock of `tx` shares it.
    pub fn unlock(&mut self, tx: TxId, rec: Rec) {
        let gone = |l: &Lock| l.tx == tx && l.rec == rec && !l.waiting;
        let left: Vec<Lock> = self.list.iter().filter(|l| gone(l)).copied().collect();
        self.list.retain(|l| !gone(l));
        for l in left {
            if !self.list.iter().any(|o| o.strukt == l.strukt) {
                self.vacant
                    .push((tx, rec.index(), l.mode, l.span, l.strukt));
            }
        }
    }
}
