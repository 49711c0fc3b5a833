//! The stored rows at the playhead, beside the simulated Redis's keys.

use leptos::prelude::*;

use shared::schedule::SHOWS_SEATS;

use crate::model;
use crate::state::use_lab;

/// The stored rows at the playhead: seats, tickets, refunds owed; and, when the schedule uses
/// Redis, the keys it has.
#[component]
pub fn StoredRows() -> impl IntoView {
    let lab = use_lab();
    let unit = move || lab.schedule.with(|s| s.scenario().clock_unit);
    let tables = Memo::new(move |_| {
        let step = lab.step.get();
        lab.outcome
            .get()
            .ok()
            .map(|o| model::tables_at(&o, step).clone())
    });
    let redis = Memo::new(move |_| {
        let step = lab.step.get();
        // Only a race for seats uses Redis, and chapter 6's bundle shows none.
        let uses = SHOWS_SEATS
            && lab
                .schedule
                .with(|s| s.any_op(shared::schedule::Op::is_redis));
        let keys = lab
            .outcome
            .get()
            .ok()
            .map(|o| lab.schedule.with(|s| model::redis_at(s, &o, step)))
            .unwrap_or_default();
        uses.then_some(keys)
    });
    let kind = Memo::new(move |_| lab.schedule.with(|s| s.scenario().kind));
    view! {
        <details class="rows" open>
            <summary>"Stored rows"</summary>
            {move || tables.get().filter(|_| kind.get().is_counter()).map(|t| {
                let (table, key, column) = shared::view::counter::table(kind.get());
                view! {
                    <table class="data" data-testid="rows">
                        <caption class="rows-extra">{table}</caption>
                        <thead><tr><th>{key}</th><th>{column}</th></tr></thead>
                        <tbody>
                            {t.seats.iter().map(|s| view! {
                                <tr>
                                    <td>{s.id.clone()}</td>
                                    <td>{shared::view::counter::stored(kind.get(), s.value.unwrap_or_default())}</td>
                                </tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                }
            })}
            {move || tables.get().filter(|_| kind.get().is_username()).map(|t| view! {
                <table class="data" data-testid="rows">
                    <caption class="rows-extra">"users (the accounts) and usernames (the claimed names)"</caption>
                    <thead><tr><th>"username"</th><th>"accounts in users"</th><th>"owner in usernames"</th></tr></thead>
                    <tbody>
                        {t.seats.iter().map(|s| {
                            let owner = t.bookings.iter().find(|b| b.seat == s.id).map(|b| b.holder.clone());
                            view! {
                                <tr>
                                    <td>{s.id.clone()}</td>
                                    <td>{s.value.unwrap_or_default()}</td>
                                    <td>{owner.unwrap_or_else(|| "none".to_string())}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
            })}
            {move || tables.get().filter(|_| SHOWS_SEATS && kind.get().is_seats()).map(|t| view! {
                <table class="data" data-testid="rows">
                    <thead><tr><th>"seat"</th><th>"status"</th><th>"holder"</th><th>"hold id"</th><th>"until"</th></tr></thead>
                    <tbody>
                        {t.seats.iter().map(|s| view! {
                            <tr>
                                <td>{s.id.clone()}</td>
                                <td>{s.status.as_sql()}</td>
                                <td>{s.holder.clone().unwrap_or_default()}</td>
                                <td><code>{s.hold_id.clone().unwrap_or_default()}</code></td>
                                <td>{s.until.map(|u| unit().at(u)).unwrap_or_default()}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
                <p class="rows-extra">
                    {if t.bookings.is_empty() {
                        "No tickets.".to_string()
                    } else {
                        format!(
                            "Tickets: {}.",
                            t.bookings
                                .iter()
                                .map(|b| format!("{} for {}", b.seat, model::display_name(&b.holder)))
                                .collect::<Vec<_>>()
                                .join("; ")
                        )
                    }}
                    " "
                    {if t.refunds.is_empty() {
                        String::new()
                    } else {
                        format!(
                            "Refunds owed: {}.",
                            t.refunds.iter().map(|r| model::display_name(r)).collect::<Vec<_>>().join(", ")
                        )
                    }}
                </p>
            })}
            {move || redis.get().map(|keys| view! {
                <h4 class="redis-title">"Redis keys " <small>"(simulated, like the payment provider)"</small></h4>
                {if keys.is_empty() {
                    view! { <p class="rows-extra" data-testid="redis-keys">"No keys."</p> }.into_any()
                } else {
                    view! {
                        <table class="data" data-testid="redis-keys">
                            <thead><tr><th>"key"</th><th>"value"</th><th>"lives to"</th></tr></thead>
                            <tbody>
                                {keys.into_iter().map(|k| view! {
                                    <tr class:gone=k.gone>
                                        <td><code>{k.key}</code></td>
                                        <td><code>{k.hold_id}</code></td>
                                        <td>{if k.gone { format!("{} (gone)", unit().at(k.until)) } else { unit().at(k.until) }}</td>
                                    </tr>
                                }).collect_view()}
                            </tbody>
                        </table>
                    }.into_any()
                }}
            })}
        </details>
    }
}
