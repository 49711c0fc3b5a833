//! The projector (`/room/{code}/projector`), legible from the back of a room: the join code,
//! the 3-2-1, the big seat map, the scoreboard (seats sold, double bookings, tickets the unique
//! key refused, refunds owed, holds never released) and the live feed of every request: who,
//! the SQL it ran, what PostgreSQL answered and how long it took.

use leptos::prelude::*;
use serde_json::Value;

use crate::app::title;
use crate::live::{phase_words, Countdown, Live, Lobby, Reconnecting};
use crate::seats::RoomMap;

/// The scoreboard's rows: the state's key, and what it counts.
const SCORES: &[(&str, &str)] = &[
    ("sold", "seats sold"),
    (
        "double_bookings",
        "double bookings: two people told they got one seat",
    ),
    ("unique_refusals", "tickets refused by the unique key"),
    ("refunds_owed", "refunds owed"),
    ("holds_never_released", "holds that ran out, never released"),
];

#[component]
pub fn ProjectorPage(code: String) -> impl IntoView {
    title(&format!("Projector of room {code}"));
    let live = Live::connect(&code);
    let origin = window().location().origin().unwrap_or_default();
    let join = format!("{origin}/room/{code}");
    let score = move |key: &str| {
        live.state.with(|s| {
            s.as_ref()
                .and_then(|s| s["scoreboard"][key].as_i64())
                .unwrap_or(0)
        })
    };
    let settings = move || {
        live.state.with(|s| {
            s.as_ref()
                .map(|s| {
                    let s = &s["settings"];
                    format!(
                        "defence {} · gap {} ms · holds of {} s",
                        s["defence"].as_str().unwrap_or_default(),
                        s["gap_ms"],
                        s["hold_seconds"]
                    )
                })
                .unwrap_or_default()
        })
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
                    <dl>
                        {SCORES.iter().map(|&(key, words)| {
                            let bad = key != "sold";
                            view! {
                                <div class=move || { if bad && score(key) > 0 { "score score-bad" } else { "score" } }>
                                    <dt>{words}</dt>
                                    <dd data-testid=format!("score-{key}")>{move || score(key)}</dd>
                                </div>
                            }
                        }).collect_view()}
                    </dl>
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

/// The latest requests, newest first.
#[component]
fn Feed(live: Live) -> impl IntoView {
    let rows = move || {
        live.state.with(|s| {
            let mut rows = s
                .as_ref()
                .and_then(|s| s["feed"].as_array().cloned())
                .unwrap_or_default();
            rows.truncate(FEED_ROWS);
            rows
        })
    };
    view! {
        <section class="feed" aria-labelledby="feed-h">
            <h2 id="feed-h">"The latest requests, newest first"</h2>
            <Show when=move || !rows().is_empty() fallback=|| view! { <p class="muted">"No request yet this round."</p> }>
                <div class="feed-scroll"><table data-testid="feed">
                    <thead><tr><th scope="col">"who"</th><th scope="col">"the SQL it ran"</th><th scope="col">"PostgreSQL answered"</th><th scope="col">"took"</th></tr></thead>
                    <tbody>
                        {move || rows().into_iter().map(|r: Value| view! {
                            <tr>
                                <td>{r["who"].as_str().unwrap_or_default().to_string()}</td>
                                <td><code>{r["sql"].as_str().map(str::to_string).unwrap_or_else(|| format!("({}: no statement)", r["op"].as_str().unwrap_or_default()))}</code></td>
                                <td>{answer_words(r["answer"].as_str().unwrap_or_default())}</td>
                                <td>{format!("{} ms", r["waited_ms"])}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table></div>
            </Show>
        </section>
    }
}
