//! Switching the lab's database: the same buyers, and the reader's order where it runs there.

use leptos::prelude::*;
use shared::schedule::{Database, ScheduleFile};
use shared::Schedule;

use super::Lab;
use crate::model;

impl Lab {
    /// Races the same buyers on `database`: the reader's order if it runs there (a wait on
    /// one database may not be a wait on the other), else the variant's own steps, saying so.
    pub fn switch_database(&self, database: Database) {
        let schedule = self.schedule.get_untracked();
        if schedule.database() == database {
            return;
        }
        let step = self.step.get_untracked();
        let same_order = schedule.on(database).ok().filter(|s| model::run(s).is_ok());
        match same_order {
            Some(switched) => {
                self.replace(switched);
                self.step.set(step);
                self.notice.set(Some(format!(
                    "Now on {}: the same order, the same step.",
                    database.title()
                )));
            }
            None => {
                let own = schedule.with_order(Vec::new()).to_file();
                let fallback = Schedule::parse(ScheduleFile {
                    engine: database,
                    order: Vec::new(),
                    ..own
                });
                match fallback {
                    Ok(switched) => {
                        self.replace(switched);
                        self.notice.set(Some(format!(
                            "Now on {}: your order cannot run there (a step would wait where it did not before), so the buyers take turns from the start.",
                            database.title()
                        )));
                    }
                    Err(why) => self.notice.set(Some(format!(
                        "These buyers cannot race on {}: {}",
                        database.title(),
                        why.message
                    ))),
                }
            }
        }
    }
}
