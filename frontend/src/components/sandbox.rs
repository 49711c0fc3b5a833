//! The sandbox's editor: the whole schedule as JSON (format v1, as the fixtures write it), with
//! every error naming its field, and a quick way to give every buyer another defence.

use leptos::prelude::*;
use shared::schedule::{ProgramSpec, ScheduleFile};
use shared::{Defence, Schedule};

use crate::model;
use crate::state::use_lab;

#[component]
pub fn Editor() -> impl IntoView {
    let lab = use_lab();
    let text = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    // The editor shows the schedule as it is now, whenever it changes from elsewhere.
    Effect::new(move |_| {
        let file = lab.schedule.with(|s| s.to_file());
        text.set(serde_json::to_string_pretty(&file).unwrap_or_default());
    });
    let apply = move |_| {
        let text = text.get_untracked();
        let result = Schedule::parse_json(&text)
            .map_err(|e| e.to_string())
            .and_then(|schedule| {
                // An order the reader wrote is kept as written, and refused if it cannot run.
                let explicit = serde_json::from_str::<ScheduleFile>(&text)
                    .is_ok_and(|file| !file.order.is_empty());
                let schedule = if explicit {
                    schedule
                } else {
                    model::playable(&schedule)
                };
                model::run(&schedule)
                    .map(|_| schedule)
                    .map_err(|why| format!("order: {why}"))
            });
        match result {
            Ok(schedule) => {
                error.set(None);
                lab.replace(schedule);
            }
            Err(why) => error.set(Some(why)),
        }
    };
    let all_defend = move |ev: leptos::ev::Event| {
        // "(as written)" has no defence.
        let Some(defence) = Defence::parse(&event_target_value(&ev)) else {
            return;
        };
        let mut file = lab.schedule.with_untracked(|s| s.to_file());
        let seats: Vec<String> = lab.schedule.with_untracked(|s| {
            s.scenario()
                .seats
                .iter()
                .take(1)
                .map(|s| s.id.clone())
                .collect()
        });
        for (name, spec) in file.actors.iter_mut() {
            if name != shared::schedule::CLOCK {
                *spec = ProgramSpec::Defence {
                    defence: defence.id().to_string(),
                    seats: Some(seats.clone()),
                };
            }
        }
        file.order.clear();
        file.expect = None;
        match Schedule::parse(file) {
            Ok(schedule) => {
                error.set(None);
                lab.replace(model::playable(&schedule));
            }
            Err(e) => error.set(Some(e.to_string())),
        }
    };
    view! {
        <section class="editor" aria-labelledby="editor-title">
            <div class="section-head">
                <h3 id="editor-title">"The schedule"</h3>
                <label class="chooser">
                    <span>"Every buyer uses"</span>
                    <select on:change=all_defend data-testid="sandbox-defence">
                        <option value="">"(as written)"</option>
                        {Defence::ALL.map(|d| view! { <option value=d.id()>{d.title()}</option> }).collect_view()}
                    </select>
                </label>
            </div>
            <label class="visually-hidden" for="schedule-json">"Schedule as JSON"</label>
            <textarea
                id="schedule-json"
                class="json"
                rows="14"
                spellcheck="false"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
                data-testid="schedule-json"
            ></textarea>
            <div class="editor-actions">
                <button class="primary" on:click=apply data-testid="apply-schedule">"Run this schedule"</button>
                <span class="muted">"An empty order runs the buyers round-robin."</span>
            </div>
            {move || error.get().map(|e| view! { <p class="notice" role="alert" data-testid="schedule-error">{e}</p> })}
        </section>
    }
}
