//! The lab's state in the URL: restored from `?s=` (and presenter mode from `&present=1`) when
//! a chapter opens, and written back whenever it changes: a new history entry when the reader
//! changes the order, the part, the defence or the mode (so Back returns to it), the same entry
//! while the playhead moves (so Back is not flooded). The token itself is `shared::link`'s.

use leptos::prelude::*;
use shared::link::{self, View};
use shared::scenarios;

use crate::app::use_router;
use crate::chapters::{self, Chapter};
use crate::state::{Lab, Source};

/// The lab a link describes, or why it cannot be opened (in words that say what to do).
pub fn restore(chapter: &'static Chapter, token: &str) -> Result<Lab, String> {
    let view = link::decode(token).map_err(|e| e.to_string())?;
    if view.chapter != chapter.number {
        return Err(format!(
            "This link belongs to chapter {}, but the address says chapter {}: it was cut or \
             edited. Open the link exactly as it was copied.",
            view.chapter, chapter.number
        ));
    }
    let schedule = view.schedule().map_err(|e| e.to_string())?;
    let scenario = scenarios::get(&view.scenario)
        .map(|b| b.id)
        .ok_or_else(|| {
            format!(
                "The link names scenario {}, which does not exist.",
                view.scenario
            )
        })?;
    let defence = view.defence;
    let (part, variant) = chapters::locate(chapter, scenario, defence).unwrap_or((0, 0));
    let source = Source {
        part,
        variant,
        scenario,
        defence,
    };
    Ok(Lab::new(chapter, source, schedule, view.step))
}

/// The lab's state token at `step`; reactive.
fn token_at(lab: Lab, step: usize) -> String {
    let source = lab.source.get();
    lab.schedule.with(|schedule| {
        link::encode(&View::of(
            lab.chapter.number,
            source.scenario,
            source.defence,
            schedule,
            step,
        ))
    })
}

/// The lab's address (path and query) as it stands; reactive.
pub fn path(lab: Lab) -> String {
    address(lab, &token_at(lab, lab.step.get()))
}

fn address(lab: Lab, token: &str) -> String {
    let present = if lab.presenter.get() {
        "&present=1"
    } else {
        ""
    };
    format!("/chapter/{}?s={token}{present}", lab.chapter.number)
}

/// The whole link to the lab's state, to copy; reactive.
pub fn href(lab: Lab) -> String {
    let origin = web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .unwrap_or_default();
    format!("{origin}{}", path(lab))
}

/// Keeps the address bar in step with the lab. `written` is told each token before it is
/// written, so that the chapter page can tell the lab's own writes from a navigation.
pub fn keep_in_url(lab: Lab, written: StoredValue<Option<String>>) {
    let router = use_router();
    Effect::new(move |before: Option<String>| {
        let token = token_at(lab, lab.step.get());
        // What the state is apart from the playhead: a change of it is a new history entry.
        let state = address(lab, &token_at(lab, 0));
        let push = before.as_ref().is_some_and(|b| *b != state);
        written.set_value(Some(token.clone()));
        router.record(&address(lab, &token), push);
        state
    });
}
