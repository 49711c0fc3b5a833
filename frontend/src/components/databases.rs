//! The database the lab races on, and the same order on the other one. The switch re-runs the
//! buyers on the chosen database's model (the phones, the seat map, the timeline and the verdict
//! all follow the schedule); the panel below lays both databases' outcomes of the order side by
//! side and, where they part, each model's own reason for what it did at that step.

use leptos::prelude::*;
use shared::explain::{contrast, Contrast};
use shared::schedule::Database;

use crate::model;
use crate::state::use_lab;

/// PostgreSQL | MySQL/InnoDB, as two pressed-or-not buttons.
#[component]
pub fn DatabaseSwitch() -> impl IntoView {
    let lab = use_lab();
    let current = Memo::new(move |_| lab.schedule.with(|s| s.database()));
    view! {
        <div class="database-switch" role="group" aria-label="Database" data-testid="database-switch">
            <span class="muted">"Database"</span>
            {Database::ALL.map(|db| view! {
                <button
                    class="tab"
                    aria-pressed=move || (current.get() == db).to_string()
                    on:click=move |_| lab.switch_database(db)
                    data-testid=format!("database-{}", db.id())
                >
                    {db.title()}
                </button>
            }).collect_view()}
        </div>
    }
}

/// The order's outcome on both databases, and the first step where they part.
#[component]
pub fn BothDatabases() -> impl IntoView {
    let lab = use_lab();
    let both = Memo::new(move |_| lab.schedule.with(contrast));
    view! {
        <section class="both-databases" aria-labelledby="both-title" data-testid="both-databases">
            <div class="section-head">
                <h3 id="both-title">"This order on both databases"</h3>
            </div>
            {move || both.with(|c| sides(c, lab.schedule.with(|s| parted_at(s, c))))}
        </section>
    }
}

fn sides(c: &Contrast, parted: Option<String>) -> impl IntoView {
    let cards = c
        .sides
        .iter()
        .map(|side| {
            let bad = !side.problems.is_empty();
            view! {
                <div class="database-card" class:bad=bad data-testid=format!("outcome-{}", side.database.id())>
                    <h4>{side.database.server()}</h4>
                    <p>{side.headline.clone()}</p>
                </div>
            }
        })
        .collect_view();
    let summary = match (&parted, c.same()) {
        (_, true) => {
            "Every step is answered alike: here the claim that InnoDB behaves the same holds."
                .to_string()
        }
        (Some(at), _) => at.clone(),
        (None, false) => "Only one of the two databases can run this order as written.".to_string(),
    };
    view! {
        <div class="database-cards">{cards}</div>
        <p class="database-parting" role="status" data-testid="database-parting">{summary}</p>
        {c.divergence.as_ref().map(|d| {
            let rows = c.sides.iter().zip(d.steps.iter().zip(&d.reasons)).map(|(side, (step, reason))| view! {
                <li><strong>{side.database.title()}": "</strong>{describe(step)}" — "{reason.clone()}</li>
            }).collect_view();
            view! { <ul class="database-reasons" data-testid="database-reasons">{rows}</ul> }
        })}
    }
}

/// "They part at step 4, Omar's write A7:" when they do.
fn parted_at(schedule: &shared::Schedule, c: &Contrast) -> Option<String> {
    let d = c.divergence.as_ref()?;
    let (actor, op) = *model::entry_ops(schedule).get(d.entry)?;
    let a = &schedule.actors()[actor];
    let label = model::op_label(&a.program[op], schedule.scenario().clock_unit);
    Some(format!(
        "They part at step {}, {}'s {label}:",
        d.entry + 1,
        model::display_name(&a.name)
    ))
}

/// A step's short form for a person: "waited, then failed with 40001", "updated 1 row".
fn describe(step: &str) -> String {
    let (waited, result) = match step.strip_prefix("waiting>") {
        Some(rest) => ("waited, then ", rest),
        None => ("", step),
    };
    let what = match result {
        "waiting" => "still waiting at the end".to_string(),
        "ok" => "done".to_string(),
        "skipped" => "not sent".to_string(),
        "rolled_back" => "rolled back".to_string(),
        r => match (r.strip_prefix("ok:"), r.strip_prefix("error:")) {
            (Some(n), _) => format!("{n} row{}", if n == "1" { "" } else { "s" }),
            (_, Some(code)) => format!("failed with {code}"),
            _ => format!("answered {r}"),
        },
    };
    format!("{waited}{what}")
}
