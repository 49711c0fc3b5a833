//! The matrix's icons: one per way a buyer who missed out was stopped, with the error code
//! beside an error, and the legend that says what each means.

use leptos::prelude::*;
use shared::explorer::{StopHow, Way};
use shared::SqlState;

/// One way's icon, with the error code beside an error.
#[component]
pub(super) fn Mark(way: Way) -> impl IntoView {
    let (kind, code) = match &way.stop {
        None => ("twice", None),
        Some(s) => match &s.how {
            StopHow::Error { code } => ("error", Some(code.to_string())),
            StopHow::Skipped => ("skipped", None),
            StopHow::Refused {
                answer: shared::outcome::Answer::RefundDue,
            } => ("refund", None),
            StopHow::Refused { .. } => ("refused", None),
            StopHow::UpdatedNoRows => ("norows", None),
            StopHow::LockedFewerRows => ("locked", None),
        },
    };
    let waited = way.stop.as_ref().is_some_and(|s| s.waited);
    view! {
        <span class="mark" title=way.words.clone()>
            {waited.then(|| view! { <Icon kind="waited" /> })}
            <Icon kind />
            {code.map(|c| view! { <span class="mark-code">{c}</span> })}
        </span>
    }
}

/// A small drawn icon (SVG, so it looks the same wherever the page runs).
#[component]
fn Icon(kind: &'static str) -> impl IntoView {
    let shape = match kind {
        // A clock: it waited for another buyer's lock.
        "waited" => view! { <circle cx="8" cy="8" r="6.5" /><path d="M8 4.5V8l2.5 1.8" /> }.into_any(),
        // A warning triangle: PostgreSQL answered with an error.
        "error" => view! { <path d="M8 1.8L14.7 14H1.3Z" /><path d="M8 6.2v3.8M8 11.6v.4" /> }.into_any(),
        // A skip arrow: it read the seat as taken and never wrote.
        "skipped" => view! { <path d="M2 11c1.5-5 8-6.5 11-2" /><path d="M13.5 4.8v4.4H9.1" /> }.into_any(),
        // A no-entry sign: the hold was refused.
        "refused" => view! { <circle cx="8" cy="8" r="6.5" /><path d="M4.5 8h7" /> }.into_any(),
        // Money going back: it paid after its hold was lost, and is owed a refund.
        "refund" => view! { <circle cx="8" cy="8" r="6.5" /><path d="M5 6.5h4.5a2 2 0 0 1 0 4H6.5" /><path d="M6.8 4.6L5 6.5l1.8 1.9" /> }.into_any(),
        // An empty set: the conditional UPDATE changed no row.
        "norows" => view! { <circle cx="8" cy="8" r="5" /><path d="M3 13L13 3" /> }.into_any(),
        // A padlock: SKIP LOCKED passed the locked seat over.
        "locked" => view! { <rect x="3" y="7.5" width="10" height="7" rx="1.5" /><path d="M5.5 7.5V5a2.5 2.5 0 0 1 5 0v2.5" /> }.into_any(),
        // Two tickets: nobody was stopped.
        _ => view! { <rect x="1.5" y="3" width="9" height="7" rx="1.5" /><rect x="5.5" y="6" width="9" height="7" rx="1.5" /> }.into_any(),
    };
    view! {
        <svg class=format!("icon icon-{kind}") viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
            {shape}
        </svg>
    }
}

#[component]
pub(super) fn Legend() -> impl IntoView {
    let codes: Vec<String> = [
        SqlState::SerializationFailure,
        SqlState::LockNotAvailable,
        SqlState::UniqueViolation,
    ]
    .iter()
    .map(|c| format!("{c} {}", c.name()))
    .collect();
    let error = format!(
        "PostgreSQL answered with an error, its code beside it: {}",
        codes.join("; ")
    );
    let items: [(&str, &str); 8] = [
        (
            "twice",
            "nobody was stopped: the seat was sold twice (a red cell)",
        ),
        ("waited", "waited for another buyer's row lock first"),
        ("error", &error),
        ("skipped", "saw the seat taken and did not write"),
        ("norows", "the conditional UPDATE changed no row"),
        ("locked", "SKIP LOCKED passed the locked seat over"),
        ("refused", "the hold was refused: the seat is taken"),
        ("refund", "paid after its hold was lost: owed a refund"),
    ];
    view! {
        <ul class="matrix-legend" aria-label="What the icons mean" data-testid="matrix-legend">
            {items.into_iter().map(|(kind, words)| view! { <li><Icon kind />" "{words.to_string()}</li> }).collect_view()}
            <li><span class="swatch good"></span>" no order sold the seat twice"</li>
        </ul>
    }
}
