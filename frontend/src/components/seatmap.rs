//! The seat map at the playhead: an SVG of the show's seats, coloured by status and holder, a
//! hold's countdown on the virtual clock, and a live Redis key.

use leptos::prelude::*;
use shared::schedule::SeatStatus;

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
