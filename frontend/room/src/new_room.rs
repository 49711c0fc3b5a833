//! `/room/new`: a facilitator opens a room. The show's size, the defence (every one the server
//! offers, each with its summary; the Redis hold shown unavailable, with the server's reason,
//! when Redis does not answer), the check-to-use gap and the hold's length; then on to the
//! facilitator's page, their secret after the `#` so that it never reaches a server log.

use leptos::prelude::*;
use serde_json::{json, Value};

use crate::api;
use crate::app::title;

#[component]
pub fn NewRoom() -> impl IntoView {
    title("New live room");
    let options = RwSignal::new(None::<Value>);
    let problem = RwSignal::new(None::<String>);
    leptos::task::spawn_local(async move {
        match api::get("/api/rooms/options").await {
            Ok(v) => options.set(Some(v)),
            Err(e) => problem.set(Some(e)),
        }
    });
    let seats = RwSignal::new("8".to_string());
    let defence = RwSignal::new("atomic_update".to_string());
    let gap = RwSignal::new("0".to_string());
    let hold = RwSignal::new("60".to_string());
    let limit = move |k: &str| {
        options.with(|o| {
            o.as_ref()
                .and_then(|o| o["limits"][k].as_i64())
                .unwrap_or(0)
        })
    };
    let create = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let number = |s: RwSignal<String>| s.get_untracked().trim().parse::<i64>().ok();
        let body = json!({
            "seats": number(seats),
            "defence": defence.get_untracked(),
            "gap_ms": number(gap),
            "hold_seconds": number(hold),
        });
        leptos::task::spawn_local(async move {
            match api::call("POST", "/api/rooms", Some(&body), None).await {
                Ok(room) => {
                    let code = room["code"].as_str().unwrap_or_default();
                    let secret = room["secret"].as_str().unwrap_or_default();
                    let _ = window()
                        .location()
                        .assign(&format!("/room/{code}/host#{secret}"));
                }
                Err(e) => problem.set(Some(e)),
            }
        });
    };
    view! {
        <main class="page room-new">
            <p><a class="brand" href="/">"Last Seat"</a></p>
            <h1>"Open a live room"</h1>
            <p class="muted">"Phones join with a code, race for the same seats at the same second on the real PostgreSQL, and the projector shows who got what."</p>
            <form class="room-form" on:submit=create>
                <label for="seats">"Seats in the show (1 to " {move || limit("seats")} ")"</label>
                <input id="seats" type="number" min="1" max=move || limit("seats") data-testid="seats"
                    prop:value=move || seats.get() on:input=move |ev| seats.set(event_target_value(&ev)) />
                <fieldset class="defences" data-testid="defences">
                    <legend>"The defence"</legend>
                    {move || options.with(|o| o.as_ref().and_then(|o| o["defences"].as_array().cloned()).unwrap_or_default())
                        .into_iter().map(|d| {
                            let name = d["name"].as_str().unwrap_or_default().to_string();
                            let unavailable = d["unavailable"].as_str().map(str::to_string);
                            let id = format!("defence-{name}");
                            let value = name.clone();
                            let checked = name.clone();
                            view! {
                                <div class="defence-choice">
                                    <input type="radio" name="defence" id=id.clone() value=name.clone()
                                        disabled=unavailable.is_some()
                                        prop:checked=move || defence.get() == checked
                                        on:change=move |_| defence.set(value.clone()) />
                                    <label for=id>
                                        <code>{name.clone()}</code> ": " {d["summary"].as_str().unwrap_or_default().to_string()}
                                        {unavailable.map(|why| view! { <span class="unavailable" data-testid=format!("unavailable-{name}")>" Unavailable: " {why}</span> })}
                                    </label>
                                </div>
                            }
                        }).collect_view()}
                </fieldset>
                <label for="gap">"Check-to-use gap, in milliseconds (0 to " {move || limit("gap_ms")} "): the pause between reading a seat and writing it, which widens the race"</label>
                <input id="gap" type="number" min="0" max=move || limit("gap_ms") data-testid="gap"
                    prop:value=move || gap.get() on:input=move |ev| gap.set(event_target_value(&ev)) />
                <label for="hold">"Hold length, in seconds (1 to " {move || limit("hold_seconds")} ")"</label>
                <input id="hold" type="number" min="1" max=move || limit("hold_seconds") data-testid="hold"
                    prop:value=move || hold.get() on:input=move |ev| hold.set(event_target_value(&ev)) />
                <button type="submit" class="primary" data-testid="create">"Open the room"</button>
                {move || problem.get().map(|p| view! { <p class="room-error" role="alert">{p}</p> })}
            </form>
        </main>
    }
}
