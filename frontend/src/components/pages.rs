//! The routes' pages: the home page with the chapter list, a chapter (its text and its lab, with
//! the state in the URL), and the page for an address that leads nowhere.

use leptos::prelude::*;

use super::defences::DefenceList;
use super::health::HealthLine;
use super::intro::Intro;
use super::lab::LabView;
use crate::app::{is_current, use_url};
use crate::chapters::{self, Chapter, CHAPTERS};
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
                "Every outcome on this page is computed in your browser by the same Rust model "
                "that the server checks against PostgreSQL, on every order of every built-in "
                "scenario."
            </p>
        </footer>
    }
}

/// `/chapter/:n`, with the lab's state in `?s=`.
#[component]
pub fn ChapterPage(n: u8) -> impl IntoView {
    let url = use_url();
    // A navigation (a link, the back button) brings a new token; the lab's own updates of the
    // address bar do not go through the router.
    let token = Memo::new(move |_| url.with(|u| u.query("s")));
    move || {
        let chapter = chapters::chapter(n)?;
        Some(
            match token.get().map(|t| link::restore(chapter, &t)).transpose() {
                Ok(lab) => {
                    view! { <ChapterView chapter lab=lab.unwrap_or_else(|| Lab::start(chapter)) /> }
                        .into_any()
                }
                Err(why) => view! { <BadLink chapter why /> }.into_any(),
            },
        )
    }
}

#[component]
fn ChapterView(chapter: &'static Chapter, lab: Lab) -> impl IntoView {
    link::keep_in_url(lab);
    let next = chapters::chapter(chapter.number + 1);
    view! {
        <main class="page page-wide" data-testid=format!("chapter-{}", chapter.number)>
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
            <p>"This address is not a page of Last Seat. The chapters are numbered 1 to 5."</p>
            <p><a href="/">"Go to the chapter list"</a></p>
        </main>
    }
}
