//! Reproduce it yourself: the link to this exact state, and the schedule as a JSON fixture for
//! `schedules/`, as one script per buyer (psql's, or the mysql client's on InnoDB), and, on
//! PostgreSQL, as an isolation-tester spec.

use leptos::prelude::*;

use shared::schedule::Database;
use shared::{Outcome, Schedule};

use crate::state::{use_lab, Lab};
use crate::words;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Fixture,
    Psql,
    Isolation,
}

#[component]
pub fn Share() -> impl IntoView {
    let lab = use_lab();
    let shown = RwSignal::new(None::<Format>);
    let copied = RwSignal::new(false);
    let link = move || crate::link::href(lab);
    let copy_link = move |_| {
        let href = link();
        if let Some(clipboard) = web_sys::window().map(|w| w.navigator().clipboard()) {
            let _ = clipboard.write_text(&href);
        }
        copied.set(true);
        set_timeout(move || copied.set(false), std::time::Duration::from_secs(2));
    };
    let files = Memo::new(move |_| {
        let format = shown.get()?;
        let outcome = lab.outcome.get().ok()?;
        let s = lab.schedule.with(|s| named_for_now(lab, s, &outcome));
        Some({
            match format {
                Format::Fixture => vec![(
                    format!("{}.json", words::file_stem(&s)),
                    "application/json",
                    words::fixture(&s, &outcome),
                )],
                Format::Psql if s.database() == Database::Innodb => words::mysql(&s, &outcome)
                    .into_iter()
                    .map(|(name, text)| (format!("{name}.sql"), "application/sql", text))
                    .collect(),
                Format::Psql => words::psql(&s, &outcome)
                    .into_iter()
                    .map(|(name, text)| (format!("{name}.sql"), "application/sql", text))
                    .collect(),
                Format::Isolation => {
                    let (spec, expected) = words::isolation(&s, &outcome);
                    let stem = words::file_stem(&s);
                    vec![
                        (format!("{stem}.spec"), "text/plain", spec),
                        (format!("{stem}.out"), "text/plain", expected),
                    ]
                }
            }
        })
    });
    let innodb = Memo::new(move |_| lab.schedule.with(|s| s.database() == Database::Innodb));
    // The isolation tester is PostgreSQL's own: on InnoDB there is no spec to give.
    Effect::new(move |_| {
        if innodb.get() && shown.get_untracked() == Some(Format::Isolation) {
            shown.set(None);
        }
    });
    let tab = move |format: Format, label: &'static str, testid: &'static str| {
        view! {
            <button
                class="tab"
                aria-pressed=move || (shown.get() == Some(format)).to_string()
                on:click=move |_| shown.update(|s| *s = if *s == Some(format) { None } else { Some(format) })
                data-testid=testid
            >
                {label}
            </button>
        }
    };
    view! {
        <section class="share" aria-labelledby="share-title">
            <h3 id="share-title">"Share and reproduce"</h3>
            <div class="link-row">
                <label class="visually-hidden" for="share-link">"Link to this state"</label>
                <input id="share-link" readonly prop:value=link data-testid="share-link" on:focus=move |ev| {
                    use wasm_bindgen::JsCast;
                    if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                        input.select();
                    }
                } />
                <button on:click=copy_link data-testid="copy-link">
                    {move || if copied.get() { "Copied" } else { "Copy link" }}
                </button>
            </div>
            <div class="tabs" role="group" aria-label="Export as">
                {tab(Format::Fixture, "JSON fixture", "export-json")}
                {move || if innodb.get() {
                    tab(Format::Psql, "MariaDB scripts", "export-mysql").into_any()
                } else {
                    view! {
                        {tab(Format::Psql, "psql scripts", "export-psql")}
                        {tab(Format::Isolation, "isolation spec", "export-isolation")}
                    }
                    .into_any()
                }}
            </div>
            {move || files.get().map(|files| {
                let replay = (shown.get() == Some(Format::Fixture))
                    .then(|| files.first().map(|f| f.0.clone()))
                    .flatten()
                    .map(|name| view! {
                        <p class="replay-command" data-testid="replay-command">
                            {format!("Save it under schedules/, then replay it on {} and in the simulator: ", lab.schedule.with_untracked(|s| s.database().product()))}
                            <code>{format!("cargo run -p backend -- replay schedules/{name}")}</code>
                        </p>
                    });
                view! {
                <div class="exports" data-testid="export-output">
                    {replay}
                    {files.into_iter().map(|(name, mime, text)| {
                        let href = format!("data:{mime};charset=utf-8,{}", words::percent_encode(&text));
                        view! {
                            <figure class="export">
                                <figcaption>
                                    <code>{name.clone()}</code>
                                    <a href=href download=name.clone()>"Download"</a>
                                </figcaption>
                                <pre tabindex="0" aria-label=format!("{name}, its text")><code>{text}</code></pre>
                            </figure>
                        }
                    }).collect_view()}
                </div>
                }
            })}
        </section>
    }
}

/// The schedule under a name that says what this order does, so an exported file is never
/// named after an order or a defence the reader has since changed: "Who sold my seat twice?,
/// Row lock: Omar was told A7 is sold out".
fn named_for_now(lab: Lab, schedule: &Schedule, outcome: &Outcome) -> Schedule {
    let source = lab.source.get_untracked();
    let part = lab.chapter.parts.get(source.part);
    let variant = part
        .and_then(|p| p.variants.get(source.variant))
        .map_or("", |v| v.label);
    let mut name = format!("{}, {}", lab.chapter.title, part.map_or("", |p| p.title));
    if !variant.is_empty() {
        name = format!("{name}, {variant}");
    }
    let mut file = schedule.to_file();
    file.name = format!("{name}: {}", shared::explain::headline(schedule, outcome));
    Schedule::parse(file)
        .map(|s| s.with_order(schedule.order().to_vec()))
        .unwrap_or_else(|_| schedule.clone())
}
