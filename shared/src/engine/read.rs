//! What a caller reads of an engine: the trace so far (whole, or in the engine's compact
//! form), the committed rows, and the entries whose outcome PostgreSQL leaves to a race.

use super::trace::{Compact, Node};
use super::{Committed, Engine, Names};
use crate::outcome::{EntryTrace, Trace};

impl Engine<'_> {
    /// The entries (0-based) whose outcome PostgreSQL leaves to a race between sessions that
    /// one commit or rollback woke together: one reached a row that another was first in line
    /// for before that one ran (the head usually wins; the model always lets it); an UPDATE
    /// re-checking a row met the lock of a session that took it in the same wake-up (before
    /// or after that session's own update); two of them inserted a ticket for the same seat,
    /// and whichever runs first gets it; two of them went for the same row, one from that
    /// row's queue and one from a wait for another row, or both from behind an UPDATE that
    /// found the row replaced (it lets go of the queue before it locks the newest version);
    /// or two of them went back to waiting (in one wake-up, whenever the cycle closed) and a
    /// deadlock runs through both, and which of their timers runs out first decides the
    /// victim. A real run of
    /// such an order may disagree with the model; every other difference is a bug.
    pub fn races(&self) -> &[usize] {
        &self.races
    }

    /// The trace so far: one entry per step.
    pub fn trace(&self) -> &[EntryTrace] {
        self.view.get(&self.log, &self.names, self.schedule)
    }

    /// The trace so far in the engine's own compact form (see `Compact`).
    pub(crate) fn compact(&self) -> Compact<'_> {
        Compact {
            names: &self.names,
            initial: self.log.initial(),
            nodes: self.log.nodes(),
        }
    }

    /// The run's strings, which the compact record indexes.
    pub(crate) fn names(&self) -> &Names {
        &self.names
    }

    /// The committed rows after the last entry (before the first, if none ran).
    pub(crate) fn committed_now(&self) -> &Committed {
        self.log.committed()
    }

    /// The last entry in compact form, with the committed rows before it.
    pub(crate) fn last_entry(&self) -> Option<(&Committed, &Node)> {
        self.log.last()
    }

    /// The whole trace.
    pub fn into_trace(self) -> Trace {
        self.log.into_trace(&self.names, self.schedule, self.races)
    }
}
