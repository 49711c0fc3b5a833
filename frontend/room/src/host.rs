//! The facilitator's page (`/room/{code}/host#SECRET`): the secret link (the only way to run the
//! room, kept out of the join link), the join code big with its QR code and address, who has
//! joined, the round's controls (start with a 3-2-1 countdown, finish, reset), the next round's
//! settings, bots, and each finished round's way into the simulator.

use leptos::prelude::*;
use shared::protocol::room::{Start, Started};

use crate::api;
use crate::app::title;
use crate::live::{phase_words, Countdown, Live, Lobby, Reconnecting};
use crate::seats::RoomMap;

mod rounds;
mod settings;

fn secret(code: &str) -> Option<String> {
    let key = format!("lastseat-host-{code}");
    let hash = window().location().hash().unwrap_or_default();
    match hash.strip_prefix('#').filter(|s| !s.is_empty()) {
        Some(s) => {
            api::store(&key, s);
            Some(s.to_string())
        }
        None => api::stored(&key),
    }
}

/// What the facilitator's requests need: the room, its secret, and where to say what happened.
#[derive(Clone, Copy)]
pub struct Host {
    pub live: Live,
    pub secret: StoredValue<String>,
    pub notice: RwSignal<Option<(bool, String)>>,
}

impl Host {
    /// POSTs the JSON text `body` to the room's `path` with the secret; `done` words a success
    /// from the answer's text (`api::read`).
    pub fn post(self, path: &'static str, body: String, done: fn(&str) -> Result<String, String>) {
        let code = self.live.code.get_value();
        let secret = self.secret.get_value();
        leptos::task::spawn_local(async move {
            let url = format!("/api/rooms/{code}/{path}");
            let answer = api::post(&url, body, Some(&secret)).await;
            let said = match answer.and_then(|text| done(&text)) {
                Ok(words) => (true, words),
                Err(e) => (false, e),
            };
            self.notice.set(Some(said));
            self.live.resync();
        });
    }
}

#[component]
pub fn HostPage(code: String) -> impl IntoView {
    title(&format!("Facilitator of room {code}"));
    let Some(secret) = secret(&code) else {
        return view! {
            <main class="page">
                <h1>"This page needs the facilitator's link"</h1>
                <p>"Open the link you were given when the room was made: its secret comes after the " <code>"#"</code>
                   ". Without it, nobody can start, change or reset the room. " <a href="/room/new">"Open a new room"</a></p>
            </main>
        }.into_any();
    };
    let live = Live::connect(&code);
    let host = Host {
        live,
        secret: StoredValue::new(secret.clone()),
        notice: RwSignal::new(None),
    };
    let origin = window().location().origin().unwrap_or_default();
    let own = format!("{origin}/room/{code}/host#{secret}");
    let projector = format!("/room/{code}/projector");
    view! {
        <main class="page page-wide room-host">
            <header class="room-head">
                <a class="brand" href="/">"Last Seat"</a>
                <a href=projector data-testid="projector-link">"Open the projector view"</a>
            </header>
            <h1>"Facilitator of room " <span data-testid="code">{code.clone()}</span></h1>
            <Reconnecting live />
            {move || live.error.get().map(|e| view! { <p class="room-error" role="alert">{e}</p> })}
            <JoinCard join=format!("{origin}/room/{code}") code />
            <section class="secret-card" aria-labelledby="secret-h">
                <h2 id="secret-h">"Your facilitator link"</h2>
                <p>"Keep it to yourself: whoever has it can start, change and reset this room. It is not in the join link or the code."</p>
                <p><code class="secret" data-testid="facilitator-link">{own}</code></p>
            </section>
            <RoundCard host />
            <settings::Settings host />
            <Lobby live />
            <RoomMap live />
            <rounds::Rounds live />
        </main>
    }.into_any()
}

/// How phones join: the code big, its QR code and the join link.
#[component]
fn JoinCard(code: String, join: String) -> impl IntoView {
    let spelled = code.chars().map(String::from).collect::<Vec<_>>().join(" ");
    view! {
        <section class="join-card" aria-labelledby="join-h">
            <h2 id="join-h">"Join with your phone"</h2>
            <div class="join-grid">
                <img class="qr" src=format!("/api/rooms/{code}/qr.svg") width="200" height="200"
                    alt=format!("QR code of the join link {join}") />
                <div>
                    <p class="join-code" data-testid="join-code" aria-label=format!("join code {spelled}")>{code}</p>
                    <p><a href=join.clone() data-testid="join-url">{join.clone()}</a></p>
                </div>
            </div>
        </section>
    }
}

/// The round's phase, its countdown, and its controls: start, finish, reset.
#[component]
fn RoundCard(host: Host) -> impl IntoView {
    let live = host.live;
    let start = move |_| {
        host.post("rounds", api::json(&Start::default()), |text| {
            let v: Started = api::read(text)?;
            Ok(format!("round {} starts after the countdown", v.round))
        })
    };
    // The answer (the phase now) says nothing the words do not.
    let finish = move |_| {
        host.post("finish", "{}".into(), |_| {
            Ok("the round is over: results".into())
        })
    };
    let reset = move |_| {
        host.post("reset", "{}".into(), |_| {
            Ok("back to the lobby: every seat is free".into())
        })
    };
    view! {
        <section class="round-card" aria-labelledby="round-h">
            <h2 id="round-h">"The round"</h2>
            <p data-testid="phase">{move || phase_words(live)}</p>
            <Countdown live />
            <div class="controls">
                <button class="primary" data-testid="start" on:click=start>"Start a round (3-2-1)"</button>
                <button data-testid="finish" on:click=finish>"Finish the round"</button>
                <button data-testid="reset" on:click=reset>"Reset: every seat free"</button>
            </div>
            {move || host.notice.get().map(|(ok, text)| view! {
                <p class=if ok { "room-ok" } else { "room-error" } role="status" data-testid="host-notice">{text}</p>
            })}
        </section>
    }
}
