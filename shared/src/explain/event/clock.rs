//! The lines of the clock and the sweeper: when the clock moves, whose holds ran out; when
//! the sweeper runs, which seats it freed.

use super::super::{join, title};
use super::Event;
use crate::schedule::SeatStatus;

impl Event<'_> {
    pub(super) fn advance(&self) -> String {
        let (before, after) = (self.tables_before(), self.tables_after());
        let ran_out: Vec<String> = before
            .seats
            .iter()
            .filter(|r| r.status == SeatStatus::Held)
            .filter(|r| {
                r.until
                    .is_some_and(|u| u >= before.clock && u < after.clock)
            })
            .map(|r| {
                format!(
                    "{}'s hold on {} ran out",
                    title(r.holder.as_deref().unwrap_or("?")),
                    r.id
                )
            })
            .collect();
        let mut line = format!("The clock moved to {}", self.unit().at(after.clock));
        if !ran_out.is_empty() {
            line.push_str(": ");
            line.push_str(&ran_out.join(", "));
        }
        line
    }

    pub(super) fn sweep(&self) -> String {
        let (before, after) = (self.tables_before(), self.tables_after());
        let freed: Vec<String> = before
            .seats
            .iter()
            .zip(&after.seats)
            .filter(|(b, a)| b.status == SeatStatus::Held && a.status == SeatStatus::Available)
            .map(|(b, _)| b.id.clone())
            .collect();
        if freed.is_empty() {
            "The sweeper found nothing to free".to_string()
        } else {
            format!("The sweeper freed {}", join(&freed))
        }
    }
}
