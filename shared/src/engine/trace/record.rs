//! The engine writes an entry into its trace: the node of the entry (whom its operation waits
//! for, and how), and the committed rows after it, shared with the previous node's when nothing
//! changed.

use std::sync::{Arc, OnceLock};

use super::super::locks::WaitOn;
use super::super::mvcc::{Table, NOBODY};
use super::super::tables::Committed;
use super::super::Engine;
use super::{Events, Node, WaitNote};

impl Engine<'_> {
    /// Writes entry `k` (`actor`'s operation `op_index`) and the completions it caused.
    pub(in crate::engine) fn record(
        &mut self,
        actor: usize,
        op_index: usize,
        k: usize,
        events: Events,
    ) {
        let waiting = self.running[actor].is_some();
        let innodb = self.innodb();
        let blockers = match (waiting, innodb) {
            (false, _) => Vec::new(),
            (true, true) => self.inno_blockers(actor),
            (true, false) => self.locks.blockers(actor, &self.db),
        };
        let pg_wait = self.locks.waits[actor].filter(|_| waiting && !innodb);
        let wait = pg_wait.map(|w| {
            let (seat, holder) = match w.on {
                WaitOn::Row(s, _) | WaitOn::Update(s, _) => (s, self.locks.holder[s as usize]),
                WaitOn::Account(a) => (a.seat, self.locks.account_holder(a)),
                WaitOn::Xact(_) => {
                    let s = self.running[actor]
                        .as_ref()
                        .and_then(|r| r.pending)
                        .map_or(0, |p| p.0);
                    (s, self.locks.holder[s as usize])
                }
            };
            let holder = holder.map(|t| self.db.txs[t as usize].actor as usize);
            WaitNote {
                on: w.on,
                seat,
                for_holder: holder.is_some_and(|h| blockers == [h]),
                queued: 0,
                innodb: None,
            }
        });
        let wait = match (waiting, innodb) {
            (true, true) => self.inno_wait_note(actor, &blockers),
            _ => wait,
        };
        let committed = self.committed();
        let live = self.live(self.log.live());
        self.log.commit_seq = self.db.commit_seq;
        self.log.push(Node {
            prev: None,
            k,
            actor,
            op_index,
            blockers,
            wait,
            events,
            committed,
            live,
            rendered: OnceLock::new(),
        });
    }

    /// The committed rows now (what a fresh READ COMMITTED statement would read), shared with
    /// the previous entry's when nothing changed.
    pub(in crate::engine) fn committed(&self) -> Arc<Committed> {
        let last = self.log.committed();
        if self.log.commit_seq == self.db.commit_seq && last.clock == self.clients.clock {
            // Committed rows change only when a transaction commits (an abort removes only
            // its own uncommitted versions and rows).
            return last.clone();
        }
        let latest = self.db.latest();
        let same = last.clock == self.clients.clock
            && last
                .seats
                .iter()
                .enumerate()
                .all(|(s, v)| self.db.committed_shown(s) == *v)
            && self.db.rows(Table::Booking, latest, NOBODY).count() == last.bookings.len()
            && self.db.rows(Table::Refund, latest, NOBODY).count() == last.refunds.len();
        if same {
            last.clone()
        } else {
            Arc::new(Committed::of(
                &self.db,
                self.names.seats.len(),
                self.clients.clock,
            ))
        }
    }
}
