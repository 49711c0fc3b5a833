//! The database the lab races on, and the same order on the other one. The switch re-runs the
//! buyers on the chosen database's model (the phones, the seat map, the timeline and the verdict
//! all follow the schedule); the panel below lays both databases' outcomes of the order side by
//! side and, where they part, each model's own reason for what it did at that step.

use leptos::prelude::*;
use shared::explain::{contrast, Contrast};
use shared::schedule::Database;

use crate::handover::{self, Ask, WITH_INNODB};
use crate::model;
use crate::state::use_lab;

/// The switch's element, where a reader who chose InnoDB in the first bundle is brought back to.
pub const SWITCH_ANCHOR: &str = "database-switch";

/// PostgreSQL | MySQL/InnoDB, as two pressed-or-not buttons. In the first bundle, InnoDB's
/// button loads the page with its model, which switches on arrival.
#[component]
pub fn DatabaseSwitch() -> impl IntoView {
    let lab = use_lab();
    let current = Memo::new(move |_| lab.schedule.with(|s| s.database()));
    let loading = RwSignal::new(false);
    let choose = move |db: Database| {
        if WITH_INNODB || db == Database::Postgresql {
            lab.switch_database(db);
        } else {
            loading.set(true);
            handover::load(Ask::Switch);
        }
    };
    view! {
        <div class="database-switch" id=SWITCH_ANCHOR role="group" aria-label="Database" data-testid="database-switch">
            <span class="muted">"Database"</span>
            {Database::ALL.map(|db| view! {
                <button
                    class="tab"
                    aria-pressed=move || (current.get() == db).to_string()
                    aria-busy=move || (db == Database::Innodb && loading.get()).then_some("true")
                    on:click=move |_| choose(db)
                    data-testid=format!("database-{}", db.id())
                >
                    {move || if db == Database::Innodb && loading.get() {
                        format!("Loading {}…", db.title())
                    } else {
                        db.title().to_string()
                    }}
                </button>
            }).collect_view()}
        </div>
    }
}

/// The element a reader of the first bundle is brought back to.
const ANCHOR: &str = "both-databases";

/// The order's outcome on both databases, and the first step where they part. The first
/// bundle offers to load InnoDB's model for it.
#[component]
pub fn BothDatabases() -> impl IntoView {
    let body = if WITH_INNODB {
        if handover::arrived_for(ANCHOR) {
            handover::scroll_to(ANCHOR);
        }
        let lab = use_lab();
        let both = Memo::new(move |_| lab.schedule.with(contrast));
        (move || both.with(|c| sides(c, lab.schedule.with(|s| parted_at(s, c))))).into_any()
    } else {
        offer().into_any()
    };
    view! {
        <section class="both-databases" id=ANCHOR aria-labelledby="both-title" data-testid="both-databases">
            <div class="section-head">
                <h3 id="both-title">"This order on both databases"</h3>
            </div>
            {body}
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

/// The first bundle's stand-in: what the view shows, and a button that loads it.
fn offer() -> impl IntoView {
    view! {
        <p class="muted">
            "The same order on MySQL's InnoDB, beside PostgreSQL's, with the first step where "
            "they part and why. InnoDB's model is a second download, fetched when you ask."
        </p>
        {handover::load_button(Ask::Both(ANCHOR), "Compare with InnoDB", "", "both-load")}
    }
}

/// "They part at step 4, Omar's write A7:" when they do.
fn parted_at(schedule: &shared::Schedule, c: &Contrast) -> Option<String> {
    let d = c.divergence.as_ref()?;
    let (actor, op) = *model::entry_ops(schedule).get(d.entry)?;
    let a = &schedule.actors()[actor];
    let label = model::op_label_in(&a.program[op], schedule.scenario());
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
