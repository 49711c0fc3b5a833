//! The isolation tester's loop, played over an outcome: which steps it prints at once, which
//! `<waiting ...>`, and when it prints each `<... completed>`.
//!
//! The tester sends each step of the permutation on its session's connection; a step that
//! blocks is printed waiting, and its result comes when the tester next looks at it: after
//! every step, and at once when the next step belongs to its session. A deadlock is broken
//! only when `deadlock_timeout` runs out, after the tester has looked: unless the next step's
//! session waits for it anyway, an empty step on the victim's session makes the tester wait
//! for it, as the executor does, before it sends anything else.

use std::collections::BTreeSet;

use super::super::Sent;
use crate::outcome::{Outcome, StepResult};
use crate::sqlstate::SqlState;

/// An item of the permutation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Item {
    /// The statement of entry `k`.
    Step(usize),
    /// The empty step on `actor`'s session that waits for a deadlock to be broken.
    Sync { actor: String, name: String },
}

/// What the tester prints, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Printed {
    /// Entry `k` was sent and answered at once.
    Done(usize),
    Waiting(usize),
    Completed(usize),
    Sync(String),
}

/// The isolation tester's loop, played over the outcome.
pub(super) struct Tester<'p, 'a> {
    plan: &'p [Sent<'a>],
    /// Entries during which a deadlock was broken: their completions come `deadlock_timeout`
    /// later, after the tester has looked.
    late: BTreeSet<usize>,
    /// Per actor: its step that the tester has not seen complete.
    active: Vec<(String, usize)>,
    /// Waiting steps, in the order they began to wait.
    waiting: Vec<usize>,
    pub(super) permutation: Vec<Item>,
    pub(super) printed: Vec<Printed>,
}

impl<'p, 'a> Tester<'p, 'a> {
    /// `used`: the step names taken already (the sync steps get names of their own).
    pub(super) fn run(
        plan: &'p [Sent<'a>],
        outcome: &Outcome,
        mut used: BTreeSet<String>,
    ) -> Tester<'p, 'a> {
        let late = outcome
            .entries
            .iter()
            .filter(|e| matches!(&e.trace.result, Some(StepResult::Error { code, .. }) if *code == SqlState::DeadlockDetected))
            .filter_map(|e| e.trace.completed_after)
            .collect();
        let mut t = Tester {
            plan,
            late,
            active: Vec::new(),
            waiting: Vec::new(),
            permutation: Vec::new(),
            printed: Vec::new(),
        };
        let sent: Vec<usize> = plan
            .iter()
            .filter(|s| s.statement.is_some())
            .map(|s| s.k)
            .collect();
        for (n, &k) in sent.iter().enumerate() {
            t.step(k);
            let Some(&next) = sent.get(n + 1) else {
                continue;
            };
            // A deadlock broken during `k`: unless the next step's session is itself waiting
            // for it, have the victim's session wait for it first.
            if t.late.contains(&k) && !t.is_active(&plan[next].actor.name) {
                let victim = t.waiting.iter().copied().find(|&w| {
                    matches!(plan[w].result(), Some(StepResult::Error { code, .. }) if *code == SqlState::DeadlockDetected)
                        && plan[w].completed_after() == Some(k)
                });
                if let Some(v) = victim {
                    let actor = plan[v].actor.name.clone();
                    let mut name = format!("{actor}_sync");
                    while used.contains(&name) {
                        name.push('_');
                    }
                    used.insert(name.clone());
                    t.sync(k, actor, name);
                }
            }
        }
        // The end: the tester waits for every step still waiting, in the order they waited.
        for w in std::mem::take(&mut t.waiting) {
            t.printed.push(Printed::Completed(w));
        }
        t
    }

    fn is_active(&self, actor: &str) -> bool {
        self.active.iter().any(|(a, _)| a == actor)
    }

    /// Entry `w` has completed by the time the tester looks after sending entry `now`.
    fn done_by(&self, w: usize, now: usize) -> bool {
        match self.plan[w].completed_after() {
            Some(c) => c < now || (c == now && !self.late.contains(&c)),
            None => false,
        }
    }

    /// The session of `actor` still has a step running: the tester waits for it, then looks at
    /// the other waiting steps (everything up to entry `now` has happened by then).
    fn wait_for_session(&mut self, actor: &str, now: usize) {
        if let Some(pos) = self.active.iter().position(|(a, _)| a == actor) {
            let (_, w) = self.active.remove(pos);
            self.waiting.retain(|&x| x != w);
            self.printed.push(Printed::Completed(w));
            self.look(|t, x| t.plan[x].completed_after().is_some_and(|c| c <= now));
        }
    }

    /// The tester looks at every waiting step, in order; those done are printed.
    fn look(&mut self, done: impl Fn(&Self, usize) -> bool) {
        let waiting = std::mem::take(&mut self.waiting);
        for w in waiting {
            if done(self, w) {
                self.active.retain(|(_, x)| *x != w);
                self.printed.push(Printed::Completed(w));
            } else {
                self.waiting.push(w);
            }
        }
    }

    fn step(&mut self, k: usize) {
        let actor = self.plan[k].actor.name.clone();
        self.wait_for_session(&actor, k.saturating_sub(1));
        self.permutation.push(Item::Step(k));
        let waits = !self.done_by(k, k);
        self.printed.push(if waits {
            Printed::Waiting(k)
        } else {
            Printed::Done(k)
        });
        self.look(|t, w| t.done_by(w, k));
        if waits {
            self.waiting.push(k);
            self.active.push((actor, k));
        }
    }

    fn sync(&mut self, now: usize, actor: String, name: String) {
        self.wait_for_session(&actor, now);
        self.permutation.push(Item::Sync {
            actor,
            name: name.clone(),
        });
        self.printed.push(Printed::Sync(name));
        self.look(|t, w| t.plan[w].completed_after().is_some_and(|c| c <= now));
    }
}
