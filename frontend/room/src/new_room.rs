//! `/room/new`: a facilitator opens a room. The show's size, the defence (every one the server
//! offers, each by its title with its summary; the Redis hold shown unavailable, with the
//! server's reason, when Redis does not answer), the check-to-use gap and the hold's length;
//! then on to the facilitator's page, their secret after the `#` so that it never reaches a
//! server log.

use leptos::prelude::*;
use shared::protocol::room::{Change, Created, Limits, Options};
use shared::Defence;

use crate::api;
use crate::app::title;

#[component]
pub fn NewRoom() -> impl IntoView {
    title("New live room");
    let options = RwSignal::new(None::<Options>);
    let problem = RwSignal::new(None::<String>);
    leptos::task::spawn_local(async move {
        let got = api::get("/api/rooms/options").await;
        match got.and_then(|text| api::read::<Options>(&text)) {
            Ok(v) => options.set(Some(v)),
            Err(e) => problem.set(Some(e)),
        }
    });
    let seats = RwSignal::new("8".to_string());
    let defence = RwSignal::new(Defence::AtomicUpdate);
    let gap = RwSignal::new("0".to_string());
    let hold = RwSignal::new("60".to_string());
    let limit =
        move |of: fn(&Limits) -> i32| options.with(|o| o.as_ref().map_or(0, |o| of(&o.limits)));
    let create = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let number = |s: RwSignal<String>| s.get_untracked().trim().parse::<i64>().ok();
        let change = Change {
            seats: number(seats),
            defence: Some(defence.get_untracked().id().to_string()),
            gap_ms: number(gap),
            hold_seconds: number(hold),
            ..Change::default()
        };
        leptos::task::spawn_local(async move {
            let made = api::post("/api/rooms", api::json(&change), None).await;
            match made.and_then(|text| api::read::<Created>(&text)) {
                Ok(room) => {
                    let (code, secret) = (room.code, room.secret);
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
                <label for="seats">"Seats in the show (1 to " {move || limit(|l| l.seats)} ")"</label>
                <input id="seats" type="number" min="1" max=move || limit(|l| l.seats) data-testid="seats"
                    prop:value=move || seats.get() on:input=move |ev| seats.set(event_target_value(&ev)) />
                <DefenceChoices options defence />
                <label for="gap">"Check-to-use gap, in milliseconds (0 to " {move || limit(|l| l.gap_ms)} "): the pause between reading a seat and writing it, which widens the race"</label>
                <input id="gap" type="number" min="0" max=move || limit(|l| l.gap_ms) data-testid="gap"
                    prop:value=move || gap.get() on:input=move |ev| gap.set(event_target_value(&ev)) />
                <label for="hold">"Hold length, in seconds (1 to " {move || limit(|l| l.hold_seconds)} ")"</label>
                <input id="hold" type="number" min="1" max=move || limit(|l| l.hold_seconds) data-testid="hold"
                    prop:value=move || hold.get() on:input=move |ev| hold.set(event_target_value(&ev)) />
                <button type="submit" class="primary" data-testid="create">"Open the room"</button>
                {move || problem.get().map(|p| view! { <p class="room-error" role="alert">{p}</p> })}
            </form>
        </main>
    }
}

/// Every defence the server offers, by title and summary; the Redis one disabled, with the
/// server's reason, when Redis does not answer.
#[component]
fn DefenceChoices(options: RwSignal<Option<Options>>, defence: RwSignal<Defence>) -> impl IntoView {
    view! {
        <fieldset class="defences" data-testid="defences">
            <legend>"The defence"</legend>
            {move || options.with(|o| o.as_ref().map(|o| o.defences.clone()).unwrap_or_default())
                .into_iter().map(|d| {
                    let (offered, name) = (d.name, d.name.id());
                    let id = format!("defence-{name}");
                    view! {
                        <div class="defence-choice">
                            <input type="radio" name="defence" id=id.clone() value=name
                                disabled=d.unavailable.is_some()
                                prop:checked=move || defence.get() == offered
                                on:change=move |_| defence.set(offered) />
                            <label for=id>
                                <strong>{offered.title()}</strong> ": " {offered.summary()}
                                {d.unavailable.map(|why| view! { <span class="unavailable" data-testid=format!("unavailable-{name}")>" Unavailable: " {why}</span> })}
                            </label>
                        </div>
                    }
                }).collect_view()}
        </fieldset>
    }
}
