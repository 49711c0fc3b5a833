//! The room's seat map, in the chapters' look (`stage.css`): every seat as the server's state
//! has it, with the holder's name; on a phone each seat is a button that taps it. In a
//! general-admission round the state has no seat, and the stage faces the section
//! (`section.rs`).

use leptos::prelude::*;
use shared::protocol::room::{Seat, SeatStatus};

use crate::live::Live;
use crate::section::section;

/// The seat's state class and word (the chapters' legend: free, held, sold).
fn look(seat: &Seat) -> (&'static str, &'static str) {
    match seat.status {
        _ if seat.ticket => ("st-sold", "sold"),
        SeatStatus::Available => ("st-free", "free"),
        SeatStatus::Expired => ("st-free", "free: hold ran out"),
        SeatStatus::Held => ("st-held", "held"),
        SeatStatus::Booked => ("st-sold", "sold"),
    }
}

/// Whose the seat is, after its word: held *by* someone, sold *to* someone; none when free.
fn owner(seat: &Seat, mine: bool) -> Option<String> {
    let to = if seat.ticket || seat.status == SeatStatus::Booked {
        "to"
    } else {
        "by"
    };
    match (&seat.holder, mine) {
        _ if seat.status == SeatStatus::Available => None,
        (_, true) => Some(format!("{to} you")),
        (Some(h), false) => Some(format!("{to} {h}")),
        (None, false) => None,
    }
}

/// A seat in a sentence, for a screen reader.
fn sentence(seat: &Seat, mine: bool) -> String {
    let (_, word) = look(seat);
    match owner(seat, mine) {
        Some(o) => format!("{}, {word} {o}", seat.id),
        None => format!("{}, {word}", seat.id),
    }
}

/// The map. `me`: the phone's actor, whose seats say "you"; `tap`: what a tap on a seat does
/// (none: the map is only shown); `can_tap`: whether taps are open now.
#[component]
pub fn RoomMap(
    live: Live,
    #[prop(optional)] me: Option<String>,
    #[prop(optional)] tap: Option<Callback<String>>,
    #[prop(into, optional)] can_tap: Signal<bool>,
    #[prop(optional)] big: bool,
) -> impl IntoView {
    let seats = Memo::new(move |_| live.read(|s| s.seats.clone()).unwrap_or_default());
    let class = if big {
        "seat-map room-map room-map-big"
    } else {
        "seat-map room-map"
    };
    view! {
        <figure class=class data-testid="room-map" aria-label="Seat map">
            <div class="stage-bar" aria-hidden="true">"stage"</div>
            {move || live.read(|s| s.counter.clone()).flatten().map(|c| section(c, big, tap, can_tap))}
            <div class="seats">
                {move || seats.get().into_iter().map(|seat| {
                    let mine = me.is_some() && seat.actor == me;
                    let (state, word) = look(&seat);
                    let class = format!("seat {state}{}", if mine { " seat-mine" } else { "" });
                    let owner = owner(&seat, mine);
                    let label = sentence(&seat, mine);
                    let status = seat.status.word();
                    let body = view! {
                        <span class="seat-top">
                            <span class="seat-id">{seat.id.clone()}</span>" "
                            <span class="seat-word">{word}</span>
                        </span>
                        {owner.map(|o| view! { " "<span class="seat-owner">{o}</span> })}
                    };
                    let testid = format!("room-seat-{}", seat.id);
                    match tap {
                        Some(tap) => {
                            let id = seat.id.clone();
                            view! {
                                // Its words are its name: what it shows is what a screen reader says.
                                <button class=class data-testid=testid data-status=status
                                    data-holder=seat.holder.clone().unwrap_or_default()
                                    disabled=move || !can_tap.get()
                                    on:click=move |_| tap.run(id.clone())>{body}</button>
                            }.into_any()
                        }
                        None => view! {
                            <div class=class role="img" aria-label=label data-testid=testid data-status=status
                                data-holder=seat.holder.clone().unwrap_or_default()>{body}</div>
                        }.into_any(),
                    }
                }).collect_view()}
            </div>
        </figure>
    }
}
