//! Chapter 5, the sandbox: the reader's own schedule, and the explorer over every order.

use super::{Chapter, MatrixTable, Part, Variant};

pub(super) const CHAPTER: Chapter = Chapter {
    number: 5,
    title: "Sandbox",
    goal: "Any seats, any programs, any order: find every order that goes wrong.",
    text: &[
        "Here the schedule is yours. Edit the scenario and the programs as JSON (the same \
         format the exported fixtures use), reorder the steps, and let the explorer run \
         every order the programs allow. It groups them by verdict and by how the losing \
         buyer was stopped; load any group's example to step through it.",
    ],
    parts: &[one!("Three buyers, one seat", "ch5-three-buyers")],
    editable: true,
    matrix: MatrixTable::Seats,
};
