//! A general-admission round's section, where a round of seats shows its map (on a phone, with
//! "Buy a ticket", one per phone): the tickets left
//! as PostgreSQL's row holds them (below zero once a decrement followed a stale check), sold of
//! how many, and the buyers told yes beyond them.

use leptos::prelude::*;
use shared::protocol::room::Counter;

/// The section `c`, big on the projector; on a phone, with "Buy a ticket" (`tap` of the
/// section, while `can_tap`).
pub fn section(
    c: Counter,
    big: bool,
    tap: Option<Callback<String>>,
    can_tap: Signal<bool>,
) -> impl IntoView {
    let sold_out = c.sold_out();
    let id = c.section;
    view! {
        <section class=if big { "ga ga-big" } else { "ga" } data-testid="section" aria-label="General admission">
            {tap.map(|tap| view! {
                <button class="primary" data-testid="buy" disabled=move || sold_out || !can_tap.get()
                    on:click=move |_| tap.run(id.clone())>"Buy a ticket"</button>
            })}
            <p class="ga-left"><strong data-testid="tickets-left">{c.left}</strong>" tickets left"</p>
            <p data-testid="tickets-sold">{c.sold}" sold of "{c.tickets}</p>
            {(c.oversold > 0).then(|| view! {
                <p class="ga-oversold" data-testid="oversold">{c.oversold}" oversold: told yes with no ticket left"</p>
            })}
        </section>
    }
}
