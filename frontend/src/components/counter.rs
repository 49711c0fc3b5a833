//! The counter's picture at the playhead, in place of the seat map on a scenario whose rows are
//! counters: each row (a section's tickets left, an account's balance, an API key's calls left,
//! a coupon's used flag) with its committed value in large type, its state in words beside its
//! colour, the buyers told yes, who holds its row lock and who queues for it, and an uncommitted
//! new value (dashed) and whose it is. A screen reader hears each row's whole sentence, and a
//! change of its value or state as it happens. Everything comes from `shared::view::counter`;
//! data attributes mirror `CounterRow` for the browser tests.

use leptos::prelude::*;
use shared::view::counter::{self, CounterState};

use super::seatmap::LockIcon;
use crate::model::{self, CounterRow};
use crate::state::use_lab;

#[component]
pub fn CounterMap() -> impl IntoView {
    let lab = use_lab();
    let rows = Memo::new(move |_| {
        let step = lab.step.get();
        lab.outcome
            .get()
            .map(|o| lab.schedule.with(|s| model::counters_at(s, &o, step)))
            .unwrap_or_default()
    });
    let each = move || {
        lab.schedule.with(|s| {
            let rows = rows.get();
            let first = rows.first();
            first
                .map(|r| format!("Each buyer asks for {}.", r.request()))
                .unwrap_or_default()
                + &format!(" Stored in {}.", counter::table(s.scenario().kind).0)
        })
    };
    // What a screen reader hears when a value or a state changes (not the lock or the queue,
    // which the step line already says).
    let news = move || {
        rows.get()
            .iter()
            .map(|r| format!("{}: {}, {}.", r.title(), r.amount(r.value), r.state_line()))
            .collect::<Vec<_>>()
            .join(" ")
    };
    view! {
        <figure class="seat-map counter-map" data-testid="counter-map" aria-labelledby="counter-caption">
            <div class="counters">
                {move || rows.get().into_iter().map(|row| view! { <Row row /> }).collect_view()}
            </div>
            <p class="visually-hidden" aria-live="polite" aria-atomic="true" data-testid="counter-news">{news}</p>
            <figcaption id="counter-caption">
                <span data-testid="counter-each">{each}</span>
                <span class="legend" data-testid="counter-legend">
                    <span class="key ct-open">"enough left"</span>
                    <span class="key ct-spent">"none left"</span>
                    <span class="key ct-over">"served too many"</span>
                    <span class="key-icon"><LockIcon />"row lock"</span>
                    <span class="key-icon key-pending">"not committed"</span>
                </span>
            </figcaption>
        </figure>
    }
}

/// How full the gauge is, in percent of the value the row started with.
fn fill(row: &CounterRow) -> Option<String> {
    (row.kind != shared::schedule::Shape::Coupon && row.start > 0).then(|| {
        let share = (row.value.clamp(0, row.start) * 100) / row.start;
        format!("width: {share}%")
    })
}

#[component]
fn Row(row: CounterRow) -> impl IntoView {
    let state = row.state();
    let mut class = format!("counter {}", state.class());
    if row.pending.is_some() {
        class.push_str(" seat-pending");
    }
    let line = |class: &'static str, text: Option<String>| {
        text.map(|t| view! { <span class=class>{t}</span> })
    };
    let names = |v: &[String]| v.join(",");
    let warning = (state == CounterState::Over).then_some("\u{26a0}\u{fe0e} ");
    view! {
        <div
            class=class
            role="img"
            aria-label=row.sentence()
            data-testid=format!("counter-{}", row.id)
            data-kind=row.kind.id()
            data-value=row.value.to_string()
            data-state=state.name()
            data-told=names(&row.told)
            data-lock=row.lock.clone().unwrap_or_default()
            data-queue=names(&row.queue)
            data-pending=row.pending.as_ref().map(|p| p.0.clone()).unwrap_or_default()
            data-pending-value=row.pending.as_ref().map(|p| p.1.to_string()).unwrap_or_default()
        >
            <span class="counter-title">
                {row.title()}
                " " <code class="counter-column">{row.column()}</code>
            </span>
            <span class="counter-amount" data-testid=format!("amount-{}", row.id)>{row.amount(row.value)}</span>
            {fill(&row).map(|w| view! { <span class="countdown counter-gauge"><span style=w></span></span> })}
            <span class="counter-state">{warning}{row.state_line()}</span>
            {line("counter-told", row.told_line())}
            {row.lock.as_deref().map(|who| view! {
                <span class="seat-lock"><LockIcon />{model::display_name(who)}</span>
            })}
            {line("seat-queue", row.queue_line())}
            {line("seat-write", row.pending_line())}
        </div>
    }
}
