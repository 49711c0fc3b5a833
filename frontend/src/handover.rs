//! The chapters' bundles, as the reader meets them (`shared::link::bundle`): the first, the races
//! for seats on PostgreSQL; the third, chapter 6 alone; the second, the whole page with InnoDB's
//! model too (`WITH_INNODB`). A link to a page whose models this bundle has not is opened anew
//! (`has_models_for`), for the server to send the bundle that has them. A reader of the first
//! who asks for InnoDB (the switch, the order on both databases, the claim table) is handed to
//! the second: the same address with the request in its query (`shared::link::bundle`), which
//! the server answers with the second bundle's HTML and which that bundle then carries out. The
//! lab's whole state is in the address already, so nothing is lost on the way.

use leptos::prelude::*;
use shared::link::bundle::{self, SWITCH, WITH};

/// Whether this build has InnoDB's model.
pub const WITH_INNODB: bool = cfg!(feature = "innodb");

/// Whether this bundle has the models the address `path` with its query `search` (with its
/// `?`, or empty) needs: a link to one it has not is opened anew, for the server to send the
/// bundle that has them (`shared::link::bundle`).
pub fn has_models_for(path: &str, search: &str) -> bool {
    let query = search.trim_start_matches('?');
    (WITH_INNODB || !bundle::needs_innodb(query))
        && (shared::schedule::SHAPES || !bundle::needs_shapes(path, query))
        && (shared::schedule::SHOWS_SEATS || !bundle::needs_seats(path, query))
}

/// What a reader of the first bundle asked of InnoDB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Race the lab's buyers on InnoDB.
    Switch,
    /// Show a view that needs both models, anchored at this element id; the lab stays put.
    Both(&'static str),
}

/// Opens this page again from the bundle with InnoDB's model, asking `ask` of it.
pub fn load(ask: Ask) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let location = window.location();
    let path = location.pathname().unwrap_or_default();
    let search = location.search().unwrap_or_default();
    let _ = location.assign(&address(&path, &search, ask));
}

/// `path` and its query `search` (with its `?`, or empty) with `ask` added in place of any
/// earlier request.
fn address(path: &str, search: &str, ask: Ask) -> String {
    let kept = search
        .trim_start_matches('?')
        .split('&')
        .filter(|pair| !pair.is_empty())
        .filter(|pair| {
            let name = pair.split_once('=').map_or(*pair, |(n, _)| n);
            name != SWITCH.0 && name != WITH.0
        });
    let (name, value, anchor) = match ask {
        Ask::Switch => (SWITCH.0, SWITCH.1, ""),
        Ask::Both(id) => (WITH.0, WITH.1, id),
    };
    let asked = format!("{name}={value}");
    let query: Vec<&str> = kept.chain(std::iter::once(asked.as_str())).collect();
    let hash = if anchor.is_empty() {
        String::new()
    } else {
        format!("#{anchor}")
    };
    format!("{path}?{}{hash}", query.join("&"))
}

/// A button that loads the page with InnoDB's model for `ask`, and says so while it does.
pub fn load_button(
    ask: Ask,
    label: &'static str,
    class: &'static str,
    testid: &'static str,
) -> impl IntoView {
    let loading = RwSignal::new(false);
    view! {
        <button
            class=class
            on:click=move |_| {
                loading.set(true);
                load(ask);
            }
            aria-busy=move || loading.get().then_some("true")
            data-testid=testid
        >
            {move || if loading.get() { "Loading InnoDB's model…" } else { label }}
        </button>
    }
}

/// Whether the page was opened to switch the lab to InnoDB (`db=innodb` in `search`).
pub fn asked_to_switch(search: &str) -> bool {
    WITH_INNODB
        && search
            .trim_start_matches('?')
            .split('&')
            .any(|pair| pair.split_once('=') == Some(SWITCH))
}

/// Whether the page was opened from the first bundle to show the view at `anchor` (the second
/// bundle scrolls to it once drawn, and runs it if it runs on request).
pub fn arrived_for(anchor: &str) -> bool {
    let Some(location) = web_sys::window().map(|w| w.location()) else {
        return false;
    };
    let search = location.search().unwrap_or_default();
    WITH_INNODB
        && location.hash().unwrap_or_default().strip_prefix('#') == Some(anchor)
        && search
            .trim_start_matches('?')
            .split('&')
            .any(|pair| pair.split_once('=') == Some(WITH))
}

/// Scrolls the element `id` into view once the page has drawn it.
pub fn scroll_to(id: &'static str) {
    request_animation_frame(move || {
        if let Some(element) = document().get_element_by_id(id) {
            element.scroll_into_view();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_joins_the_state_and_replaces_an_earlier_one() {
        assert_eq!(
            address("/chapter/4", "?s=1.4.x.01.2&present=1", Ask::Switch),
            "/chapter/4?s=1.4.x.01.2&present=1&db=innodb"
        );
        assert_eq!(
            address(
                "/chapter/4",
                "?s=1.4.x.01.2&db=innodb",
                Ask::Both("both-databases")
            ),
            "/chapter/4?s=1.4.x.01.2&with=innodb#both-databases"
        );
        assert_eq!(address("/", "", Ask::Both("claim")), "/?with=innodb#claim");
    }

    #[test]
    fn the_server_sends_the_second_bundle_for_every_request() {
        for ask in [Ask::Switch, Ask::Both("claim")] {
            let to = address("/chapter/1", "?s=1.1.x.0.0", ask);
            let query = to.split_once('?').unwrap().1.split('#').next().unwrap();
            assert!(shared::link::bundle::needs_innodb(query), "{to}");
        }
    }
}
