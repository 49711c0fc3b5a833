//! "InnoDB behaves the same", tested in the reader's browser: every order of every built-in
//! scenario on both databases' models (`shared::claim`), counted per scenario, with an order
//! that tells them apart. Worked out on request: it runs a few thousand orders twice.

use leptos::prelude::*;
use shared::claim::{families, Family};

use crate::handover::{self, Ask, WITH_INNODB};

/// The element a reader of the first bundle is brought back to, the table then worked out.
const ANCHOR: &str = "claim";

/// The claim, worked out on request. The first bundle has no InnoDB model: its button loads the
/// page with it, which works the table out on arrival.
#[component]
pub fn ClaimTable() -> impl IntoView {
    let body = if WITH_INNODB {
        worked_out().into_any()
    } else {
        handover::load_button(
            Ask::Both(ANCHOR),
            "Compare every order",
            "primary",
            "claim-run",
        )
        .into_any()
    };
    view! {
        <section class="claim" id=ANCHOR aria-labelledby="claim-title" data-testid="claim">
            <h2 id="claim-title">"Does InnoDB behave the same?"</h2>
            <p>
                "The articles say MySQL's InnoDB behaves like PostgreSQL for all of this. "
                "Run every order of every scenario on both models and see where that holds."
            </p>
            {body}
        </section>
    }
}

/// The button, and the table once asked for (at once for a reader brought here to see it).
fn worked_out() -> impl IntoView {
    let rows = RwSignal::new(None::<Vec<Family>>);
    if handover::arrived_for(ANCHOR) {
        rows.set(Some(families()));
        handover::scroll_to(ANCHOR);
    }
    view! {
        <button
            class="primary"
            on:click=move |_| rows.set(Some(families()))
            disabled=move || rows.with(Option::is_some)
            data-testid="claim-run"
        >
            "Compare every order"
        </button>
        {move || rows.get().map(|families| view! { <Table families /> })}
    }
}

#[component]
fn Table(families: Vec<Family>) -> impl IntoView {
    let holds = families.iter().filter(|f| f.holds()).count();
    view! {
        <p role="status" data-testid="claim-summary">
            {format!("The claim holds in {holds} of {} scenarios: every order answered alike, step by step.", families.len())}
        </p>
        <div class="table-scroll" tabindex="0" role="region" aria-label="Every scenario on both databases">
            <table class="data">
                <thead>
                    <tr>
                        <th scope="col">"Scenario"</th>
                        <th scope="col">"Orders"</th>
                        <th scope="col">"Alike"</th>
                        <th scope="col">"Verdict differs"</th>
                        <th scope="col">"Steps differ"</th>
                        <th scope="col">"Cannot run on InnoDB"</th>
                        <th scope="col">"An order that tells them apart"</th>
                    </tr>
                </thead>
                <tbody>
                    {families.into_iter().map(|f| {
                        let example = f.example.as_ref().map(|(order, c)| view! {
                            <code>{order.join(" ")}</code>
                            <br />{format!("PostgreSQL: {}.", c.sides[0].headline)}
                            <br />{format!("InnoDB: {}.", c.sides[1].headline)}
                        });
                        view! {
                            <tr class:bad=!f.holds()>
                                <th scope="row">{f.title}</th>
                                <td class="num">{f.orders}</td>
                                <td class="num">{f.same}</td>
                                <td class="num">{f.verdict_differs}</td>
                                <td class="num">{f.steps_differ}</td>
                                <td class="num">{f.cannot_run}</td>
                                <td class="claim-example">{example}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}
