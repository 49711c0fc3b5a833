//! The real database beside the model: runs the lab's schedule through `POST /api/runs` on the
//! database it names (PostgreSQL, or MariaDB for InnoDB) and lays the real trace next to the
//! simulated one, saying "identical" or pointing at the first difference. Without a server the
//! page says plainly that it simulates only.

use leptos::prelude::*;
use leptos::task::spawn_local;

use shared::schedule::Database;

use crate::api::{self, Health, RealRun, RunEntry};
use crate::model;
use crate::state::use_lab;

/// What `GET /api/health` says about the lab's database, asked again when the lab changes
/// database, and shared by the real run and the proof.
#[derive(Clone, Copy)]
pub struct ServerHealth {
    health: LocalResource<Health>,
}

impl ServerHealth {
    /// Asks the server about the lab's database.
    pub fn ask() -> ServerHealth {
        let lab = use_lab();
        let database = Memo::new(move |_| lab.schedule.with(|s| s.database()));
        ServerHealth {
            health: LocalResource::new(move || api::health_of(database.get())),
        }
    }

    /// What the server said about the lab's database; `None` while it is being asked.
    pub fn get(&self) -> Option<Health> {
        self.health.get()
    }
}

#[component]
pub fn RealPanel() -> impl IntoView {
    let lab = use_lab();
    let database = Memo::new(move |_| lab.schedule.with(|s| s.database()));
    let server_health = use_context::<ServerHealth>().unwrap_or_else(ServerHealth::ask);
    let health = move || server_health.get();
    let server = move || database.get().product();
    let run = move |_| {
        let file = lab.schedule.with_untracked(|s| s.to_file());
        lab.real.set(RealRun::Running);
        spawn_local(async move {
            let result = api::run(&file).await;
            lab.real.set(match result {
                Ok(report) => RealRun::Done(Box::new(report)),
                Err(why) => RealRun::Failed(why),
            });
        });
    };
    let available = move || matches!(health(), Some(Health::Connected));
    view! {
        <section class="real" aria-labelledby="real-title">
            <div class="section-head">
                <h3 id="real-title">{move || format!("On a real {}", server())}</h3>
                <button
                    class="primary"
                    on:click=run
                    disabled=move || !available() || lab.real.get() == RealRun::Running
                    data-testid=move || match database.get() {
                        Database::Postgresql => "run-postgres",
                        Database::Innodb => "run-mariadb",
                    }
                >
                    {move || format!("Run on {}", server())}
                </button>
            </div>
            <p class="muted" data-testid="health">
                {move || match health() {
                    None => "Looking for the server…".to_string(),
                    Some(Health::Connected) => format!("The server is here: the same schedule runs on {} with one connection per buyer, in a {} of its own.", server(), if database.get() == Database::Postgresql { "schema" } else { "database" }),
                    Some(Health::DatabaseDown) => format!("The server is up but cannot reach {} right now: the page simulates only.", server()),
                    Some(Health::NoServer) => "Simulation only: this page has no Last Seat server behind it. Real runs need the server (scripts/run); everything else works here.".to_string(),
                }}
            </p>
            {move || match lab.real.get() {
                RealRun::NotRun => ().into_any(),
                RealRun::Running => view! { <p class="muted" role="status">{format!("Running on {}…", server())}</p> }.into_any(),
                RealRun::Failed(why) => view! { <p class="notice" role="alert" data-testid="real-result">{why}</p> }.into_any(),
                RealRun::Done(report) => view! { <Comparison report=*report /> }.into_any(),
            }}
        </section>
    }
}

#[component]
fn Comparison(report: api::Report) -> impl IntoView {
    let lab = use_lab();
    // The SQL each step sent (a Redis step's command), from the model's own run of the
    // schedule (the server's simulated outcome is the same run).
    let sql = lab
        .outcome
        .with_untracked(|outcome| {
            let outcome = outcome.as_ref().ok()?;
            Some(
                lab.schedule
                    .with_untracked(|s| shared::export::entry_commands(s, outcome)),
            )
        })
        .unwrap_or_default();
    let Some(real) = report.real.clone() else {
        return view! {
            <p class="notice" role="alert" data-testid="real-result">
                {format!("{} could not run this order as written: {}", lab.schedule.with_untracked(|s| s.database().product()), report.differences.join("; "))}
            </p>
        }
        .into_any();
    };
    let first = first_difference(&report.simulated, &real);
    let server = lab.schedule.with_untracked(|s| s.database().product());
    let redis = lab
        .schedule
        .with_untracked(|s| s.any_op(shared::schedule::Op::is_redis));
    let unit = lab.schedule.with_untracked(|s| s.scenario().clock_unit);
    let headline = if report.agree {
        format!(
            "Identical: the model and {server} agree on all {} steps, the stored rows and the verdict.",
            real.len()
        )
    } else {
        format!(
            "Different: {}",
            report.differences.first().cloned().unwrap_or_default()
        )
    };
    view! {
        <div class="comparison" class:agree=report.agree data-testid="real-result" data-agree=report.agree.to_string()>
            <p class="headline" role="status">{headline}</p>
            {redis.then(|| view! {
                <p class="muted">{format!("Redis is simulated in both runs, like the payment provider: only the database steps went to {server}.")}</p>
            })}
            <div class="table-scroll">
                <table class="data">
                    <thead>
                        <tr><th>"step"</th><th>"who"</th><th>"SQL sent"</th><th>"model"</th><th>{server}</th></tr>
                    </thead>
                    <tbody>
                        {report.simulated.iter().zip(real.iter()).enumerate().map(|(i, (s, r))| {
                            let differs = first == Some(i);
                            let text = sql.get(i).cloned().flatten()
                                .or_else(|| r.op.as_ref().map(|op| model::op_label(op, unit)))
                                .unwrap_or_default();
                            view! {
                                <tr class:differs=differs>
                                    <td class="num">{i + 1}</td>
                                    <td>{model::display_name(&r.actor)}</td>
                                    <td><code class="sql-inline">{text}</code></td>
                                    <td>{describe(s)}</td>
                                    <td>{describe(r)}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            {(report.differences.len() > 1).then(|| view! {
                <ul class="differences">{report.differences.iter().map(|d| view! { <li>{d.clone()}</li> }).collect_view()}</ul>
            })}
        </div>
    }
    .into_any()
}

/// The first entry where the two runs answered differently.
fn first_difference(simulated: &[RunEntry], real: &[RunEntry]) -> Option<usize> {
    simulated
        .iter()
        .zip(real)
        .position(|(s, r)| s.step != r.step || s.waited_for != r.waited_for || s.tables != r.tables)
        .or_else(|| (simulated.len() != real.len()).then(|| simulated.len().min(real.len())))
}

/// One entry's answer: who it waited for, its result or SQLSTATE, and the rows it read.
fn describe(entry: &RunEntry) -> String {
    let waited = if entry.waited_for.is_empty() {
        String::new()
    } else {
        format!(
            "waited for {}, then ",
            entry
                .waited_for
                .iter()
                .map(|a| model::display_name(a))
                .collect::<Vec<_>>()
                .join(" and ")
        )
    };
    // The step is the result's short form, after `waiting>` if it waited (`waiting` alone if
    // it never completed).
    let result = match entry.step.strip_prefix("waiting>").unwrap_or(&entry.step) {
        "waiting" => "still waiting".to_string(),
        short => match short.strip_prefix("error:") {
            Some(code) => format!("ERROR {code}"),
            None => short.to_string(),
        },
    };
    let rows = entry
        .seen
        .iter()
        .map(|(seat, status)| format!("{seat} {status}"))
        .collect::<Vec<_>>();
    if rows.is_empty() {
        format!("{waited}{result}")
    } else {
        format!("{waited}{result} ({})", rows.join(", "))
    }
}
