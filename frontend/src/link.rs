//! The lab's state in the URL: restored from `?s=` when a chapter opens, and written back (with
//! `history.replaceState`, so the back button is not flooded) whenever it changes. The token
//! itself is `shared::link`'s.

use leptos::prelude::*;
use shared::link::{self, View};
use shared::{defences, scenarios};

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
    let defence = view
        .defence
        .as_deref()
        .and_then(|d| defences::NAMES.iter().copied().find(|&n| n == d));
    let (part, variant) = chapters::locate(chapter, scenario, defence).unwrap_or((0, 0));
    let source = Source {
        part,
        variant,
        scenario,
        defence,
    };
    Ok(Lab::new(chapter, source, schedule, view.step))
}

/// The lab's address (path and query) as it stands; reactive.
pub fn path(lab: Lab) -> String {
    let step = lab.step.get();
    let source = lab.source.get();
    let token = lab.schedule.with(|schedule| {
        link::encode(&View::of(
            lab.chapter.number,
            source.scenario,
            source.defence,
            schedule,
            step,
        ))
    });
    format!("/chapter/{}?s={token}", lab.chapter.number)
}

/// The whole link to the lab's state, to copy; reactive.
pub fn href(lab: Lab) -> String {
    let origin = web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .unwrap_or_default();
    format!("{origin}{}", path(lab))
}

/// Keeps the address bar in step with the lab.
pub fn keep_in_url(lab: Lab) {
    Effect::new(move |_| {
        let path = path(lab);
        if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&path));
        }
    });
}
