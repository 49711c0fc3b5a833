//! What the trace says of InnoDB's waits: whom a waiting statement waits for, as
//! INFORMATION_SCHEMA.INNODB_LOCK_WAITS names them (every conflicting lock ahead of its own,
//! granted or waiting), how, for the reason line, and the row locks and queues of each seat
//! for the page's seat map.

use super::super::live::LiveSeat;
use super::super::locks::WaitOn;
use super::super::trace::{InnoWait, WaitNote};
use super::super::Engine;
use super::lock::{Rec, Span};

impl Engine<'_> {
    /// The actors that `actor`'s waiting lock waits for, in actor order.
    pub(in crate::engine) fn inno_blockers(&self, actor: usize) -> Vec<usize> {
        let Some(i) = self.waiting_lock(actor) else {
            return Vec::new();
        };
        let mut on: Vec<usize> = self
            .inno
            .locks
            .blockers(i)
            .map(|l| l.actor as usize)
            .collect();
        on.sort_unstable();
        on.dedup();
        on
    }

    /// The index of `actor`'s waiting lock, if its statement waits.
    fn waiting_lock(&self, actor: usize) -> Option<usize> {
        let tx = self.running[actor].as_ref()?.tx;
        self.inno.locks.waiting_of(tx)
    }

    /// How `actor`'s statement waits, for the reason line.
    pub(in crate::engine) fn inno_wait_note(
        &self,
        actor: usize,
        blockers: &[usize],
    ) -> Option<WaitNote> {
        let i = self.waiting_lock(actor)?;
        let w = self.inno.locks.list[i];
        let seat = self.running[actor].as_ref()?.pending.map_or(0, |p| p.0);
        // Those that only wait ahead of it; one that holds a lock in the way counts as a holder,
        // even if it also waits (a shared lock it wants to make exclusive).
        let holding = self
            .inno
            .locks
            .blockers(i)
            .filter(|l| !l.waiting)
            .fold(0u32, |m, l| m | 1 << l.actor);
        let queued = self
            .inno
            .locks
            .blockers(i)
            .filter(|l| l.waiting)
            .fold(0u32, |m, l| m | 1 << l.actor)
            & !holding;
        let (on, kind) = match (w.rec, w.span) {
            (Rec::Seat(s), _) => (WaitOn::Row(s, 0), InnoWait::Row),
            (Rec::Payment(_) | Rec::PaymentEnd, _) => (WaitOn::Row(seat, 0), InnoWait::Payment),
            (_, Span::Insert) => (WaitOn::Row(seat, 0), InnoWait::Gap),
            _ => (WaitOn::Row(seat, 0), InnoWait::Duplicate),
        };
        Some(WaitNote {
            on,
            seat,
            for_holder: queued == 0 && !blockers.is_empty(),
            queued,
            innodb: Some(kind),
        })
    }

    /// The row lock's holder and the queue of `seat`: the granted lock first met on its row,
    /// the waiting ones on its row and its ticket in queue order.
    pub(in crate::engine) fn inno_live(&self, seat: usize, live: &mut LiveSeat) {
        let locks = &self.inno.locks.list;
        let row = Rec::Seat(seat as u8);
        live.holder = locks
            .iter()
            .find(|l| l.rec == row && !l.waiting && l.span != Span::Gap)
            .map(|l| l.actor);
        live.queue = locks
            .iter()
            .filter(|l| l.waiting)
            .filter(|l| {
                l.rec == row
                    || self.running[l.actor as usize]
                        .as_ref()
                        .and_then(|r| r.pending)
                        .is_some_and(|p| {
                            p.0 as usize == seat && matches!(l.rec, Rec::Ticket(_) | Rec::TicketEnd)
                        })
            })
            .map(|l| l.actor)
            .collect();
    }
}
