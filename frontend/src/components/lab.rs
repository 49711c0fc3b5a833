//! A chapter's interactive part: the scenario and defence choosers (a switch that replaces the
//! reader's order can be undone), the cockpit that shows cause and effect on one screen (the
//! seat map, the phones, time travel with the step line, the timeline, the verdict; a sticky
//! compact map on a phone; large type in presenter mode), then the explorer, the real run and
//! the exports.

use leptos::prelude::*;
use shared::chapters::MatrixTable;
use shared::scenarios;
use shared::schedule::SHOWS_SEATS;

use super::controls::Controls;
use super::counter::CounterMap;
use super::databases::{BothDatabases, DatabaseSwitch};
use super::explorer::Explorer;
use super::fork::NextSteps;
use super::matrix::Matrix;
use super::phones::Phones;
use super::postgres::{RealPanel, ServerHealth};
use super::rows::StoredRows;
use super::sandbox::Editor;
use super::seatmap::SeatMap;
use super::share::Share;
use super::timeline::Timeline;
use super::username::NameMap;
use super::verdict::{ReasonLine, StepDetail, Verdict};
use crate::state::Lab;

#[component]
pub fn LabView(lab: Lab) -> impl IntoView {
    provide_context(lab);
    provide_context(ServerHealth::ask());
    let chapter = lab.chapter;
    // A scenario of counters shows its own picture where the seat map stands.
    let counters = Memo::new(move |_| lab.schedule.with(|s| s.scenario().kind.is_counter()));
    // Known at compile time in the first bundle, which has no counter's picture.
    let counters = move || shared::schedule::SHAPES && counters.get();
    let username = Memo::new(move |_| lab.schedule.with(|s| s.scenario().kind.is_username()));
    let username = move || shared::schedule::SHAPES && username.get();
    view! {
        <div class="lab" class:presenter=move || lab.presenter.get()>
            <PartTabs lab />
            <DatabaseSwitch />
            <Chooser lab />
            <UndoOffer lab />
            <ScenarioGoal lab />
            {(SHOWS_SEATS && chapter.editable).then(|| view! { <Editor /> })}
            <div class="cockpit" id="stage" data-testid="cockpit">
                <div class="cockpit-map">
                    {move || if counters() {
                        view! { <CounterMap /> }.into_any()
                    } else if username() {
                        view! { <NameMap /> }.into_any()
                    } else if SHOWS_SEATS {
                        view! { <SeatMap /> }.into_any()
                    } else {
                        // Chapter 6's bundle shows no race for seats: the seat column's
                        // examples open in the sandbox, chapter 5 (`matrix.rs`).
                        ().into_any()
                    }}
                </div>
                <div class="cockpit-phones"><Phones /></div>
                <div class="player cockpit-player">
                    <Controls />
                    <ReasonLine />
                </div>
                <div class="cockpit-timeline">
                    <Timeline />
                    <NextSteps />
                </div>
                <div class="cockpit-verdict"><Verdict /></div>
            </div>
            <div class="detail-row">
                <StepDetail />
                <StoredRows />
            </div>
            <BothDatabases />
            <Explorer />
            {(chapter.matrix != MatrixTable::None).then(|| view! { <Matrix table=chapter.matrix /> })}
            <RealPanel />
            <Share />
        </div>
    }
}

/// One tab per part of the chapter, when it has several.
#[component]
fn PartTabs(lab: Lab) -> impl IntoView {
    let parts = lab.chapter.parts;
    (parts.len() > 1).then(|| {
        view! {
            <nav class="part-tabs" aria-label="Scenarios of this chapter">
                {parts.iter().enumerate().map(|(i, part)| view! {
                    <button
                        class="tab"
                        aria-pressed=move || (lab.source.get().part == i).to_string()
                        on:click=move |_| lab.choose(i, 0)
                        data-testid=format!("part-{i}")
                    >
                        {part.title}
                    </button>
                }).collect_view()}
            </nav>
        }
    })
}

/// The defence (or other variant) of the current part, when it has several.
#[component]
fn Chooser(lab: Lab) -> impl IntoView {
    let part = move || lab.chapter.parts[lab.source.get().part];
    view! {
        {move || {
            let part = part();
            (part.variants.len() > 1).then(|| {
                let selected = lab.source.get().variant;
                view! {
                    <div class="chooser">
                        <label for="variant">{part.chooser}</label>
                        <select
                            id="variant"
                            data-testid="defence"
                            on:change=move |ev| {
                                if let Ok(v) = event_target_value(&ev).parse::<usize>() {
                                    lab.choose(lab.source.get_untracked().part, v);
                                }
                            }
                        >
                            {part.variants.iter().enumerate().map(|(i, v)| view! {
                                <option value=i.to_string() selected=i == selected>{v.label}</option>
                            }).collect_view()}
                        </select>
                        <span class="muted chooser-summary">{summary_of(lab)}</span>
                    </div>
                }
            })
        }}
    }
}

/// What the chosen defence does, in one line.
fn summary_of(lab: Lab) -> String {
    lab.schedule.with(|s| {
        s.actors()
            .iter()
            .find_map(|a| a.defence)
            .map(|d| format!("Each buyer: {}.", d.summary()))
            .unwrap_or_default()
    })
}

/// The scenario's title and goal; for a schedule of other buyers or seats (a live round opened
/// in the sandbox, say) the goal is not about it, and the schedule's own name stands there.
#[component]
fn ScenarioGoal(lab: Lab) -> impl IntoView {
    let builtin = move || scenarios::get(lab.source.get().scenario);
    let applies = Memo::new(move |_| {
        let b = builtin();
        lab.schedule.with(|s| b.is_some_and(|b| b.goal_applies(s)))
    });
    view! {
        {move || builtin().map(|b| view! {
            <header class="scenario-head">
                <h2 data-testid="scenario-title">{b.title}</h2>
                {move || if applies.get() {
                    view! { <p class="scenario-goal">{b.goal}</p> }.into_any()
                } else {
                    let name = lab.schedule.with(|s| s.name().to_string());
                    view! { <p class="scenario-name" data-testid="schedule-name">{name}</p> }.into_any()
                }}
            </header>
        })}
    }
}

/// After a switch of part or defence replaced the reader's own order: say so, and offer it back.
#[component]
fn UndoOffer(lab: Lab) -> impl IntoView {
    move || {
        lab.undo.get().map(|undo| {
            view! {
                <p class="undo-offer" role="status" data-testid="undo-offer">
                    {format!("Switched to {}: your order was replaced by its own steps. ", undo.now)}
                    <button class="link" on:click=move |_| lab.undo_switch() data-testid="undo">
                        "Undo"
                    </button>
                    <button class="link" on:click=move |_| lab.undo.set(None) aria-label="Keep the switch">
                        "×"
                    </button>
                </p>
            }
        })
    }
}

/// Brings the cockpit (the seat map at its top) into view, below the sticky top bar: after the
/// explorer loads an order, the run it loaded is what the reader wants to see.
pub fn show_stage() {
    request_animation_frame(|| {
        let stage = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id("stage"));
        if let Some(stage) = stage {
            let options = web_sys::ScrollIntoViewOptions::new();
            options.set_behavior(web_sys::ScrollBehavior::Smooth);
            options.set_block(web_sys::ScrollLogicalPosition::Start);
            stage.scroll_into_view_with_scroll_into_view_options(&options);
        }
    });
}
