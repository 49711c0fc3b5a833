//! What the run looks like at the playhead: the seat map (SVG, seats coloured by status and
//! holder, a hold's countdown on the virtual clock, a live Redis key), each buyer's phone, and
//! the stored rows beside the simulated Redis's keys.

use leptos::prelude::*;
use shared::schedule::{SeatStatus, CLOCK};

use crate::model::{self, MapSeat};
use crate::state::use_lab;

/// The buyer's lane index, for their colour; `None` for someone not in the schedule.
fn buyer_index(lab: &crate::state::Lab, name: &str) -> Option<usize> {
    lab.schedule.with(|s| {
        model::lanes(s)
            .iter()
            .position(|&a| s.actors()[a].name == name)
    })
}

#[component]
pub fn SeatMap() -> impl IntoView {
    let lab = use_lab();
    let seats = Memo::new(move |_| {
        let step = lab.step.get();
        lab.outcome
            .get()
            .map(|o| lab.schedule.with(|s| model::map_at(s, &o, step)))
            .unwrap_or_default()
    });
    let uses_redis = move || seats.with(|s| s.iter().any(|seat| seat.redis.is_some()));
    let clock = move || {
        let step = lab.step.get();
        lab.outcome
            .get()
            .map(|o| model::tables_at(&o, step).clock)
            .unwrap_or_default()
    };
    let per_row = 8usize;
    let view_box = move || {
        let n = seats.with(Vec::len).max(1);
        let cols = n.min(per_row);
        let rows = n.div_ceil(per_row);
        format!("0 0 {} {}", cols * 64 + 16, rows * 78 + 44)
    };
    view! {
        <figure class="seat-map" data-testid="seat-map">
            <svg viewBox=view_box role="img" aria-labelledby="seat-map-caption">
                <rect class="stage" x="8" y="6" width="calc(100% - 16px)" height="16" rx="8"></rect>
                <text class="stage-label" x="50%" y="18" text-anchor="middle">"STAGE"</text>
                {move || {
                    seats
                        .get()
                        .into_iter()
                        .enumerate()
                        .map(|(i, seat)| {
                            let x = (i % per_row) * 64 + 12;
                            let y = (i / per_row) * 78 + 34;
                            let colour = seat.holder.as_deref().and_then(|h| buyer_index(&lab, h));
                            let redis_colour = seat
                                .redis
                                .as_ref()
                                .and_then(|(h, _)| buyer_index(&lab, h));
                            view! { <Seat seat x y colour redis_colour /> }
                        })
                        .collect_view()
                }}
            </svg>
            <figcaption id="seat-map-caption">
                <span class="clock" data-testid="clock">"Clock: minute " {clock}</span>
                <span class="legend">
                    <span class="key key-free">"free"</span>
                    <span class="key key-held">"held"</span>
                    <span class="key key-booked">"booked"</span>
                    <span class="key key-double">"sold twice"</span>
                    {move || uses_redis().then(|| view! { <span class="key key-redis">"R: a live Redis key"</span> })}
                </span>
            </figcaption>
        </figure>
    }
}

#[component]
fn Seat(
    seat: MapSeat,
    x: usize,
    y: usize,
    colour: Option<usize>,
    redis_colour: Option<usize>,
) -> impl IntoView {
    let status = match seat.status {
        SeatStatus::Available => "free",
        SeatStatus::Held => "held",
        SeatStatus::Booked => "booked",
    };
    let double = seat.double();
    let buyer = colour.map(|c| format!(" buyer-{c}")).unwrap_or_default();
    let class = format!(
        "seat seat-{status}{buyer}{}",
        if double { " seat-double" } else { "" }
    );
    let who = seat.holder.as_deref().map(model::display_name);
    let redis = seat
        .redis
        .as_ref()
        .map(|(h, left)| (model::display_name(h), *left));
    let detail = match (seat.status, &who, seat.minutes_left, &redis) {
        (SeatStatus::Held, Some(w), Some(0), _) => format!("{w}, expired"),
        (SeatStatus::Held, Some(w), Some(m), _) => format!("{w} · {m} min"),
        (_, Some(w), _, _) => w.clone(),
        (_, None, _, Some((r, left))) => format!("R: {r} · {left} min"),
        _ => String::new(),
    };
    let tickets = if seat.tickets.is_empty() {
        String::new()
    } else {
        format!(
            ", tickets for {}",
            seat.tickets
                .iter()
                .map(|t| model::display_name(t))
                .collect::<Vec<_>>()
                .join(" and ")
        )
    };
    let label = format!(
        "Seat {} {status}{}{tickets}{}",
        seat.id,
        who.map(|w| format!(" by {w}")).unwrap_or_default(),
        redis
            .as_ref()
            .map(|(r, left)| format!("; Redis key held by {r}, {left} min left"))
            .unwrap_or_default()
    );
    let redis_class = format!(
        "redis-key{}",
        redis_colour
            .map(|c| format!(" buyer-{c}"))
            .unwrap_or_default()
    );
    view! {
        <g class=class data-testid=format!("seat-{}", seat.id) data-status=status>
            <title>{label}</title>
            <rect x=x y=y width="52" height="40" rx="9"></rect>
            <text class="seat-id" x=x + 26 y=y + 25 text-anchor="middle">{seat.id.clone()}</text>
            <text class="seat-detail" x=x + 26 y=y + 56 text-anchor="middle">{detail}</text>
            {redis.is_some().then(|| view! {
                <g class=redis_class data-testid=format!("redis-{}", seat.id)>
                    <rect x=x + 1 y=y + 1 width="14" height="14" rx="3"></rect>
                    <text x=x + 8 y=y + 12 text-anchor="middle">"R"</text>
                </g>
            })}
            {double.then(|| view! {
                <text class="seat-badge" x=x + 50 y=y + 4 text-anchor="end">
                    {format!("×{}", seat.tickets.len().max(seat.told.len()))}
                </text>
            })}
        </g>
    }
}

/// Each buyer's phone: what the application is showing them right now, what it remembers of
/// the seats it looked at, and the seats it has been told are its own.
#[component]
pub fn Phones() -> impl IntoView {
    let lab = use_lab();
    let phones = Memo::new(move |_| {
        let step = lab.step.get();
        let outcome = lab.outcome.get();
        lab.schedule.with(|s| {
            let mut memories = outcome
                .as_ref()
                .ok()
                .map(|o| model::memories(s, o, step))
                .unwrap_or_default();
            model::lanes(s)
                .into_iter()
                .map(|a| s.actors()[a].name.clone())
                .filter(|name| name != CLOCK)
                .enumerate()
                .map(|(lane, name)| {
                    let phone = outcome.as_ref().ok().map(|o| model::phone(o, &name, step));
                    let memory = memories.remove(&name).unwrap_or_default();
                    (lane, name, phone, memory)
                })
                .collect::<Vec<_>>()
        })
    });
    view! {
        <ul class="phones" aria-label="What each buyer's phone shows">
            {move || {
                phones
                    .get()
                    .into_iter()
                    .map(|(lane, name, phone, memory)| {
                        let (text, tone) = phone
                            .map(|p| (p.text, p.tone.class()))
                            .unwrap_or_default();
                        let remembers = match (memory.free.is_empty(), memory.taken.is_empty()) {
                            (true, true) => "nothing yet".to_string(),
                            (false, true) => format!("{} free", memory.free.join(", ")),
                            (true, false) => format!("{} taken", memory.taken.join(", ")),
                            (false, false) => format!(
                                "{} free, {} taken",
                                memory.free.join(", "),
                                memory.taken.join(", ")
                            ),
                        };
                        let told = if memory.told.is_empty() {
                            "no seat".to_string()
                        } else {
                            format!("{} is theirs", memory.told.join(", "))
                        };
                        view! {
                            <li class=format!("phone buyer-{lane} {tone}") data-testid=format!("phone-{name}")>
                                <span class="phone-name">{model::display_name(&name)}</span>
                                <span class="phone-screen">{text}</span>
                                <dl class="phone-memory">
                                    <dt>"remembers"</dt><dd data-testid=format!("remembers-{name}")>{remembers}</dd>
                                    <dt>"told"</dt><dd data-testid=format!("told-{name}")>{told}</dd>
                                </dl>
                            </li>
                        }
                    })
                    .collect_view()
            }}
        </ul>
    }
}

/// The stored rows at the playhead: seats, tickets, refunds owed; and, when the schedule uses
/// Redis, the keys it has.
#[component]
pub fn StoredRows() -> impl IntoView {
    let lab = use_lab();
    let tables = Memo::new(move |_| {
        let step = lab.step.get();
        lab.outcome
            .get()
            .ok()
            .map(|o| model::tables_at(&o, step).clone())
    });
    let redis = Memo::new(move |_| {
        let step = lab.step.get();
        let uses = lab
            .schedule
            .with(|s| s.any_op(shared::schedule::Op::is_redis));
        let keys = lab
            .outcome
            .get()
            .ok()
            .map(|o| lab.schedule.with(|s| model::redis_at(s, &o, step)))
            .unwrap_or_default();
        uses.then_some(keys)
    });
    view! {
        <details class="rows" open>
            <summary>"Stored rows"</summary>
            {move || tables.get().map(|t| view! {
                <table class="data" data-testid="rows">
                    <thead><tr><th>"seat"</th><th>"status"</th><th>"holder"</th><th>"hold id"</th><th>"until"</th></tr></thead>
                    <tbody>
                        {t.seats.iter().map(|s| view! {
                            <tr>
                                <td>{s.id.clone()}</td>
                                <td>{s.status.as_sql()}</td>
                                <td>{s.holder.clone().unwrap_or_default()}</td>
                                <td><code>{s.hold_id.clone().unwrap_or_default()}</code></td>
                                <td>{s.until.map(|u| format!("minute {u}")).unwrap_or_default()}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
                <p class="rows-extra">
                    {if t.bookings.is_empty() {
                        "No tickets.".to_string()
                    } else {
                        format!(
                            "Tickets: {}.",
                            t.bookings
                                .iter()
                                .map(|b| format!("{} for {}", b.seat, model::display_name(&b.holder)))
                                .collect::<Vec<_>>()
                                .join("; ")
                        )
                    }}
                    " "
                    {if t.refunds.is_empty() {
                        String::new()
                    } else {
                        format!(
                            "Refunds owed: {}.",
                            t.refunds.iter().map(|r| model::display_name(r)).collect::<Vec<_>>().join(", ")
                        )
                    }}
                </p>
            })}
            {move || redis.get().map(|keys| view! {
                <h4 class="redis-title">"Redis keys " <small>"(simulated, like the payment provider)"</small></h4>
                {if keys.is_empty() {
                    view! { <p class="rows-extra" data-testid="redis-keys">"No keys."</p> }.into_any()
                } else {
                    view! {
                        <table class="data" data-testid="redis-keys">
                            <thead><tr><th>"key"</th><th>"value"</th><th>"lives to"</th></tr></thead>
                            <tbody>
                                {keys.into_iter().map(|k| view! {
                                    <tr class:gone=k.gone>
                                        <td><code>{k.key}</code></td>
                                        <td><code>{k.hold_id}</code></td>
                                        <td>{if k.gone { format!("minute {} (gone)", k.until) } else { format!("minute {}", k.until) }}</td>
                                    </tr>
                                }).collect_view()}
                            </tbody>
                        </table>
                    }.into_any()
                }}
            })}
        </details>
    }
}
