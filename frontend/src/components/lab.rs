//! A chapter's interactive part: the scenario and defence choosers, the stage (seat map and
//! phones), the verdict, time travel, the timelines, the explorer, the real run and the exports.

use leptos::prelude::*;
use shared::{defences, scenarios};

use super::controls::Controls;
use super::explorer::Explorer;
use super::matrix::Matrix;
use super::phones::Phones;
use super::postgres::RealPanel;
use super::rows::StoredRows;
use super::sandbox::Editor;
use super::seatmap::SeatMap;
use super::share::Share;
use super::timeline::Timeline;
use super::verdict::{NextSteps, ReasonLine, StepDetail, Verdict};
use crate::state::Lab;

#[component]
pub fn LabView(lab: Lab) -> impl IntoView {
    provide_context(lab);
    let chapter = lab.chapter;
    view! {
        <div class="lab">
            <PartTabs lab />
            <Chooser lab />
            <ScenarioGoal lab />
            {chapter.editable.then(|| view! { <Editor /> })}
            <div class="stage-row">
                <SeatMap />
                <Phones />
            </div>
            <Verdict />
            <div class="player">
                <Controls />
                <ReasonLine />
            </div>
            <Timeline />
            <NextSteps />
            <div class="detail-row">
                <StepDetail />
                <StoredRows />
            </div>
            <Explorer />
            {chapter.matrix.then(|| view! { <Matrix /> })}
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
            .find_map(|a| a.defence.as_deref())
            .and_then(defences::summary)
            .map(|line| format!("Each buyer: {line}."))
            .unwrap_or_default()
    })
}

#[component]
fn ScenarioGoal(lab: Lab) -> impl IntoView {
    let builtin = move || scenarios::get(lab.source.get().scenario);
    view! {
        {move || builtin().map(|b| view! {
            <header class="scenario-head">
                <h2 data-testid="scenario-title">{b.title}</h2>
                <p class="scenario-goal">{b.goal}</p>
            </header>
        })}
    }
}
