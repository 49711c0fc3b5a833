//! The projector (`/room/{code}/projector`), legible from the back of a room: the join code,
//! the 3-2-1, the big seat map (or a general-admission round's section: tickets left, sold of how
//! many, oversold), the scoreboard (seats sold, double bookings, tickets the unique key refused,
//! refunds owed, holds never released; in a general-admission round tickets sold and oversold
//! only) and the live feed of every request: who, the SQL it ran, what PostgreSQL answered and
//! how long it took.

use leptos::prelude::*;
use shared::protocol::room::{FeedRow, Scoreboard};

use crate::app::title;
use crate::live::{phase_words, settings_words, Countdown, Live, Lobby, Reconnecting};
use crate::seats::RoomMap;

/// A row of the scoreboard: its test id's key, what it counts, and its count.
type Score = (&'static str, &'static str, fn(&Scoreboard) -> u64);

/// The scoreboard's rows, the first good news, the rest bad.
const SCORES: [Score; 5] = [
    ("sold", "tickets sold", |s| s.sold),
    (
        "double_bookings",
        "double bookings: told yes to a seat or ticket already sold",
        |s| s.double_bookings,
    ),
    (
        "unique_refusals",
        "tickets refused by the unique key",
        |s| s.unique_refusals,
    ),
    ("refunds_owed", "refunds owed", |s| s.refunds_owed),
    (
        "holds_never_released",
        "holds that ran out, never released",
        |s| s.holds_never_released,
    ),
];

/// A general-admission round's rows: a counter has no unique key, no hold and no payment, so
/// only what was sold and how far past the last ticket.
const GA_SCORES: [Score; 2] = [
    ("sold", "tickets sold", |s| s.sold),
    (
        "double_bookings",
        "oversold: told yes after the last ticket was gone",
        |s| s.double_bookings,
    ),
];

#[component]
pub fn ProjectorPage(code: String) -> impl IntoView {
    title(&format!("Projector of room {code}"));
    let live = Live::connect(&code);
    let origin = window().location().origin().unwrap_or_default();
    let join = format!("{origin}/room/{code}");
    let score =
        move |count: fn(&Scoreboard) -> u64| live.read(|s| count(&s.scoreboard)).unwrap_or(0);
    let general_admission = Memo::new(move |_| live.read(|s| s.counter.is_some()).unwrap_or(false));
    let settings = move || {
        live.read(|s| settings_words(&s.settings))
            .unwrap_or_default()
    };
    view! {
        <main class="projector">
            <header class="projector-head">
                <div>
                    <h1>"Room " <span class="join-code">{code.clone()}</span></h1>
                    <p class="projector-join">"Join at " <strong>{join.clone()}</strong></p>
                </div>
                <img class="qr" src=format!("/api/rooms/{code}/qr.svg") width="160" height="160"
                    alt=format!("QR code of the join link {join}") />
            </header>
            <Reconnecting live />
            {move || live.error.get().map(|e| view! { <p class="room-error" role="alert">{e}</p> })}
            <p class="projector-phase" data-testid="phase">{move || phase_words(live)} " · " {settings}</p>
            <Countdown live />
            <div class="projector-grid">
                <RoomMap live big=true />
                <section class="scoreboard" aria-labelledby="score-h" data-testid="scoreboard">
                    <h2 id="score-h">"Scoreboard"</h2>
                    {move || {
                        let scores: &[Score] = if general_admission.get() { &GA_SCORES } else { &SCORES };
                        view! {
                            <dl>
                                {scores.iter().enumerate().map(|(i, &(key, words, count))| {
                                    let bad = i > 0;
                                    view! {
                                        <div class=move || { if bad && score(count) > 0 { "score score-bad" } else { "score" } }>
                                            <dt>{words}</dt>
                                            <dd data-testid=format!("score-{key}")>{move || score(count)}</dd>
                                        </div>
                                    }
                                }).collect_view()}
                            </dl>
                        }
                    }}
                </section>
            </div>
            <Lobby live />
            <Feed live />
        </main>
    }
}

/// How many of the latest requests the projector shows: few enough to read from the back.
const FEED_ROWS: usize = 12;

/// What PostgreSQL answered, from the feed's short form (`ok:1`, `error:55P03`, `held`, …).
fn answer_words(short: &str) -> String {
    match short.split_once(':') {
        Some(("ok", "1")) => "1 row".to_string(),
        Some(("ok", n)) => format!("{n} rows"),
        Some(("error", code)) => format!("error {code}"),
        _ => short.to_string(),
    }
}

/// A time in milliseconds to a tenth, as the server rounded it (`12.3 ms`), written without the
/// float formatting code that `{}` of an `f64` would bring into the bundle.
fn ms_words(ms: f64) -> String {
    let tenths = (ms * 10.0).round() as i64;
    format!("{}.{} ms", tenths / 10, (tenths % 10).abs())
}

/// The latest requests, newest first.
#[component]
fn Feed(live: Live) -> impl IntoView {
    let rows = move || {
        live.read(|s| s.feed.iter().take(FEED_ROWS).cloned().collect::<Vec<_>>())
            .unwrap_or_default()
    };
    view! {
        <section class="feed" aria-labelledby="feed-h">
            <h2 id="feed-h">"The latest requests, newest first"</h2>
            <Show when=move || !rows().is_empty() fallback=|| view! { <p class="muted">"No request yet this round."</p> }>
                <div class="feed-scroll"><table data-testid="feed">
                    <thead><tr><th scope="col">"who"</th><th scope="col">"the SQL it ran"</th><th scope="col">"PostgreSQL answered"</th><th scope="col">"took"</th></tr></thead>
                    <tbody>
                        {move || rows().into_iter().map(|r: FeedRow| view! {
                            <tr>
                                <td>{r.who}</td>
                                <td><code>{r.sql.unwrap_or_else(|| format!("({}: no statement)", r.op))}</code></td>
                                <td>{answer_words(&r.answer)}</td>
                                <td>{ms_words(r.waited_ms)}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table></div>
            </Show>
        </section>
    }
}
