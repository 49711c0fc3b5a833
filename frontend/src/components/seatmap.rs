//! The seat map at the playhead: one labelled element per seat (a screen reader hears its whole
//! sentence), coloured by what it is with the legend's own rule, and showing what the committed
//! rows do not: who holds its row lock, who waits for it in order, an uncommitted write or
//! ticket (dashed), every buyer of a seat sold twice, a hold's countdown and a live Redis key.
//! Data attributes mirror `MapSeat` for the browser tests.

use leptos::prelude::*;
use shared::schedule::SeatStatus;
use shared::view::map::SeatState;

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
    let clock = move || {
        let step = lab.step.get();
        lab.outcome
            .get()
            .map(|o| model::tables_at(&o, step).clock)
            .unwrap_or_default()
    };
    let unit = move || lab.schedule.with(|s| s.scenario().clock_unit);
    let hold_minutes = move || lab.schedule.with(|s| s.scenario().hold_minutes.max(1));
    view! {
        <figure class="seat-map" data-testid="seat-map" aria-labelledby="seat-map-caption">
            <div class="stage-bar" aria-hidden="true">"stage"</div>
            <div class="seats">
                {move || {
                    seats
                        .get()
                        .into_iter()
                        .map(|seat| {
                            let colour = seat.holder.as_deref().and_then(|h| buyer_index(&lab, h));
                            view! { <Seat seat colour hold_minutes=hold_minutes() /> }
                        })
                        .collect_view()
                }}
            </div>
            <figcaption id="seat-map-caption">
                <span class="clock" data-testid="clock">"Seat map · clock: " {move || unit().at(clock())}</span>
                <span class="legend" data-testid="legend">
                    {SeatState::ALL.iter().map(|s| view! {
                        <span class=format!("key {}", s.class())>{s.word()}</span>
                    }).collect_view()}
                    <span class="key-icon"><LockIcon />"row lock"</span>
                    <span class="key-icon key-pending">"not committed"</span>
                </span>
            </figcaption>
        </figure>
    }
}

/// A padlock, beside the name of whoever holds a row lock.
#[component]
pub(super) fn LockIcon() -> impl IntoView {
    view! {
        <svg class="lock-icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
            <path d="M4.5 7V5a3.5 3.5 0 0 1 7 0v2" fill="none" stroke="currentColor" stroke-width="1.8"></path>
            <rect x="2.5" y="7" width="11" height="8" rx="1.5" fill="currentColor"></rect>
        </svg>
    }
}

/// Comma-separated actor names, for a data attribute.
fn csv<'a>(names: impl IntoIterator<Item = &'a String>) -> String {
    names
        .into_iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(",")
}

#[component]
fn Seat(seat: MapSeat, colour: Option<usize>, hold_minutes: i64) -> impl IntoView {
    let state = seat.state();
    let status = match seat.status {
        SeatStatus::Available => "free",
        SeatStatus::Held => "held",
        SeatStatus::Booked => "booked",
    };
    let mut class = format!("seat {}", state.class());
    if seat.pending.is_some() || seat.pending_ticket.is_some() {
        class.push_str(" seat-pending");
    }
    // A buyer's colour beside the one owner's name (a seat sold twice names several).
    let dot = colour
        .filter(|_| !seat.double())
        .map(|c| format!("dot buyer-{c}"));
    let countdown = (seat.status == SeatStatus::Held)
        .then_some(seat.minutes_left)
        .flatten()
        .map(|left| {
            let share = (left.clamp(0, hold_minutes) * 100) / hold_minutes;
            format!("width: {share}%")
        });
    let badge = seat
        .double()
        .then(|| format!("×{}", seat.buyers().len().max(2)));
    let line = |class: &'static str, text: Option<String>| {
        text.map(|t| view! { <span class=class>{t}</span> })
    };
    view! {
        <div
            class=class
            role="img"
            aria-label=seat.sentence()
            data-testid=format!("seat-{}", seat.id)
            data-status=status
            data-stored=seat.stored.as_sql()
            data-holder=seat.holder.clone().unwrap_or_default()
            data-tickets=csv(&seat.tickets)
            data-told=csv(&seat.told)
            data-lock=seat.lock.clone().unwrap_or_default()
            data-queue=csv(&seat.queue)
            data-pending=seat.pending.as_ref().map(|w| w.by.clone()).unwrap_or_default()
            data-pending-status=seat.pending.as_ref().map(|w| w.status.as_sql()).unwrap_or_default()
            data-pending-ticket=seat.pending_ticket.clone().unwrap_or_default()
            data-double=seat.double().to_string()
        >
            <span class="seat-top">
                <span class="seat-id">{seat.id.clone()}</span>
                <span class="seat-word">{state.word()}</span>
                {badge.map(|b| view! { <span class="seat-badge" data-testid=format!("badge-{}", seat.id)>{b}</span> })}
            </span>
            {seat.owner_line().map(|owner| view! {
                <span class="seat-owner">
                    {dot.map(|d| view! { <span class=d></span> })}
                    {owner}
                </span>
            })}
            {countdown.map(|w| view! { <span class="countdown"><span style=w></span></span> })}
            {line("seat-ticket", seat.ticket_line())}
            {seat.lock.as_deref().map(|who| view! {
                <span class="seat-lock"><LockIcon />{model::display_name(who)}</span>
            })}
            {line("seat-queue", seat.queue_line())}
            {line("seat-write", seat.pending_line())}
            {line("seat-write", seat.pending_ticket_line())}
            {seat.redis_line().map(|r| view! {
                <span class="seat-redis" data-testid=format!("redis-{}", seat.id)>{r}</span>
            })}
        </div>
    }
}
