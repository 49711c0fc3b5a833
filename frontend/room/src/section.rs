//! A general-admission round's section, where a round of seats shows its map: the tickets left
//! as PostgreSQL's row holds them (below zero once a decrement followed a stale check), sold of
//! how many, and the buyers told yes beyond them, with a bar that runs past its end when the
//! section is oversold.

use leptos::prelude::*;
use shared::protocol::room::Counter;

/// The section `c`, big on the projector.
pub fn section(c: Counter, big: bool) -> impl IntoView {
    let n = c.tickets.max(1) as u64;
    // The bar's share sold (capped) and oversold, in percent of the section.
    let sold = c.sold.min(n) * 100 / n;
    let over = (c.oversold * 100 / n).min(100);
    let class = if big { "ga room-map-big" } else { "ga" };
    view! {
        <section class=class data-testid="section" aria-label="General admission">
            <p class="ga-left"><strong data-testid="tickets-left">{c.left}</strong>" tickets left"</p>
            <div class="ga-bar" aria-hidden="true">
                <span style=format!("width:{sold}%")></span>
                <span class="ga-over" style=format!("width:{over}%")></span>
            </div>
            <p data-testid="tickets-sold">{c.sold}" sold of "{c.tickets}</p>
            {(c.oversold > 0).then(|| view! {
                <p class="ga-oversold" data-testid="oversold">{c.oversold}" oversold: told yes with no ticket left"</p>
            })}
        </section>
    }
}
