//! The state of a chapter's lab, shared with its components through context: which scenario
//! runs, the schedule and its order, the playhead, the selected entry, and the real run. The
//! outcome is derived (a memo over the schedule), so reordering updates everything at once.

use leptos::prelude::*;
use shared::{scenarios, Defence, Outcome, Schedule};

use crate::api::RealRun;
use crate::chapters::{Chapter, Variant};
use crate::model;

mod database;

/// Where the lab's schedule came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    pub part: usize,
    pub variant: usize,
    /// The built-in scenario it started from.
    pub scenario: &'static str,
    pub defence: Option<Defence>,
}

/// The lab's signals. `Copy`, so closures take it freely.
#[derive(Clone, Copy)]
pub struct Lab {
    pub chapter: &'static Chapter,
    pub source: RwSignal<Source>,
    pub schedule: RwSignal<Schedule>,
    pub outcome: Memo<Result<Outcome, String>>,
    /// How many entries have run: 0 is the initial state, `order.len()` the end.
    pub step: RwSignal<usize>,
    pub selected: RwSignal<Option<usize>>,
    /// Why the last reordering was refused, or what just happened.
    pub notice: RwSignal<Option<String>>,
    pub playing: RwSignal<bool>,
    /// Milliseconds per step while playing.
    pub speed: RwSignal<u32>,
    pub real: RwSignal<RealRun>,
    /// Large type, high contrast, no prose: the view for a projector (`&present=1`).
    pub presenter: RwSignal<bool>,
    /// What the last switch of part or defence replaced, while it can be undone.
    pub undo: RwSignal<Option<Undo>>,
}

/// The reader's own order that a switch of part or defence replaced, to bring it back.
#[derive(Clone, Debug, PartialEq)]
pub struct Undo {
    pub source: Source,
    pub schedule: Schedule,
    pub step: usize,
    /// What replaced it, for the offer's words.
    pub now: &'static str,
}

/// The schedule a variant runs: the built-in scenario, with every buyer's defence swapped when
/// the variant says so.
pub fn variant_schedule(variant: &Variant) -> Schedule {
    let builtin = scenarios::get(variant.scenario).expect("chapters name built-in scenarios");
    let file = builtin.file_with_defence(variant.defence);
    model::playable(&Schedule::parse(file).unwrap_or_else(|_| builtin.schedule()))
}

impl Lab {
    pub fn new(chapter: &'static Chapter, source: Source, schedule: Schedule, step: usize) -> Lab {
        let schedule = RwSignal::new(schedule);
        let step = step.min(schedule.with_untracked(|s| s.order().len()));
        Lab {
            chapter,
            source: RwSignal::new(source),
            schedule,
            outcome: Memo::new(move |_| schedule.with(model::run)),
            step: RwSignal::new(step),
            selected: RwSignal::new(None),
            notice: RwSignal::new(None),
            playing: RwSignal::new(false),
            speed: RwSignal::new(700),
            real: RwSignal::new(RealRun::NotRun),
            presenter: RwSignal::new(false),
            undo: RwSignal::new(None),
        }
    }

    /// The lab at the start of a chapter's first part.
    pub fn start(chapter: &'static Chapter) -> Lab {
        let variant = &chapter.parts[0].variants[0];
        Lab::new(
            chapter,
            Source {
                part: 0,
                variant: 0,
                scenario: variant.scenario,
                defence: variant.defence,
            },
            variant_schedule(variant),
            0,
        )
    }

    /// Switches to a part of the chapter, or to another variant of it (a defence). When that
    /// replaces an order the reader made, the switch can be undone.
    pub fn choose(&self, part: usize, variant: usize) {
        let Some(v) = self
            .chapter
            .parts
            .get(part)
            .and_then(|p| p.variants.get(variant))
        else {
            return;
        };
        let before = self.source.get_untracked();
        let schedule = self.schedule.get_untracked();
        let own = self
            .chapter
            .parts
            .get(before.part)
            .and_then(|p| p.variants.get(before.variant))
            .is_none_or(|v| variant_schedule(v).order() != schedule.order());
        let undo = own.then(|| Undo {
            source: before,
            schedule,
            step: self.step.get_untracked(),
            now: if v.label.is_empty() {
                self.chapter.parts[part].title
            } else {
                v.label
            },
        });
        self.source.set(Source {
            part,
            variant,
            scenario: v.scenario,
            defence: v.defence,
        });
        let database = self.schedule.with_untracked(Schedule::database);
        let fresh = variant_schedule(v);
        self.replace(fresh.on(database).unwrap_or(fresh));
        self.undo.set(undo);
    }

    /// Brings back the order that the last switch replaced.
    pub fn undo_switch(&self) {
        let Some(undo) = self.undo.get_untracked() else {
            return;
        };
        self.source.set(undo.source);
        self.replace(undo.schedule);
        self.step.set(undo.step);
    }

    /// Puts a new schedule in the lab, back at its start.
    pub fn replace(&self, schedule: Schedule) {
        self.playing.set(false);
        self.schedule.set(schedule);
        self.step.set(0);
        self.selected.set(None);
        self.notice.set(None);
        self.real.set(RealRun::NotRun);
        self.undo.set(None);
    }

    pub fn entries(&self) -> usize {
        self.schedule.with(|s| s.order().len())
    }

    /// Moves the playhead to `step` (clamped to the run).
    pub fn seek(&self, step: usize) {
        self.step.set(step.min(self.entries()));
    }

    pub fn forward(&self) {
        self.seek(self.step.get_untracked() + 1);
    }

    pub fn back(&self) {
        self.seek(self.step.get_untracked().saturating_sub(1));
    }

    /// Moves entry `from` to `to`; a refused move leaves the order alone and says why.
    pub fn move_entry(&self, from: usize, to: usize) {
        let moved = self
            .schedule
            .with_untracked(|s| model::move_entry(s, from, to));
        match moved {
            Ok(schedule) => {
                self.schedule.set(schedule);
                self.selected.set(Some(to));
                self.notice.set(None);
                self.real.set(RealRun::NotRun);
                self.undo.set(None);
            }
            Err(why) => self.notice.set(Some(why)),
        }
    }

    /// Moves the selected entry one place earlier (`-1`) or later (`+1`).
    pub fn nudge(&self, delta: isize) {
        let Some(from) = self.selected.get_untracked() else {
            self.notice
                .set(Some("Select a step on the timeline first.".to_string()));
            return;
        };
        let to = from as isize + delta;
        if to < 0 {
            self.notice.set(Some(
                "This is the first step: nothing can go before it.".to_string(),
            ));
            return;
        }
        if to as usize >= self.entries() {
            self.notice.set(Some(
                "This is the last step: nothing can go after it.".to_string(),
            ));
            return;
        }
        self.move_entry(from, to as usize);
    }

    /// Keeps the order up to the playhead and drops the rest: the reader then chooses, one
    /// buyer at a time, what happens next.
    pub fn fork(&self) {
        let step = self.step.get_untracked();
        let order = self.schedule.with_untracked(|s| s.order()[..step].to_vec());
        self.schedule.update(|s| *s = s.with_order(order));
        self.selected.set(None);
        self.real.set(RealRun::NotRun);
        self.undo.set(None);
        self.notice.set(Some(format!(
            "Forked after step {step}: choose who goes next below the timeline."
        )));
    }

    /// Appends the next operation of `actor` to the order, if it can be sent now.
    pub fn append(&self, actor: usize) {
        let next = self.schedule.with_untracked(|s| {
            let mut order = s.order().to_vec();
            order.push(actor);
            let candidate = s.with_order(order);
            model::run(&candidate).map(|_| candidate)
        });
        match next {
            Ok(schedule) => {
                let end = schedule.order().len();
                self.schedule.set(schedule);
                self.step.set(end);
                self.notice.set(None);
                self.real.set(RealRun::NotRun);
            }
            Err(why) => self.notice.set(Some(why)),
        }
    }

    /// Loads an order given as actor names (the explorer's examples).
    pub fn load_order(&self, names: &[String]) {
        let order = self.schedule.with_untracked(|s| {
            names
                .iter()
                .map(|n| s.actor_index(n))
                .collect::<Option<Vec<usize>>>()
        });
        if let Some(order) = order {
            self.playing.set(false);
            self.schedule.update(|s| *s = s.with_order(order));
            self.step.set(0);
            self.selected.set(None);
            self.real.set(RealRun::NotRun);
            self.notice.set(Some(
                "Loaded the explorer's example: press play or step through it.".to_string(),
            ));
        }
    }
}

/// The lab of the chapter being shown.
pub fn use_lab() -> Lab {
    expect_context::<Lab>()
}
