//! A participant's phone (`/room/{code}`), 375 px first: pick a name, then the seat map, one
//! line of their own state in words (`shared::view::room`, from the server's state and its
//! answer to their last request, ticking down from the deadline the server set), Pay and
//! Cancel. Every way of leaving lets go of a live hold: Cancel; Back, closing the tab or any
//! other navigation away (a request that outlives the page); and timing out, which the
//! server's clock decides. Their token stays in the tab's storage and goes out as
//! `Authorization: Bearer`, never in an address.

use leptos::prelude::*;
use serde_json::{json, Value};
use shared::schedule::Op;
use shared::view::room::{Answer, Asked, Phase, Phone, RoomSeat};

use crate::api;
use crate::app::title;
use crate::live::{Live, Reconnecting};
use crate::seats::RoomMap;

/// Who this phone is in the room: the join's answer.
#[derive(Clone, Debug, PartialEq)]
struct Me {
    token: String,
    actor: String,
    name: String,
}

fn key(code: &str) -> String {
    format!("lastseat-room-{code}")
}

fn restore(code: &str) -> Option<Me> {
    let v: Value = serde_json::from_str(&api::stored(&key(code))?).ok()?;
    Some(Me {
        token: v["token"].as_str()?.into(),
        actor: v["actor"].as_str()?.into(),
        name: v["name"].as_str()?.into(),
    })
}

/// Whether the defence books when its holder pays: its program has a payment.
fn pays(defence: &str) -> bool {
    shared::defences::program(defence, &["A1".to_string()])
        .is_some_and(|(ops, _)| ops.iter().any(|op| matches!(op, Op::Pay { .. })))
}

#[component]
pub fn PhonePage(code: String) -> impl IntoView {
    title(&format!("Room {code}"));
    let live = Live::connect(&code);
    let me = RwSignal::new(restore(&code));
    let code = StoredValue::new(code);
    view! {
        <main class="page room-phone">
            <header class="room-head">
                <span class="brand">"Last Seat"</span>
                <span class="room-code-small">"Room " {code.get_value()}</span>
            </header>
            <Reconnecting live />
            {move || live.error.get().map(|e| view! { <p class="room-error" role="alert">{e}</p> })}
            {move || match me.get() {
                None => view! { <Join code=code.get_value() me /> }.into_any(),
                Some(who) => view! { <Racing live who /> }.into_any(),
            }}
        </main>
    }
}

#[component]
fn Join(code: String, me: RwSignal<Option<Me>>) -> impl IntoView {
    let name = RwSignal::new(String::new());
    let problem = RwSignal::new(None::<String>);
    let code = StoredValue::new(code);
    let join = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let code = code.get_value();
        let wanted = name.get_untracked();
        leptos::task::spawn_local(async move {
            let url = format!("/api/rooms/{code}/participants");
            match api::call("POST", &url, Some(&json!({ "name": wanted })), None).await {
                Ok(v) => {
                    let who = Me {
                        token: v["token"].as_str().unwrap_or_default().into(),
                        actor: v["actor"].as_str().unwrap_or_default().into(),
                        name: v["name"].as_str().unwrap_or_default().into(),
                    };
                    let saved = json!({ "token": who.token, "actor": who.actor, "name": who.name });
                    api::store(&key(&code), &saved.to_string());
                    me.set(Some(who));
                }
                Err(e) => problem.set(Some(e)),
            }
        });
    };
    view! {
        <h1>"Join the race"</h1>
        <form class="room-form" on:submit=join>
            <label for="name">"Your name, as the projector shows it"</label>
            <input id="name" data-testid="name" autocomplete="nickname" maxlength="24" required
                prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev)) />
            <button type="submit" class="primary" data-testid="join">"Join"</button>
            {move || problem.get().map(|p| view! { <p class="room-error" role="alert">{p}</p> })}
        </form>
    }
}

#[component]
fn Racing(live: Live, who: Me) -> impl IntoView {
    let last = RwSignal::new(None::<Answer>);
    let notice = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let me = StoredValue::new(who.clone());
    let line = Memo::new(move |_| {
        let now = live.now.get();
        live.state.with(|state| {
            let state = state.as_ref()?;
            let seats = RoomSeat::all(state);
            let me = me.get_value();
            let answer = last.get();
            let phone = Phone {
                phase: Phase::parse(state["phase"].as_str().unwrap_or_default()),
                round: state["round"].as_i64().unwrap_or(0),
                me: &me.actor,
                seats: &seats,
                pays: pays(state["settings"]["defence"].as_str().unwrap_or_default()),
                race_at_ms: state["race_at_ms"].as_i64(),
                now_ms: now,
                last: answer.as_ref(),
            };
            Some((phone.line(), phone.phase_now()))
        })
    });
    let racing = Signal::derive(move || {
        line.with(|l| l.as_ref().is_some_and(|(_, p)| *p == Phase::Race)) && !busy.get()
    });
    let ask = move |asked: Asked, path: &'static str, body: Value| {
        let code = live.code.get_value();
        let token = me.get_value().token;
        let round = live.int("round");
        busy.set(true);
        notice.set(None);
        leptos::task::spawn_local(async move {
            let url = format!("/api/rooms/{code}/{path}");
            match api::call("POST", &url, Some(&body), Some(&token)).await {
                Ok(reply) => last.set(Some(Answer {
                    asked,
                    round,
                    holding: reply["holding"].as_bool().unwrap_or(false),
                    message: reply["message"].as_str().unwrap_or_default().to_string(),
                })),
                Err(e) => notice.set(Some(e)),
            }
            busy.set(false);
            live.resync();
        });
    };
    let tap =
        Callback::new(move |seat: String| ask(Asked::Tap, "taps", json!({ "seats": [seat] })));
    // Leaving the page any way at all (Back, closing the tab, another address) lets go of a
    // live hold: a request that outlives the page.
    let leave = window_event_listener(leptos::ev::pagehide, move |_| {
        if line.with_untracked(|l| l.as_ref().is_some_and(|(l, _)| l.can_cancel)) {
            let url = format!("/api/rooms/{}/cancel", live.code.get_value());
            api::post_on_leaving(&url, &me.get_value().token);
        }
    });
    on_cleanup(move || leave.remove());
    let text = move || {
        line.with(|l| {
            l.as_ref()
                .map(|(l, _)| l.text.clone())
                .unwrap_or_else(|| "connecting to the room…".into())
        })
    };
    let tone = move || line.with(|l| l.as_ref().map_or("tone-wait", |(l, _)| l.tone.class()));
    let can = move |f: fn(&shared::view::room::Line) -> bool| {
        line.with(|l| l.as_ref().is_some_and(|(l, _)| f(l)))
    };
    view! {
        <p class="room-you">"You are " <strong>{who.name.clone()}</strong></p>
        <p class=move || format!("phone-line {}", tone()) data-testid="phone-line" role="status" aria-live="polite">{text}</p>
        {move || notice.get().map(|n| view! { <p class="room-notice" role="alert" data-testid="notice">{n}</p> })}
        <div class="phone-actions">
            <Show when=move || can(|l| l.can_pay)>
                <button class="primary" data-testid="pay" disabled=move || busy.get()
                    on:click=move |_| ask(Asked::Pay, "pay", json!({}))>"Pay"</button>
            </Show>
            <Show when=move || can(|l| l.can_cancel)>
                <button data-testid="cancel" disabled=move || busy.get()
                    on:click=move |_| ask(Asked::Cancel, "cancel", json!({}))>"Cancel and let the seat go"</button>
            </Show>
        </div>
        <RoomMap live me=who.actor.clone() tap can_tap=racing />
    }
}
