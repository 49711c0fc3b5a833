//! A participant's phone (`/room/{code}`), 375 px first: pick a name, then the seat map (or, in a
//! general-admission round, the section and "Buy a ticket"), one line of their own state in words (`shared::view::room`, from the server's state and its
//! answer to their last request, ticking down from the deadline the server set), Pay and
//! Cancel. Every way of leaving lets go of a live hold: Cancel; Back, closing the tab or any
//! other navigation away (a request that outlives the page); and timing out, which the
//! server's clock decides. Their token stays in the tab's storage and goes out as
//! `Authorization: Bearer`, never in an address.

use leptos::prelude::*;
use serde::de::IgnoredAny;
use shared::protocol::room::{Join, Joined, Phase, Reply, Tap};
use shared::view::room::{Answer, Asked, Line, Phone};

use crate::api;
use crate::app::title;
use crate::live::{Live, Reconnecting};
use crate::seats::RoomMap;

fn key(code: &str) -> String {
    format!("lastseat-room-{code}")
}

/// Who this phone is in room `code`, as the join answered it (kept in the tab's storage).
fn restore(code: &str) -> Option<Joined> {
    api::read(&api::stored(&key(code))?).ok()
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
                None => view! { <JoinForm code=code.get_value() me /> }.into_any(),
                Some(who) => view! { <Racing live who /> }.into_any(),
            }}
        </main>
    }
}

#[component]
fn JoinForm(code: String, me: RwSignal<Option<Joined>>) -> impl IntoView {
    let name = RwSignal::new(String::new());
    let problem = RwSignal::new(None::<String>);
    let code = StoredValue::new(code);
    let join = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let code = code.get_value();
        let wanted = name.get_untracked();
        leptos::task::spawn_local(async move {
            let url = format!("/api/rooms/{code}/participants");
            let joined = api::post(&url, api::json(&Join { name: wanted }), None).await;
            match joined.and_then(|text| api::read::<Joined>(&text).map(|who| (who, text))) {
                Ok((who, text)) => {
                    api::store(&key(&code), &text);
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

/// A phone in the race: its room, who it is, the answer to its last request, what went wrong
/// with it, and whether one is on its way.
#[derive(Clone, Copy)]
struct Phoned {
    live: Live,
    me: StoredValue<Joined>,
    last: RwSignal<Option<Answer>>,
    notice: RwSignal<Option<String>>,
    busy: RwSignal<bool>,
}

impl Phoned {
    /// Sends a tap on `seats`, a payment or a cancel, and keeps the answer as the last one.
    fn ask(self, asked: Asked, seats: Vec<String>) {
        let code = self.live.code.get_value();
        let token = self.me.get_value().token;
        let round = (self.live.state).with_untracked(|s| s.as_ref().map_or(0, |s| s.round));
        self.busy.set(true);
        self.notice.set(None);
        leptos::task::spawn_local(async move {
            // A tap sends its seats; a payment and a cancel an empty object.
            let (path, body) = match asked {
                Asked::Tap => ("taps", api::json(&Tap { seats })),
                Asked::Pay => ("pay", "{}".to_string()),
                Asked::Cancel => ("cancel", "{}".to_string()),
            };
            let url = format!("/api/rooms/{code}/{path}");
            let sent = api::post(&url, body, Some(&token)).await;
            // The phone shows the words: the steps are read past, not kept.
            match sent.and_then(|text| api::read::<Reply<IgnoredAny>>(&text)) {
                Ok(reply) => self.last.set(Some(Answer {
                    asked,
                    round,
                    holding: reply.holding,
                    message: reply.message,
                })),
                Err(e) => self.notice.set(Some(e)),
            }
            self.busy.set(false);
            self.live.resync();
        });
    }
}

#[component]
fn Racing(live: Live, who: Joined) -> impl IntoView {
    let phoned = Phoned {
        live,
        me: StoredValue::new(who.clone()),
        last: RwSignal::new(None),
        notice: RwSignal::new(None),
        busy: RwSignal::new(false),
    };
    let Phoned { me, last, busy, .. } = phoned;
    let line = Memo::new(move |_| {
        let now = live.now.get();
        let (me, answer) = (me.get_value(), last.get());
        live.read(|state| {
            let phone = Phone::of(state, &me.actor, now, answer.as_ref());
            (phone.line(), phone.phase_now())
        })
    });
    let racing = Signal::derive(move || {
        line.with(|l| l.as_ref().is_some_and(|(_, p)| *p == Phase::Race)) && !busy.get()
    });
    let tap = Callback::new(move |seat: String| phoned.ask(Asked::Tap, vec![seat]));
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
    let can = move |f: fn(&Line) -> bool| line.with(|l| l.as_ref().is_some_and(|(l, _)| f(l)));
    view! {
        <p class="room-you">"You are " <strong>{who.name.clone()}</strong></p>
        <p class=move || format!("phone-line {}", tone()) data-testid="phone-line" role="status" aria-live="polite">{text}</p>
        {move || phoned.notice.get().map(|n| view! { <p class="room-notice" role="alert" data-testid="notice">{n}</p> })}
        <div class="phone-actions">
            <Show when=move || can(|l| l.can_pay)>
                <button class="primary" data-testid="pay" disabled=move || busy.get()
                    on:click=move |_| phoned.ask(Asked::Pay, vec![])>"Pay"</button>
            </Show>
            <Show when=move || can(|l| l.can_cancel)>
                <button data-testid="cancel" disabled=move || busy.get()
                    on:click=move |_| phoned.ask(Asked::Cancel, vec![])>"Cancel and let the seat go"</button>
            </Show>
        </div>
        <RoomMap live me=who.actor.clone() tap can_tap=racing />
    }
}
