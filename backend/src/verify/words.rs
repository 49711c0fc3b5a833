//! A verification's findings in words, for people: the headline ("All 90 orders: the model
//! and PostgreSQL agree."), and the detail (the races the model named, the orders per verdict,
//! the speed). The command prints the headline; the page shows both as they are, so that the
//! page carries none of the code that writes them.

use shared::outcome::Verdict;
use shared::view::display_name;

use super::Summary;

/// "All 90 orders: the model and PostgreSQL agree." and its variants, `server` the database
/// the orders ran on ("PostgreSQL", "MariaDB").
pub fn headline(s: &Summary, server: &str) -> String {
    if s.disagreed > 0 {
        let first = s
            .first_disagreement
            .as_ref()
            .and_then(|d| d.differences.first())
            .map(|d| format!(" The first: {d}."))
            .unwrap_or_default();
        return format!(
            "{} of {} orders: {server} answered differently from the model, where the model \
             names no race.{first}",
            s.disagreed, s.run
        );
    }
    match (&s.stopped, s.run) {
        (Some(why), run) => format!(
            "The model and {server} agree on the {run} orders that ran; then the proof \
             stopped: {why}."
        ),
        (None, 1) => format!("The only order: the model and {server} agree."),
        (None, run) => format!("All {run} orders: the model and {server} agree."),
    }
}

/// The races the model named that the server took, the orders per verdict, the speed.
pub fn detail(s: &Summary, server: &str) -> String {
    let mut out = String::new();
    if s.races > 0 {
        out += &format!(
            "In {} of them the sessions that one commit or rollback woke ran in another order \
             than the model's: it names that race in advance, and {server} may go either \
             way. ",
            s.races
        );
    }
    let counts: Vec<String> = s
        .verdicts
        .iter()
        .map(|v| format!("{} {}", v.words, v.orders))
        .collect();
    out + &format!(
        "Orders by the model's verdict: {}. {server} ran {:.0} of them a second.",
        counts.join("; "),
        s.runs_per_second
    )
}

/// A verdict in a few words: "double booked", "refund due to Omar", "sold at most once".
pub fn verdict(v: &Verdict) -> String {
    let names = |actors: &[String]| {
        actors
            .iter()
            .map(|a| display_name(a))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts = Vec::new();
    if v.double_booked {
        parts.push("double booked".to_string());
    }
    if v.lost_seat {
        parts.push("a paid seat lost".to_string());
    }
    for (actors, what) in [
        (&v.refund_due, "refund due to"),
        (&v.unpaid_hold, "unpaid hold by"),
        (&v.booked_late, "booked after the hold ran out by"),
    ] {
        if !actors.is_empty() {
            parts.push(format!("{what} {}", names(actors)));
        }
    }
    if parts.is_empty() {
        "sold at most once".to_string()
    } else {
        parts.join(", ")
    }
}
