//! The routes' pages: the home page with the chapter list, a chapter (its text and its lab, with
//! the state in the URL), and the page for an address that leads nowhere.

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::{use_params_map, use_query_map};

use super::defences::DefenceList;
use super::health::HealthLine;
use super::intro::Intro;
use super::lab::LabView;
use crate::chapters::{self, Chapter, CHAPTERS};
use crate::link;
use crate::state::Lab;

/// The top bar: the name, and a link to every chapter.
#[component]
pub fn Nav() -> impl IntoView {
    view! {
        <nav class="topbar" aria-label="Chapters">
            <A href="/" attr:class="brand">"Last Seat"</A>
            <ol class="chapter-links">
                {CHAPTERS.iter().map(|c| view! {
                    <li><A href=format!("/chapter/{}", c.number) attr:title=c.title>{c.number}</A></li>
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
                            <A href=format!("/chapter/{}", c.number)>
                                <span class="chapter-number">{format!("Chapter {}", c.number)}</span>
                                <span class="chapter-title">{c.title}</span>
                                <span class="chapter-goal">{c.goal}</span>
                            </A>
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
pub fn ChapterPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let number = move || params.read().get("n").and_then(|n| n.parse::<u8>().ok());
    view! {
        {move || match number().and_then(chapters::chapter) {
            None => view! { <NotFound /> }.into_any(),
            Some(chapter) => {
                // A navigation (a link, the back button) brings a new token; the lab's own
                // updates of the address bar do not go through the router.
                let token = query.read().get("s");
                match token.map(|t| link::restore(chapter, &t)).transpose() {
                    Ok(lab) => view! { <ChapterView chapter lab=lab.unwrap_or_else(|| Lab::start(chapter)) /> }.into_any(),
                    Err(why) => view! { <BadLink chapter why /> }.into_any(),
                }
            }
        }}
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
                    <A href=format!("/chapter/{}", n.number)>{format!("Next: {} →", n.title)}</A>
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
                <A href="/">"go to the chapter list"</A>
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
            <p><A href="/">"Go to the chapter list"</A></p>
        </main>
    }
}
