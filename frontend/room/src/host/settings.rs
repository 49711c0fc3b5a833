//! The next round's settings (numbered seats or general admission and its tickets, the defence,
//! the gap, the hold, payments that land late or are delivered twice) and the bots, for the
//! facilitator: the choices are the server's own, each defence shown by its title, those that do
//! not fit the kind of round chosen disabled with the server's reason.

use leptos::prelude::*;
use shared::protocol::room::{Bots, Change, Options, Released, SettingsNow};

use super::Host;
use crate::api;
use crate::live::settings_words;

#[component]
pub fn Settings(host: Host) -> impl IntoView {
    let live = host.live;
    let options = RwSignal::new(None::<Options>);
    let redis_why = move || live.read(|s| s.redis_unavailable.clone()).flatten();
    view! {
        <section class="settings-card" aria-labelledby="settings-h">
            <h2 id="settings-h">"Between rounds"</h2>
            <p class="muted">{move || live.read(|s| format!("Now: {}", settings_words(&s.settings)))}</p>
            {move || redis_why().map(|why| view! { <p class="room-error" role="alert">{why}</p> })}
            <NextRound host options />
            <BotsForm host options />
        </section>
    }
}

/// Fetches the options for a round of `kind`: the server says which defences fit it.
fn load_options(options: RwSignal<Option<Options>>, kind: &str) {
    let url = format!("/api/rooms/options?kind={kind}");
    leptos::task::spawn_local(async move {
        if let Ok(v) = api::get(&url).await.and_then(|t| api::read::<Options>(&t)) {
            options.set(Some(v));
        }
    });
}

/// The next round's settings, starting from the room's.
#[component]
fn NextRound(host: Host, options: RwSignal<Option<Options>>) -> impl IntoView {
    let live = host.live;
    let kind = RwSignal::new(String::new());
    let tickets = RwSignal::new(String::new());
    let defence = RwSignal::new(String::new());
    let gap = RwSignal::new(String::new());
    let hold = RwSignal::new(String::new());
    let late = RwSignal::new(false);
    let twice = RwSignal::new(false);
    // The form starts from the room's settings, once they are known.
    Effect::new(move |done: Option<bool>| {
        let now = live.read(|s| s.settings.clone());
        let Some(s) = now.filter(|_| done != Some(true)) else {
            return done.unwrap_or(false);
        };
        kind.set(s.kind.id().to_string());
        load_options(options, s.kind.id());
        tickets.set(s.tickets.to_string());
        defence.set(s.defence.id().to_string());
        gap.set(s.gap_ms.to_string());
        hold.set(s.hold_seconds.to_string());
        late.set(s.late_payments);
        twice.set(s.duplicate_payments);
        true
    });
    let apply = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let number = |s: RwSignal<String>| s.get_untracked().trim().parse::<i64>().ok();
        let change = Change {
            kind: Some(kind.get_untracked()),
            tickets: number(tickets),
            defence: Some(defence.get_untracked()),
            gap_ms: number(gap),
            hold_seconds: number(hold),
            late_payments: Some(late.get_untracked()),
            duplicate_payments: Some(twice.get_untracked()),
            ..Change::default()
        };
        host.post("settings", api::json(&change), |text| {
            let s = api::read::<SettingsNow>(text)?.settings;
            Ok(format!("the next round uses {}", settings_words(&s)))
        });
    };
    view! {
        <form class="room-form" on:submit=apply>
            <label for="kind">"What the next round sells"</label>
            <select id="kind" data-testid="kind" prop:value=move || kind.get() on:change=move |ev| {
                let k = event_target_value(&ev);
                load_options(options, &k);
                kind.set(k);
            }>
                <option value="seats">"Numbered seats"</option>
                <option value="general_admission">"General admission: a count of tickets"</option>
            </select>
            <label for="host-tickets">"Tickets, in a general-admission round"</label>
            <input id="host-tickets" data-testid="tickets" type="number" min="1" prop:value=move || tickets.get() on:input=move |ev| tickets.set(event_target_value(&ev)) />
            <label for="defence">"Defence for the next round"</label>
            <select id="defence" data-testid="defence" on:change=move |ev| defence.set(event_target_value(&ev))>
                {move || options.with(|o| o.as_ref().map(|o| o.defences.clone()).unwrap_or_default())
                    .into_iter().map(|d| {
                        let id = d.name.id();
                        let why = d.unavailable.map(|w| format!(" (unavailable: {w})")).unwrap_or_default();
                        view! {
                            <option value=id disabled=!why.is_empty()
                                selected=move || defence.get() == id>{format!("{}{why}", d.name.title())}</option>
                        }
                    }).collect_view()}
            </select>
            <label for="host-gap">"Check-to-use gap, ms"</label>
            <input id="host-gap" type="number" min="0" prop:value=move || gap.get() on:input=move |ev| gap.set(event_target_value(&ev)) />
            <label for="host-hold">"Hold length, s"</label>
            <input id="host-hold" type="number" min="1" prop:value=move || hold.get() on:input=move |ev| hold.set(event_target_value(&ev)) />
            <label class="check"><input type="checkbox" data-testid="late" prop:checked=move || late.get()
                on:change=move |ev| late.set(event_target_checked(&ev)) />"Payments land late (after the hold runs out)"</label>
            <label class="check"><input type="checkbox" data-testid="twice" prop:checked=move || twice.get()
                on:change=move |ev| twice.set(event_target_checked(&ev)) />"Payments are delivered twice"</label>
            <button type="submit" data-testid="apply">"Use these for the next round"</button>
        </form>
    }
}

/// Bots released into the racing round, as many as the server allows.
#[component]
fn BotsForm(host: Host, options: RwSignal<Option<Options>>) -> impl IntoView {
    let bots = RwSignal::new("100".to_string());
    let release = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let count = bots.get_untracked().trim().parse::<i64>().unwrap_or(-1);
        host.post("bots", api::json(&Bots { count }), |text| {
            let v: Released = api::read(text)?;
            Ok(format!("{} bots are racing", v.released))
        });
    };
    let most_bots = move || options.with(|o| o.as_ref().map_or(1000, |o| o.limits.bots));
    view! {
        <form class="room-form bots" on:submit=release>
            <label for="bots">"Bots to release at once (1 to " {most_bots} ")"</label>
            <input id="bots" type="number" min="1" max=most_bots prop:value=move || bots.get() on:input=move |ev| bots.set(event_target_value(&ev)) />
            <button type="submit" data-testid="release-bots">"Release the bots"</button>
        </form>
    }
}
