//! What the engine reports. The trace so far is a persistent list shared by every clone: each
//! step adds one node holding what happened in compact form (indices, the committed rows as
//! values, shared with the previous node when nothing committed), and the node is rendered
//! into an `EntryTrace` (names, tables, the reason line) only when a trace is asked for, once
//! per node whatever the number of clones. A waiting operation's later completion is recorded
//! in the node of the entry during which it happened. What an entry's events are is `events`'s;
//! how the engine writes a node is `record`'s.

mod events;
mod record;

use std::sync::{Arc, OnceLock};

use crate::outcome::{EntryTrace, Trace};
use crate::schedule::Schedule;

use super::live::Live;
use super::locks::WaitOn;
use super::names::Names;
use super::reason;
use super::tables::Committed;

pub(crate) use events::{Done, Events};

/// How the entry's own operation waits, if it does.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WaitNote {
    pub on: WaitOn,
    pub seat: u8,
    /// It waits for the row lock's holder (not for waiters ahead of it).
    pub for_holder: bool,
    /// InnoDB: the actors it waits for that only wait ahead of it (holding no lock in its way),
    /// as a mask.
    pub queued: u32,
    /// InnoDB: what kind of lock it waits for (`None` on PostgreSQL).
    pub innodb: Option<InnoWait>,
}

/// What an InnoDB statement waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InnoWait {
    /// A row's lock.
    Row,
    /// The duplicate check's shared lock on another transaction's uncommitted ticket.
    Duplicate,
    /// An insert intention on a gap that another transaction's gap lock covers.
    Gap,
    /// `confirm_hold`'s payment: its insert intention on a gap of `payments` that another
    /// confirm's share-mode read locks.
    Payment,
}

/// One entry, as it happened.
pub(crate) struct Node {
    prev: Option<Arc<Node>>,
    pub k: usize,
    pub actor: usize,
    pub op_index: usize,
    /// The actors its operation waits for after the entry, in actor order.
    pub blockers: Vec<usize>,
    pub wait: Option<WaitNote>,
    pub events: Events,
    pub committed: Arc<Committed>,
    /// The row locks, queues and uncommitted writes after the entry.
    pub live: Live,
    /// Boxed: most nodes are never rendered (the explorer judges without), and a small node is
    /// cheaper to build.
    rendered: OnceLock<Box<EntryTrace>>,
}

impl Node {
    /// The entry as the trace shows it (completions that came later are not in it).
    fn render(&self, names: &Names, schedule: &Schedule) -> &EntryTrace {
        self.rendered
            .get_or_init(|| Box::new(self.render_now(names, schedule)))
    }

    fn render_now(&self, names: &Names, schedule: &Schedule) -> EntryTrace {
        let own = self.events.done.iter().find(|d| d.entry == self.k);
        let mut waited_for: Vec<String> = self
            .blockers
            .iter()
            .map(|&b| names.names[b].clone())
            .collect();
        waited_for.sort();
        EntryTrace {
            actor: names.names[self.actor].clone(),
            op_index: self.op_index,
            waited_for,
            result: own.map(|d| d.result.clone()),
            completed_after: own.map(|_| self.k),
            seen: own.map(|d| d.seen.clone()).unwrap_or_default(),
            tables: self.committed.tables(names),
            reason: reason::line(names, schedule, self),
            locks: self
                .live
                .iter()
                .flat_map(|l| l.iter())
                .map(|l| l.render(names))
                .collect(),
        }
    }
}

/// The trace so far.
#[derive(Clone)]
pub(crate) struct Log {
    last: Option<Arc<Node>>,
    len: usize,
    initial: Arc<Committed>,
    /// The database's commit sequence when the last entry's committed rows were taken.
    commit_seq: u32,
}

impl Log {
    pub fn new(initial: Committed) -> Log {
        Log {
            last: None,
            len: 0,
            initial: Arc::new(initial),
            commit_seq: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The committed rows after the last entry.
    pub fn committed(&self) -> &Arc<Committed> {
        self.last.as_ref().map_or(&self.initial, |n| &n.committed)
    }

    /// The live state of the seats after the last entry.
    pub fn live(&self) -> &Live {
        self.last.as_ref().map_or(&None, |n| &n.live)
    }

    fn push(&mut self, mut node: Node) {
        node.prev = self.last.take();
        self.last = Some(Arc::new(node));
        self.len += 1;
    }

    /// The nodes, one per entry, in entry order.
    pub fn nodes(&self) -> Vec<&Node> {
        let mut nodes: Vec<&Node> = Vec::with_capacity(self.len);
        let mut cur = self.last.as_deref();
        while let Some(node) = cur {
            nodes.push(node);
            cur = node.prev.as_deref();
        }
        nodes.reverse();
        nodes
    }

    /// The last entry's node, with the committed rows before it.
    pub fn last(&self) -> Option<(&Committed, &Node)> {
        let node = self.last.as_deref()?;
        let before = node.prev.as_ref().map_or(&self.initial, |p| &p.committed);
        Some((before, node))
    }

    /// The committed rows before the first entry.
    pub fn initial(&self) -> &Committed {
        &self.initial
    }

    /// The entries with every later completion filled in.
    pub fn entries(&self, names: &Names, schedule: &Schedule) -> Vec<EntryTrace> {
        let nodes = self.nodes();
        let mut entries: Vec<EntryTrace> = Vec::with_capacity(self.len);
        for node in nodes {
            entries.push(node.render(names, schedule).clone());
            for d in node.events.done.iter().filter(|d| d.entry != node.k) {
                let e = &mut entries[d.entry];
                e.result = Some(d.result.clone());
                e.completed_after = Some(node.k);
                e.seen = d.seen.clone();
            }
        }
        entries
    }

    pub fn into_trace(self, names: &Names, schedule: &Schedule, races: Vec<usize>) -> Trace {
        Trace {
            entries: self.entries(names, schedule),
            initial: self.initial.tables(names),
            races,
        }
    }
}

/// The trace as the engine keeps it, nothing rendered: indices into the run's strings, the
/// committed rows as values, each entry's completions as they happened. What the explorer judges
/// each order from (`assess::judge_compact`), where rendering every entry's tables would cost
/// more than running the model.
pub(crate) struct Compact<'e> {
    pub names: &'e Names,
    pub initial: &'e Committed,
    /// One node per entry, in entry order.
    pub nodes: Vec<&'e Node>,
}

/// The trace materialised for `Engine::trace`, built on first use after each step.
#[derive(Default)]
pub(crate) struct View(OnceLock<Vec<EntryTrace>>);

impl Clone for View {
    fn clone(&self) -> View {
        View::default()
    }
}

impl View {
    pub fn get<'a>(&'a self, log: &Log, names: &Names, schedule: &Schedule) -> &'a [EntryTrace] {
        self.0.get_or_init(|| log.entries(names, schedule))
    }
}
