//! What the engine reports. The trace so far is a persistent list shared by every clone: each
//! step adds one node holding what happened in compact form (indices, the committed rows as
//! values, shared with the previous node when nothing committed), and the node is rendered
//! into an `EntryTrace` (names, tables, the reason line) only when a trace is asked for, once
//! per node whatever the number of clones. A waiting operation's later completion is recorded
//! in the node of the entry during which it happened.

use std::sync::{Arc, OnceLock};

use crate::outcome::{EntryTrace, SeenRow, StepResult, Trace};
use crate::schedule::Schedule;

use super::live::Live;
use super::locks::WaitOn;
use super::mvcc::{Table, NOBODY};
use super::names::Names;
use super::stmt::Facts;
use super::tables::Committed;
use super::{reason, Engine};

/// An operation that finished during an entry.
pub(crate) struct Done {
    pub actor: usize,
    pub entry: usize,
    pub op_index: usize,
    pub result: StepResult,
    pub seen: Vec<SeenRow>,
    pub facts: Facts,
}

/// The operations that finished during an entry, in order. Nearly always one: it is kept in
/// place, and only a second one allocates.
#[derive(Default)]
pub(crate) struct Dones {
    first: Option<Done>,
    rest: Vec<Done>,
}

impl Dones {
    fn push(&mut self, done: Done) {
        if self.first.is_none() {
            self.first = Some(done);
        } else {
            self.rest.push(done);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &Done> + Clone {
        self.first.iter().chain(&self.rest)
    }

    /// The only one, if exactly one operation finished.
    pub fn single(&self) -> Option<&Done> {
        self.first.as_ref().filter(|_| self.rest.is_empty())
    }
}

/// What happened during one entry, in order.
#[derive(Default)]
pub(crate) struct Events {
    pub done: Dones,
    /// Deadlock victims.
    pub victims: Vec<usize>,
}

impl Events {
    pub fn done(
        &mut self,
        actor: usize,
        (entry, op_index): (usize, usize),
        result: StepResult,
        seen: Vec<SeenRow>,
        facts: Facts,
    ) {
        self.done.push(Done {
            actor,
            entry,
            op_index,
            result,
            seen,
            facts,
        });
    }

    pub fn deadlock(&mut self, victim: usize) {
        self.victims.push(victim);
    }
}

/// How the entry's own operation waits, if it does.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WaitNote {
    pub on: WaitOn,
    pub seat: u8,
    /// It waits for the row lock's holder (not for waiters ahead of it).
    pub for_holder: bool,
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

impl Engine<'_> {
    /// Writes entry `k` (`actor`'s operation `op_index`) and the completions it caused.
    pub(super) fn record(&mut self, actor: usize, op_index: usize, k: usize, events: Events) {
        let waiting = self.running[actor].is_some();
        let blockers = if waiting {
            self.locks.blockers(actor, &self.db)
        } else {
            Vec::new()
        };
        let wait = self.locks.waits[actor].filter(|_| waiting).map(|w| {
            let seat = match w.on {
                WaitOn::Row(s, _) | WaitOn::Update(s, _) => s,
                WaitOn::Xact(_) => self.running[actor]
                    .as_ref()
                    .and_then(|r| r.pending)
                    .map_or(0, |p| p.0),
            };
            let holder =
                self.locks.holder[seat as usize].map(|t| self.db.txs[t as usize].actor as usize);
            WaitNote {
                on: w.on,
                seat,
                for_holder: holder.is_some_and(|h| blockers == [h]),
            }
        });
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
    pub(super) fn committed(&self) -> Arc<Committed> {
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
                .all(|(s, v)| self.db.committed(s) == *v)
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
