//! A room's state as every page sees it: pushed by the server's event stream (each event the
//! whole state), read again with a GET whenever the stream comes back after a drop and whenever
//! a deadline the server set passes (the countdown's end, a hold's), since only the server's
//! clock decides what happened then. The server's clock is estimated from each state's
//! `now_ms`, and ticks on the page every quarter second (gloo-timers) for the countdowns.

use gloo_timers::callback::{Interval, Timeout};
use leptos::prelude::*;
use shared::protocol::room::{Phase, RoomState, SeatStatus};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::api;

/// The room's live state; `Copy`, for every component to hold.
#[derive(Clone, Copy)]
pub struct Live {
    pub code: StoredValue<String>,
    /// The last state the server sent, if any yet.
    pub state: RwSignal<Option<RoomState>>,
    /// Whether the event stream is up; false while it reconnects.
    pub connected: RwSignal<bool>,
    /// Why the room cannot be shown (it does not exist, say), in the server's words.
    pub error: RwSignal<Option<String>>,
    /// The server's clock now, as estimated: ms since the epoch.
    pub now: RwSignal<i64>,
    /// The server's clock minus this machine's, from the last state.
    offset: StoredValue<i64>,
    /// When to read the state again because a deadline passed.
    next_read: StoredValue<Option<i64>>,
}

fn local_ms() -> i64 {
    js_sys::Date::now() as i64
}

impl Live {
    /// Connects to room `code`'s events, and keeps the clock ticking.
    pub fn connect(code: &str) -> Live {
        let live = Live {
            code: StoredValue::new(code.to_string()),
            state: RwSignal::new(None),
            connected: RwSignal::new(true),
            error: RwSignal::new(None),
            now: RwSignal::new(local_ms()),
            offset: StoredValue::new(0),
            next_read: StoredValue::new(None),
        };
        live.resync();
        live.listen();
        Interval::new(250, move || live.tick()).forget();
        live
    }

    fn tick(self) {
        let now = local_ms() + self.offset.get_value();
        self.now.set(now);
        if self.next_read.get_value().is_some_and(|at| now >= at) {
            self.next_read.set_value(None);
            self.resync();
        }
    }

    /// Reads the whole state again.
    pub fn resync(self) {
        let code = self.code.get_value();
        leptos::task::spawn_local(async move {
            let url = format!("/api/rooms/{code}");
            match api::get(&url)
                .await
                .and_then(|text| api::read::<RoomState>(&text))
            {
                Ok(state) => self.accept(state),
                Err(e) => self.error.set(Some(e)),
            }
        });
    }

    /// Takes `state` as the truth: the clock's offset, the next deadline to read again at.
    pub fn accept(self, state: RoomState) {
        self.offset.set_value(state.now_ms - local_ms());
        self.now.set(state.now_ms);
        self.error.set(None);
        self.next_read.set_value(next_deadline(&state));
        self.state.set(Some(state));
    }

    fn listen(self) {
        let url = format!("/api/rooms/{}/events", self.code.get_value());
        let Ok(source) = web_sys::EventSource::new(&url) else {
            return;
        };
        let on_state =
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                let data = e.data().as_string();
                if let Some(Ok(state)) = data.map(|d| api::read::<RoomState>(&d)) {
                    self.connected.set(true);
                    self.accept(state);
                }
            });
        let _ = source.add_event_listener_with_callback("state", on_state.as_ref().unchecked_ref());
        on_state.forget();
        let on_open = Closure::<dyn FnMut()>::new(move || {
            // Back after a drop: read the true state now, not only what the stream sends next.
            if !self.connected.get_untracked() {
                self.connected.set(true);
                self.resync();
            }
        });
        source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        on_open.forget();
        let watched = source.clone();
        let on_error = Closure::<dyn FnMut()>::new(move || {
            self.connected.set(false);
            // The browser retries by itself unless the answer was not a stream (a 503, say):
            // then start again in a moment.
            if watched.ready_state() == web_sys::EventSource::CLOSED {
                Timeout::new(2000, move || self.listen()).forget();
            }
        });
        source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        on_error.forget();
    }

    /// `read` of the last state, if there is one yet (tracked).
    pub fn read<T>(self, read: impl FnOnce(&RoomState) -> T) -> Option<T> {
        self.state.with(|s| s.as_ref().map(read))
    }
}

/// When a deadline that the state shows as still ahead falls (the race's opening, a hold's
/// end): one second past it, since the server counts whole seconds of the round's clock.
fn next_deadline(state: &RoomState) -> Option<i64> {
    let race_at = state.race_at_ms?;
    let holds = state
        .seats
        .iter()
        .filter(|s| s.status == SeatStatus::Held)
        .filter_map(|s| s.until)
        .map(|until| race_at + (until + 1) * 1000 + 50);
    match state.phase {
        Phase::Countdown => Some(race_at + 50),
        Phase::Race => holds.min(),
        Phase::Lobby | Phase::Results => None,
    }
}

/// Shown while the event stream is down.
#[component]
pub fn Reconnecting(live: Live) -> impl IntoView {
    view! {
        <Show when=move || !live.connected.get() && live.state.with(Option::is_some)>
            <p class="reconnecting" role="status" data-testid="reconnecting">
                "reconnecting… the seats below may be out of date until the server answers"
            </p>
        </Show>
    }
}

/// The 3-2-1 before the race, big, from the server's opening time and its clock.
#[component]
pub fn Countdown(live: Live) -> impl IntoView {
    let left = move || {
        let counting = live.read(|s| s.phase == Phase::Countdown) == Some(true);
        let at = live.read(|s| s.race_at_ms).flatten().unwrap_or(0);
        let ms = at - live.now.get();
        (counting && ms > -1000).then(|| {
            if ms > 0 {
                ((ms + 999) / 1000).to_string()
            } else {
                "go!".into()
            }
        })
    };
    view! {
        {move || left().map(|n| view! {
            <p class="countdown-big" data-testid="countdown" role="timer" aria-live="assertive">{n}</p>
        })}
    }
}

/// A round's settings in words, for the facilitator and the projector: the defence, what the
/// round sells, the gap (and the hold, on seats).
pub fn settings_words(s: &shared::protocol::room::Settings) -> String {
    let (defence, gap) = (s.defence.title(), s.gap_ms);
    if s.kind.is_counter() {
        format!(
            "{defence} on general admission of {} tickets, gap {gap} ms",
            s.tickets
        )
    } else {
        format!(
            "{defence} on numbered seats, gap {gap} ms, holds of {} s",
            s.hold_seconds
        )
    }
}

/// The phase in words, for the facilitator and the projector.
pub fn phase_words(live: Live) -> String {
    live.read(|s| {
        let round = s.round;
        match s.phase {
            Phase::Countdown => format!("round {round}: get ready"),
            Phase::Race => format!("round {round}: the race is on"),
            Phase::Results => format!("round {round} is over: results"),
            Phase::Lobby if round == 0 => "lobby: waiting for the first round".to_string(),
            Phase::Lobby => format!("lobby: seats reset after round {round}"),
        }
    })
    .unwrap_or_else(|| "connecting…".to_string())
}

/// Who has joined: every name (up to the server's limit), and how many bots.
#[component]
pub fn Lobby(live: Live) -> impl IntoView {
    let people = move || live.read(|s| s.participants.clone()).unwrap_or_default();
    view! {
        <section class="lobby" aria-labelledby="lobby-h">
            <h2 id="lobby-h">"Who has joined"</h2>
            {move || {
                let p = people();
                let summary = match (p.people, p.bots) {
                    (0, 0) => "nobody yet: open the join link or scan the code".to_string(),
                    (n, 0) => format!("{n} {}", if n == 1 { "person" } else { "people" }),
                    (n, b) => format!("{n} {} and {b} bots", if n == 1 { "person" } else { "people" }),
                };
                view! {
                    <p data-testid="joined">{summary}</p>
                    <ul class="names">{p.names.into_iter().map(|n| view! { <li>{n.name}</li> }).collect_view()}</ul>
                }
            }}
        </section>
    }
}
