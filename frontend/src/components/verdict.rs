//! The outcome in words: the verdict's headline (announced to screen readers), the causal chain
//! that ends in its consequence, whether the chapter's goal was reached, the reason line of the
//! step at the playhead, and the selected step in detail.

use leptos::prelude::*;
use shared::outcome::StepResult;
use shared::scenarios;

use crate::model::{self, EntryState};
use crate::state::use_lab;
use crate::words;

#[component]
pub fn Verdict() -> impl IntoView {
    let lab = use_lab();
    // The step that decides the run, once per order.
    let deciding = Memo::new(move |_| lab.schedule.with(model::deciding_step));
    // The programs alone (any order of them): whether this defence can reach the goal at all.
    let programs = Memo::new(move |_| lab.schedule.with(|s| s.with_order(s.full_multiset())));
    let reachable = Memo::new(move |_| {
        let builtin = scenarios::get(lab.source.get().scenario)?;
        programs.with(|s| {
            builtin
                .goal_applies(s)
                .then(|| words::goal_reachable(&builtin, s))
                .flatten()
        })
    });
    let summary = Memo::new(move |_| {
        let outcome = lab.outcome.get();
        let step = lab.step.get();
        lab.schedule.with(|schedule| match outcome {
            Ok(outcome) => {
                let v = words::verdict_at(schedule, step, deciding.get());
                let goal = scenarios::get(lab.source.get().scenario)
                    .filter(|b| b.goal_applies(schedule))
                    .map(|b| {
                        let met = model::goal_at(&b, schedule, step);
                        (b.goal, met)
                    });
                // A warning about the order itself, not an outcome: shown from the start.
                let race = outcome.races.first().copied();
                Ok((v, goal, race))
            }
            Err(why) => Err(why),
        })
    });
    view! {
        <section class="verdict-panel" aria-labelledby="verdict-title">
            <h3 id="verdict-title" class="visually-hidden">"Verdict"</h3>
            {move || match summary.get() {
                Ok((v, goal, race)) => {
                    let never = matches!(reachable.get(), Some((false, _)));
                    let orders = reachable.get().map(|(_, n)| n).unwrap_or(0);
                    view! {
                        <div
                            class="verdict"
                            class:verdict-bad=v.bad
                            class:verdict-good=v.decided && !v.bad
                            class:verdict-open=!v.decided
                            data-testid="verdict-panel"
                            data-decided=v.decided.to_string()
                            data-bad=v.bad.to_string()
                        >
                            <p class="headline" role="status" aria-live="polite" aria-atomic="true" data-testid="verdict">{v.headline}</p>
                            <ol class="story" data-testid="story">
                                {v.story.into_iter().map(|line| view! { <li>{line}</li> }).collect_view()}
                            </ol>
                            {goal.map(|(text, met)| view! {
                                <p class="goal" class:goal-met=met class:goal-never=never data-testid="goal" data-met=met.to_string()>
                                    {if met { "✓ Goal reached: " } else { "Goal: " }}
                                    {text}
                                    {never.then(|| format!(
                                        " This defence never gets there: none of its {orders} orders does."
                                    ))}
                                </p>
                            })}
                            {race.map(|k| view! {
                                <p class="race-note" data-testid="race-note">
                                    <strong>{format!("Step {} is a race on a real server. ", k + 1)}</strong>
                                    "The sessions that one commit or rollback wakes run in whichever order the machine picks. \
                                     The model lets the one that waited first go first; a run on the real database may take another order from there."
                                </p>
                            })}
                        </div>
                    }
                    .into_any()
                }
                Err(why) => view! {
                    <div class="verdict verdict-bad">
                        <p class="headline" role="status" data-testid="verdict">"This order cannot run: " {why}</p>
                    </div>
                }
                .into_any(),
            }}
        </section>
    }
}

/// The reason line of the step at the playhead, and any refused move.
#[component]
pub fn ReasonLine() -> impl IntoView {
    let lab = use_lab();
    let line = move || {
        let step = lab.step.get();
        if step == 0 {
            return "Before the first step: press play, or → to step.".to_string();
        }
        lab.outcome
            .get()
            .ok()
            .and_then(|o| {
                o.entries.get(step - 1).map(|e| {
                    format!(
                        "Step {step}: {}",
                        if e.trace.reason.is_empty() {
                            e.step.clone()
                        } else {
                            e.trace.reason.clone()
                        }
                    )
                })
            })
            .unwrap_or_default()
    };
    view! {
        <p class="reason" role="status" aria-live="polite" aria-atomic="true" data-testid="reason">{line}</p>
        {move || lab.notice.get().map(|n| view! {
            <p class="notice" role="alert" data-testid="notice">
                {n}
                <button class="link" on:click=move |_| lab.notice.set(None) aria-label="Dismiss">"×"</button>
            </p>
        })}
    }
}

/// The selected step (or the last one run) in detail: its SQL, result, rows and waits.
#[component]
pub fn StepDetail() -> impl IntoView {
    let lab = use_lab();
    let detail = Memo::new(move |_| {
        let step = lab.step.get();
        let index = lab.selected.get().or(step.checked_sub(1))?;
        let outcome = lab.outcome.get().ok()?;
        let entry = outcome.entries.get(index)?.clone();
        let sql = lab.schedule.with(|s| words::entry_sql(s, &outcome, index));
        let state = model::entry_state(&entry, index, step);
        Some((index, entry, sql, state))
    });
    view! {
        {move || detail.get().map(|(index, entry, sql, state)| {
            let who = model::display_name(&entry.trace.actor);
            let result = match (&state, &entry.trace.result) {
                (EntryState::Future, _) => "not sent yet".to_string(),
                (EntryState::Waiting(on), _) => format!(
                    "waiting for {}",
                    on.iter().map(|a| model::display_name(a)).collect::<Vec<_>>().join(" and ")
                ),
                (EntryState::Done, Some(StepResult::Error { code, message })) => format!("ERROR {code}: {message}"),
                (EntryState::Done, Some(r)) => r.short(),
                (EntryState::Done, None) => "still waiting at the end".to_string(),
            };
            // A counter's row read is its value; a seat's, its status and holder.
            let seen = entry.trace.seen.iter().map(|s| match s.value {
                Some(v) => format!("{} {v}", s.seat),
                None => format!("{} {}{}", s.seat, s.status.as_sql(), s.holder.as_ref().map(|h| format!(" ({h})")).unwrap_or_default()),
            }).collect::<Vec<_>>().join(", ");
            view! {
                <section class="step-detail" data-testid="step-detail" aria-label="The selected step">
                    <h4>{format!("Step {} · {who} · {}", index + 1, lab.schedule.with(|s| model::op_label_in(&entry.op, s.scenario())))}</h4>
                    {(!sql.is_empty()).then(|| view! { <pre class="sql" tabindex="0" aria-label="The statement it sends"><code>{sql}</code></pre> })}
                    <dl>
                        <dt>"result"</dt><dd data-testid="step-result">{result}</dd>
                        {(!seen.is_empty()).then(|| view! { <dt>"rows"</dt><dd>{seen}</dd> })}
                        {(!entry.trace.reason.is_empty()).then(|| view! { <dt>"why"</dt><dd>{entry.trace.reason.clone()}</dd> })}
                    </dl>
                </section>
            }
        })}
    }
}
