//! What happened during one entry: the operations that finished during it, in order (nearly
//! always one), and the deadlock victims.

use crate::outcome::{SeenRow, StepResult};

use super::super::stmt::Facts;

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
