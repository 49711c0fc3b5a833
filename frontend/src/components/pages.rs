//! The routes' pages: the home page with the chapter list, a chapter (its text and its lab, with
//! the state in the URL), and the page for an address that leads nowhere.

use leptos::prelude::*;
use shared::schedule::Database;

use super::claim::ClaimTable;
use super::databases::SWITCH_ANCHOR;
use super::defences::DefenceList;
use super::health::HealthLine;
use super::intro::Intro;
use super::lab::LabView;
use crate::app::{is_current, use_url};
use crate::chapters::{self, Chapter, CHAPTERS};
use crate::handover;
use crate::link;
use crate::state::Lab;

/// The top bar: the name, and a link to every chapter.
#[component]
pub fn Nav() -> impl IntoView {
    let url = use_url();
    let current = move |href: String| move || is_current(url, &href).then_some("page");
    view! {
        <nav class="topbar" aria-label="Chapters">
            <a href="/" class="brand" aria-current=current("/".to_string())>"Last Seat"</a>
            <ol class="chapter-links">
                {CHAPTERS.iter().map(|c| {
                    let href = format!("/chapter/{}", c.number);
                    view! { <li><a href=href.clone() title=c.title aria-current=current(href)>{c.number}</a></li> }
                }).collect_view()}
            </ol>
        </nav>
    }
}

#[component]
pub fn Home() -> impl IntoView {
    view! {
        <main class="page">
            <Intro />
            <section aria-labelledby="chapters-title">
                <h2 id="chapters-title">"Chapters"</h2>
                <ol class="chapter-cards" data-testid="chapters">
                    {CHAPTERS.iter().map(|c| view! {
                        <li class="chapter-card">
                            <a href=format!("/chapter/{}", c.number)>
                                <span class="chapter-number">{format!("Chapter {}", c.number)}</span>
                                <span class="chapter-title">{c.title}</span>
                                <span class="chapter-goal">{c.goal}</span>
                            </a>
                        </li>
                    }).collect_view()}
                </ol>
            </section>
            <DefenceList />
            <ClaimTable />
            <HealthLine />
            <Footer />
        </main>
    }
}

#[component]
pub fn Footer() -> impl IntoView {
    view! {
        <footer class="footer">
            <p>
                "Every outcome on this page is computed in your browser by the same Rust models "
                "that the server checks against PostgreSQL and MariaDB, on every order of every "
                "built-in scenario."
            </p>
        </footer>
    }
}

/// `/chapter/:n`, with the lab's state in `?s=` and presenter mode in `&present=1`.
#[component]
pub fn ChapterPage(n: u8) -> impl IntoView {
    let url = use_url();
    let token = Memo::new(move |_| url.with(|u| u.query("s")));
    // The lab writes its own state into the address as it changes; only a token that it did
    // not write (a link, Back or Forward) builds the lab anew.
    let written = StoredValue::new(None::<String>);
    let wanted = RwSignal::new(token.get_untracked());
    Effect::new(move |first: Option<()>| {
        let token = token.get();
        let mine = written.with_value(|w| w.is_some() && *w == token);
        if first.is_some() && !mine {
            wanted.set(token);
        }
    });
    move || {
        let chapter = chapters::chapter(n)?;
        if chapter.parts.is_empty() {
            // Chapter 6 in the first bundle, which has not its models: the server sends the
            // bundle that has them for its address (`shared::link::bundle`), which a plain
            // click on a link to it loads anew (`app.rs`).
            return Some(view! { <ElsewherePage chapter /> }.into_any());
        }
        let present = url.with_untracked(|u| u.query("present")).as_deref() == Some("1");
        let switch = url.with_untracked(|u| handover::asked_to_switch(&u.search));
        Some(
            match wanted.get().map(|t| link::restore(chapter, &t)).transpose() {
                Ok(lab) => {
                    let lab = lab.unwrap_or_else(|| Lab::start(chapter));
                    lab.presenter.set(present);
                    if switch {
                        // Handed over from the first bundle by the reader's switch: where
                        // they were.
                        lab.switch_database(Database::Innodb);
                        handover::scroll_to(SWITCH_ANCHOR);
                    }
                    view! { <ChapterView chapter lab written /> }.into_any()
                }
                Err(why) => {
                    document().set_title("This link cannot be opened · Last Seat");
                    view! { <BadLink chapter why /> }.into_any()
                }
            },
        )
    }
}

/// The document's title for a chapter at a part and variant: "Chapter 4: Who sold my seat
/// twice? · Two requests, one seat: Check, then act · Last Seat".
pub fn title(chapter: &Chapter, part: usize, variant: usize) -> String {
    let head = format!("Chapter {}: {}", chapter.number, chapter.title);
    let Some(p) = chapter.parts.get(part) else {
        return format!("{head} · Last Seat");
    };
    let label = p.variants.get(variant).map(|v| v.label).unwrap_or_default();
    let what = match (chapter.parts.len() > 1, p.variants.len() > 1) {
        (_, true) => format!("{}: {label}", p.title),
        (true, false) => p.title.to_string(),
        (false, false) => String::new(),
    };
    if what.is_empty() || what == chapter.title {
        format!("{head} · Last Seat")
    } else {
        format!("{head} · {what} · Last Seat")
    }
}

#[component]
fn ChapterView(
    chapter: &'static Chapter,
    lab: Lab,
    written: StoredValue<Option<String>>,
) -> impl IntoView {
    link::keep_in_url(lab, written);
    Effect::new(move |_| {
        let source = lab.source.get();
        document().set_title(&title(chapter, source.part, source.variant));
    });
    let next = chapters::chapter(chapter.number + 1);
    view! {
        <main class="page page-wide" class:presenting=move || lab.presenter.get() data-testid=format!("chapter-{}", chapter.number)>
            <header class="chapter-head">
                <p class="eyebrow">{format!("Chapter {}", chapter.number)}</p>
                <h1 data-testid="chapter-title">{chapter.title}</h1>
                <p class="lede chapter-goal" data-testid="chapter-goal">{chapter.goal}</p>
            </header>
            <div class="prose">
                {chapter.text.iter().map(|p| view! { <p>{*p}</p> }).collect_view()}
            </div>
            <LabView lab />
            <nav class="chapter-nav" aria-label="Next chapter">
                {next.map(|n| view! {
                    <a href=format!("/chapter/{}", n.number)>{format!("Next: {} →", n.title)}</a>
                })}
            </nav>
            <Footer />
        </main>
    }
}

/// A chapter whose models this bundle has not: a link that loads the page that has them.
#[component]
fn ElsewherePage(chapter: &'static Chapter) -> impl IntoView {
    view! {
        <main class="page" data-testid="elsewhere">
            <h1>{chapter.title}</h1>
            <p>
                <a href=format!("/chapter/{}", chapter.number)>
                    {format!("Open chapter {} with its models", chapter.number)}
                </a>
            </p>
        </main>
    }
}

/// A link whose state token cannot be read: say why, and offer the way back.
#[component]
fn BadLink(chapter: &'static Chapter, why: String) -> impl IntoView {
    view! {
        <main class="page" data-testid="bad-link">
            <h1>"This link cannot be opened"</h1>
            <p class="notice" role="alert" data-testid="link-error">{why}</p>
            <p>
                <a href=format!("/chapter/{}", chapter.number) data-testid="link-back">
                    {format!("Open chapter {}, {}, from its start", chapter.number, chapter.title)}
                </a>
                " or "
                <a href="/">"go to the chapter list"</a>
                "."
            </p>
        </main>
    }
}

#[component]
pub fn NotFound() -> impl IntoView {
    view! {
        <main class="page" data-testid="not-found">
            <h1>"Nothing here"</h1>
            <p>"This address is not a page of Last Seat. The chapters are numbered 1 to 6."</p>
            <p><a href="/">"Go to the chapter list"</a></p>
        </main>
    }
}
