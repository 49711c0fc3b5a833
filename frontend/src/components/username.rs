//! A username's picture at the playhead, in place of the seat map on a username scenario: the
//! name, its state in words beside its colour (free, taken, created twice), the accounts in
//! `users` that have it in large type, its claim in `usernames`, those told the account is
//! theirs, who has its accounts locked and who waits, and what an open transaction inserted and
//! has not committed. It wears the counter picture's classes. A screen reader hears the whole
//! sentence, and a change of the accounts or the state as it happens. Everything comes from
//! `shared::view::username`; data attributes mirror `NameRow` for the browser tests.

use leptos::prelude::*;

use super::seatmap::LockIcon;
use crate::model;
use crate::state::use_lab;

#[component]
pub fn NameMap() -> impl IntoView {
    let lab = use_lab();
    let row = Memo::new(move |_| {
        let step = lab.step.get();
        lab.outcome
            .get()
            .ok()
            .and_then(|o| lab.schedule.with(|s| model::name_at(s, &o, step)))
    });
    let news = move || {
        row.get()
            .map(|r| format!("{}: {}, {}.", r.title(), r.state_line(), r.amount()))
            .unwrap_or_default()
    };
    view! {
        <figure class="seat-map counter-map" data-testid="name-map" aria-labelledby="name-caption">
            <div class="counters">
                {move || row.get().map(|r| {
                    let state = r.state();
                    let mut class = format!("counter {}", state.class());
                    if r.pending_line().is_some() {
                        class.push_str(" seat-pending");
                    }
                    let line = |class: &'static str, text: Option<String>| {
                        text.map(|t| view! { <span class=class>{t}</span> })
                    };
                    let warning = (state == model::CounterState::Over).then_some("\u{26a0}\u{fe0e} ");
                    view! {
                        <div
                            class=class
                            role="img"
                            aria-label=r.sentence()
                            data-testid=format!("name-{}", r.id)
                            data-accounts=r.accounts.to_string()
                            data-state=state.name()
                            data-claimed-by=r.claimed_by.clone().unwrap_or_default()
                            data-told=r.told.join(",")
                            data-lock=r.lock.clone().unwrap_or_default()
                            data-queue=r.queue.join(",")
                            data-creating=r.creating.join(",")
                            data-claiming=r.claiming.clone().unwrap_or_default()
                        >
                            <span class="counter-title">{r.title()}</span>
                            <span class="counter-amount" data-testid="name-accounts">{r.amount()}</span>
                            <span class="counter-state">{warning}{r.state_line()}</span>
                            <span class="counter-told">{r.claim_line()}</span>
                            {line("counter-told", r.told_line())}
                            {r.lock_line().map(|t| view! {
                                <span class="seat-lock"><LockIcon />{t}</span>
                            })}
                            {line("seat-queue", r.queue_line())}
                            {line("seat-write", r.pending_line())}
                        </div>
                    }
                })}
            </div>
            <p class="visually-hidden" aria-live="polite" aria-atomic="true" data-testid="name-news">{news}</p>
            <figcaption id="name-caption">
                <span>"Each sign-up creates an account in users (no unique key on the name) or claims the name in usernames (the name is its key)."</span>
                <span class="legend">
                    <span class="key ct-open">"free"</span>
                    <span class="key ct-spent">"taken"</span>
                    <span class="key ct-over">"created twice"</span>
                    <span class="key-icon"><LockIcon />"accounts locked"</span>
                    <span class="key-icon key-pending">"not committed"</span>
                </span>
            </figcaption>
        </figure>
    }
}
