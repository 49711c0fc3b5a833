//! "Find it for me": every feasible order of the programs, run in the model and grouped by
//! verdict and by how the losing buyer was stopped; load any group's example. Beside it, "Prove
//! it on PostgreSQL" (`proof.rs`) runs every order on the server's database.

use leptos::prelude::*;
use shared::explorer::{self, Exploration};

use super::proof::{ProofLine, ProveButton, Prover};
use crate::model;
use crate::state::use_lab;

/// Orders beyond this are not run in the page; the report says the search was bounded.
const LIMIT: u64 = 200_000;

/// Milliseconds since the page started, for the figures the page reports about itself.
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or_default()
}

/// Tenths of a millisecond since `started` (a `now_ms`), rounded. The page writes its timings
/// from these with integer formatting: `f64`'s `Display` alone added 17 KB to the page.
pub fn tenths_since(started: f64) -> u64 {
    ((now_ms() - started) * 10.0 + 0.5).max(0.0) as u64
}

/// Tenths of a millisecond as whole milliseconds, rounded: "12".
pub fn whole_ms(tenths: u64) -> String {
    ((tenths + 5) / 10).to_string()
}

#[component]
pub fn Explorer() -> impl IntoView {
    let lab = use_lab();
    let result = RwSignal::new(None::<(Exploration, u64)>);
    let goal = RwSignal::new(None::<GoalCount>);
    let prover = Prover::new();
    // A new schedule (another defence, an edit) makes an old exploration wrong: drop it.
    let programs = Memo::new(move |_| {
        lab.schedule
            .with(|s| (s.actors().to_vec(), s.scenario().clone()))
    });
    Effect::new(move |_| {
        programs.track();
        result.set(None);
        goal.set(None);
        prover.reset();
    });
    let explore = move |_| {
        let started = now_ms();
        let exploration = lab.schedule.with_untracked(|s| explorer::explore(s, LIMIT));
        result.set(Some((exploration, tenths_since(started))));
        goal.set(reaching_goal(lab));
    };
    view! {
        <section class="explorer" aria-labelledby="explorer-title">
            <div class="section-head">
                <h3 id="explorer-title">"Every order"</h3>
                <div class="actions">
                    <button class="primary" on:click=explore data-testid="explore">"Find it for me"</button>
                    <ProveButton prover />
                </div>
            </div>
            <ProofLine prover />
            {move || result.get().map(|(exploration, tenths)| view! { <Report exploration tenths /> })}
            {move || goal.get().map(|g| view! { <GoalLine count=g /> })}
        </section>
    }
}

/// How many orders reach the scenario's goal, when there are few enough to judge each fully.
#[derive(Clone, Debug, PartialEq)]
struct GoalCount {
    goal: &'static str,
    reached: usize,
    orders: usize,
    example: Option<Vec<String>>,
}

/// Orders beyond this are not judged one by one against the goal.
const GOAL_LIMIT: u64 = 2_000;

fn reaching_goal(lab: crate::state::Lab) -> Option<GoalCount> {
    let builtin = shared::scenarios::get(lab.source.get_untracked().scenario)?;
    lab.schedule.with_untracked(|schedule| {
        if !builtin.goal_applies(schedule) {
            return None;
        }
        let (orders, complete) = explorer::orders(schedule, GOAL_LIMIT);
        if !complete {
            return None;
        }
        let mut count = GoalCount {
            goal: builtin.goal,
            reached: 0,
            orders: orders.len(),
            example: None,
        };
        for order in orders {
            let candidate = schedule.with_order(order);
            let Ok(outcome) = model::run(&candidate) else {
                continue;
            };
            if builtin.goal_met(&candidate, &outcome) {
                count.reached += 1;
                count.example.get_or_insert_with(|| {
                    candidate
                        .order()
                        .iter()
                        .map(|&a| candidate.actors()[a].name.clone())
                        .collect()
                });
            }
        }
        Some(count)
    })
}

#[component]
fn GoalLine(count: GoalCount) -> impl IntoView {
    let lab = use_lab();
    let text = match count.reached {
        0 => format!(
            "No order reaches the goal (“{}”): whatever the order, this defence holds.",
            count.goal
        ),
        n => format!(
            "{n} of {} orders reach the goal (“{}”).",
            count.orders, count.goal
        ),
    };
    view! {
        <p class="goal-count" data-testid="goal-count">
            {text}
            {count.example.map(|order| view! {
                " "
                <button class="link" on:click=move |_| { lab.load_order(&order); super::lab::show_stage(); }>"Load one"</button>
            })}
        </p>
    }
}

#[component]
fn Report(exploration: Exploration, tenths: u64) -> impl IntoView {
    let lab = use_lab();
    let bad = exploration.double_booked();
    // On a counter, "double booked" is serving more buyers than the row had.
    let counter = lab
        .schedule
        .with_untracked(|s| s.scenario().kind.is_counter());
    let (one, many) = if counter {
        ("oversells", "oversell")
    } else {
        ("double-books", "double-book")
    };
    let summary = if bad == 0 {
        format!("None of the {} orders {one}.", exploration.orders)
    } else {
        format!("{bad} of {} orders {many}.", exploration.orders)
    };
    let bound = (!exploration.complete).then(|| {
        format!(
            "The search stopped after {} orders (of at most {} arrangements): the counts cover those.",
            exploration.orders, exploration.permutations
        )
    });
    let counterexample = exploration.counterexample().map(|g| g.example.clone());
    view! {
        <div class="explore-report" data-testid="explore-result" data-ms=format!("{}.{}", tenths / 10, tenths % 10) data-double=bad.to_string()>
            <p class="explore-summary" role="status">
                <strong>{summary}</strong>
                <span class="muted">{format!(" Explored in {} ms.", whole_ms(tenths))}</span>
            </p>
            {bound.map(|b| view! { <p class="muted">{b}</p> })}
            {counterexample.map(|order| view! {
                <button class="primary" data-testid="counterexample" on:click=move |_| { lab.load_order(&order); super::lab::show_stage(); }>
                    {if counter { "Show me one that oversells" } else { "Show me a double booking" }}
                </button>
            })}
            <table class="data groups">
                <thead><tr><th>"orders"</th><th>"verdict"</th><th>"how the others were stopped"</th><th></th></tr></thead>
                <tbody>
                    {exploration.groups.iter().map(|g| {
                        let example = g.example.clone();
                        let verdict = verdict_words(&g.verdict);
                        let names = g.example.iter().map(|n| model::display_name(n)).collect::<Vec<_>>().join(" → ");
                        view! {
                            <tr class:bad=g.verdict.double_booked>
                                <td class="num">{g.count}</td>
                                <td>{verdict}</td>
                                <td>{g.stop.clone()}</td>
                                <td><button class="link" title=names on:click=move |_| { lab.load_order(&example); super::lab::show_stage(); }>"Load"</button></td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}

/// A verdict in a few words.
pub fn verdict_words(v: &shared::outcome::Verdict) -> String {
    let mut parts = Vec::new();
    if v.double_booked {
        parts.push("double booked".to_string());
    }
    if v.lost_seat {
        parts.push("a paid seat lost".to_string());
    }
    if !v.refund_due.is_empty() {
        parts.push(format!(
            "refund owed to {}",
            v.refund_due
                .iter()
                .map(|a| model::display_name(a))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !v.unpaid_hold.is_empty() {
        parts.push(format!(
            "unpaid hold by {}",
            v.unpaid_hold
                .iter()
                .map(|a| model::display_name(a))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !v.booked_late.is_empty() {
        parts.push(format!(
            "booked after the hold ran out by {}",
            v.booked_late
                .iter()
                .map(|a| model::display_name(a))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if parts.is_empty() {
        "sold at most once".to_string()
    } else {
        parts.join("; ")
    }
}
