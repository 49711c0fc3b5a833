//! The phone of someone signing up for a username, in its words (`UsernameWords`): "batman is
//! free", "checking batman…", "account batman created", "batman is taken (23505, duplicate key):
//! someone claimed it first". What it says is what the application knows at the step: the
//! accounts its last check found, whether it was told the account is theirs (the model's
//! `told`), the refusal it met.

use super::{Phone, Tone};
use crate::engine::capitalise;
use crate::schedule::Database;
use crate::sqlstate::SqlState;
use crate::username_words::UsernameWords;
use crate::view::app::{App, Said};
use crate::view::refusal::Refusal;
use crate::view::words;

/// What `app`'s phone says on a username on `db`, `yours` the names it was told it got.
pub(super) fn phone(u: &UsernameWords, app: &App, yours: &[String], db: Database) -> Phone {
    let phone = |text: String, tone: Tone| Phone {
        text: capitalise(&text),
        tone,
        yours: yours.to_vec(),
        until: None,
    };
    if let Some(on) = &app.waiting {
        let on: Vec<String> = on.iter().map(|a| super::display_name(a)).collect();
        return phone(words::waiting(&on), Tone::Busy);
    }
    if !yours.is_empty() {
        return phone(u.got(), Tone::Good);
    }
    match &app.said {
        None => phone(u.about_to(), Tone::Neutral),
        Some(Said::Looked { .. }) if app.seen.is_empty() => phone(u.looked(0), Tone::Neutral),
        Some(Said::Looked { .. }) => phone(u.looked(app.seen.len()), Tone::Bad),
        Some(Said::Working(rows)) => phone(u.working(!rows.is_empty()), Tone::Neutral),
        Some(Said::Refused(r)) => phone(refusal(u, r, db), Tone::Bad),
        // No program on a username pays, confirms or releases.
        Some(_) => phone(u.about_to(), Tone::Neutral),
    }
}

/// A refusal in the name's words.
fn refusal(u: &UsernameWords, r: &Refusal, db: Database) -> String {
    match r {
        // A claim that inserted nothing: someone's claim of the name was there.
        Refusal::SoldOut(_) => u.taken_claimed(),
        Refusal::RemembersTaken(_) => u.taken_checked(),
        Refusal::TicketExists(_) => u.taken_refused(&match db {
            Database::Postgresql => SqlState::UniqueViolation,
            Database::Innodb => SqlState::DuplicateEntry,
        }),
        Refusal::Busy(_, Some(code)) | Refusal::Error(code) => u.error_phone(code),
        Refusal::Busy(_, None) | Refusal::HoldGone => {
            format!("the sign-up for {} did not go through: try again", u.name())
        }
    }
}
