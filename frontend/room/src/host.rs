//! The facilitator's page (`/room/{code}/host#SECRET`): the secret link (the only way to run the
//! room, kept out of the join link), the join code big with its QR code and address, who has
//! joined, the round's controls (start with a 3-2-1 countdown, finish, reset), the next round's
//! settings, bots, and each finished round's way into the simulator.

use leptos::prelude::*;
use serde_json::{json, Value};

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
    /// POSTs `body` to the room's `path` with the secret; `done` words a success.
    pub fn post(self, path: &'static str, body: Value, done: fn(&Value) -> String) {
        let code = self.live.code.get_value();
        let secret = self.secret.get_value();
        leptos::task::spawn_local(async move {
            let url = format!("/api/rooms/{code}/{path}");
            let said = match api::call("POST", &url, Some(&body), Some(&secret)).await {
                Ok(v) => (true, done(&v)),
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
    let join = format!("{origin}/room/{code}");
    let own = format!("{origin}/room/{code}/host#{secret}");
    let projector = format!("/room/{code}/projector");
    let start = move |_| {
        host.post("rounds", json!({}), |v| {
            format!("round {} starts after the countdown", v["round"])
        })
    };
    let finish = move |_| host.post("finish", json!({}), |_| "the round is over: results".into());
    let reset = move |_| {
        host.post("reset", json!({}), |_| {
            "back to the lobby: every seat is free".into()
        })
    };
    view! {
        <main class="page page-wide room-host">
            <header class="room-head">
                <a class="brand" href="/">"Last Seat"</a>
                <a href=projector.clone() data-testid="projector-link">"Open the projector view"</a>
            </header>
            <h1>"Facilitator of room " <span data-testid="code">{code.clone()}</span></h1>
            <Reconnecting live />
            {move || live.error.get().map(|e| view! { <p class="room-error" role="alert">{e}</p> })}
            <section class="join-card" aria-labelledby="join-h">
                <h2 id="join-h">"Join with your phone"</h2>
                <div class="join-grid">
                    <img class="qr" src=format!("/api/rooms/{code}/qr.svg") width="200" height="200"
                        alt=format!("QR code of the join link {join}") />
                    <div>
                        <p class="join-code" data-testid="join-code" aria-label=format!("join code {}", code.chars().collect::<Vec<_>>().iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" "))>{code.clone()}</p>
                        <p><a href=join.clone() data-testid="join-url">{join.clone()}</a></p>
                    </div>
                </div>
            </section>
            <section class="secret-card" aria-labelledby="secret-h">
                <h2 id="secret-h">"Your facilitator link"</h2>
                <p>"Keep it to yourself: whoever has it can start, change and reset this room. It is not in the join link or the code."</p>
                <p><code class="secret" data-testid="facilitator-link">{own}</code></p>
            </section>
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
            <settings::Settings host />
            <Lobby live />
            <RoomMap live />
            <rounds::Rounds live />
        </main>
    }.into_any()
}
