//! The next round's settings (the defence, the gap, the hold, payments that land late or are
//! delivered twice) and the bots, for the facilitator: the choices are the server's own.

use leptos::prelude::*;
use serde_json::{json, Value};

use super::Host;
use crate::api;

#[component]
pub fn Settings(host: Host) -> impl IntoView {
    let live = host.live;
    let options = RwSignal::new(None::<Value>);
    leptos::task::spawn_local(async move {
        if let Ok(v) = api::get("/api/rooms/options").await {
            options.set(Some(v));
        }
    });
    let setting = move |k: &str| {
        live.state.with(|s| {
            s.as_ref()
                .map(|s| s["settings"][k].clone())
                .unwrap_or(Value::Null)
        })
    };
    let defence = RwSignal::new(String::new());
    let gap = RwSignal::new(String::new());
    let hold = RwSignal::new(String::new());
    let late = RwSignal::new(false);
    let twice = RwSignal::new(false);
    let bots = RwSignal::new("100".to_string());
    // The form starts from the room's settings, once they are known.
    Effect::new(move |done: Option<bool>| {
        if done == Some(true) || live.state.with(Option::is_none) {
            return done.unwrap_or(false);
        }
        defence.set(setting("defence").as_str().unwrap_or_default().to_string());
        gap.set(setting("gap_ms").to_string());
        hold.set(setting("hold_seconds").to_string());
        late.set(setting("late_payments") == true);
        twice.set(setting("duplicate_payments") == true);
        true
    });
    let apply = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let number = |s: RwSignal<String>| s.get_untracked().trim().parse::<i64>().ok();
        let body = json!({
            "defence": defence.get_untracked(),
            "gap_ms": number(gap),
            "hold_seconds": number(hold),
            "late_payments": late.get_untracked(),
            "duplicate_payments": twice.get_untracked(),
        });
        host.post("settings", body, |v| {
            let s = &v["settings"];
            format!(
                "the next round uses {} with a gap of {} ms and holds of {} s",
                s["defence"].as_str().unwrap_or_default(),
                s["gap_ms"],
                s["hold_seconds"]
            )
        });
    };
    let release = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let count = bots.get_untracked().trim().parse::<i64>().unwrap_or(-1);
        host.post("bots", json!({ "count": count }), |v| {
            format!("{} bots are racing", v["released"])
        });
    };
    let most_bots = move || {
        options.with(|o| {
            o.as_ref()
                .and_then(|o| o["limits"]["bots"].as_i64())
                .unwrap_or(1000)
        })
    };
    let redis_why = move || {
        live.state.with(|s| {
            s.as_ref()
                .and_then(|s| s["redis_unavailable"].as_str().map(str::to_string))
        })
    };
    view! {
        <section class="settings-card" aria-labelledby="settings-h">
            <h2 id="settings-h">"Between rounds"</h2>
            <p class="muted">"Now: " {move || setting("defence").as_str().unwrap_or_default().to_string()}
                ", gap " {move || setting("gap_ms").to_string()} " ms, holds of " {move || setting("hold_seconds").to_string()} " s"</p>
            {move || redis_why().map(|why| view! { <p class="room-error" role="alert">{why}</p> })}
            <form class="room-form" on:submit=apply>
                <label for="defence">"Defence for the next round"</label>
                <select id="defence" data-testid="defence" on:change=move |ev| defence.set(event_target_value(&ev))>
                    {move || options.with(|o| o.as_ref().and_then(|o| o["defences"].as_array().cloned()).unwrap_or_default())
                        .into_iter().map(|d| {
                            let name = d["name"].as_str().unwrap_or_default().to_string();
                            let why = d["unavailable"].as_str().map(|w| format!(" (unavailable: {w})")).unwrap_or_default();
                            let chosen = name.clone();
                            view! {
                                <option value=name.clone() disabled=!why.is_empty()
                                    selected=move || defence.get() == chosen>{format!("{name}{why}")}</option>
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
            <form class="room-form bots" on:submit=release>
                <label for="bots">"Bots to release at once (1 to " {most_bots} ")"</label>
                <input id="bots" type="number" min="1" max=most_bots prop:value=move || bots.get() on:input=move |ev| bots.set(event_target_value(&ev)) />
                <button type="submit" data-testid="release-bots">"Release the bots"</button>
            </form>
        </section>
    }
}
