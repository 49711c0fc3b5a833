//! `backend views [FILE]`: the model's view of every step, for the browser tests to hold the
//! page to. For every built-in scenario (or the given schedule file), in the order the page
//! plays it, one JSON object per line: each buyer's phone (text, tone, the seats it says are
//! theirs, the deadline it shows), each seat of the map (or each row of a counter's picture),
//! the verdict panel, the goal and the reason line at that step, and the link that opens the
//! page there (and a username's picture). A counter's or a username's built-in (`shapes-*`) is
//! printed with every defence that fits its shape on both databases too, each as a scenario of its own ("shapes-balance with lock_row on
//! innodb").

use std::path::Path;

use serde_json::{json, Value};
use shared::link::{self, View};
use shared::scenarios::{self, BuiltIn};
use shared::schedule::Database;
use shared::view::{self, CounterRow, MapSeat, NameRow};
use shared::{Defence, Schedule};

/// Every line of the dump: the built-ins, or the one file at `path`.
pub fn views(path: Option<&Path>) -> Result<Vec<Value>, String> {
    match path {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("{}: cannot read it: {e}", path.display()))?;
            let schedule = Schedule::parse_json(&text)
                .map_err(|e| format!("{}: invalid schedule: {e}", path.display()))?;
            steps(
                &path.display().to_string(),
                None,
                None,
                &view::playable(&schedule),
            )
        }
        None => {
            let mut out = Vec::new();
            for b in scenarios::all() {
                out.extend(steps(b.id, Some(&b), None, &view::playable(&b.schedule()))?);
            }
            for b in scenarios::all() {
                out.extend(counter_variants(&b)?);
            }
            Ok(out)
        }
    }
}

/// A counter built-in with every defence that fits its shape, on both databases, but the
/// built-in itself: each a scenario of its own, in the order the page plays it.
fn counter_variants(b: &BuiltIn) -> Result<Vec<Value>, String> {
    let own = b.schedule();
    let kind = own.scenario().kind;
    let mut out = Vec::new();
    if kind.is_seats() {
        return Ok(out);
    }
    for defence in Defence::ALL.into_iter().filter(|d| d.fits(kind)) {
        for database in Database::ALL {
            let mut file = b.file_with_defence(Some(defence));
            file.engine = database;
            let id = format!("{} with {defence} on {}", b.id, database.id());
            let schedule = Schedule::parse(file).map_err(|e| format!("{id}: {e}"))?;
            if schedule.actors() == own.actors() && database == own.database() {
                continue;
            }
            out.extend(steps(
                &id,
                Some(b),
                Some(defence),
                &view::playable(&schedule),
            )?);
        }
    }
    Ok(out)
}

/// One line per step (0 to the end) of `schedule`'s order: a built-in's with `defence` switched
/// in, if one is.
fn steps(
    id: &str,
    builtin: Option<&BuiltIn>,
    defence: Option<Defence>,
    schedule: &Schedule,
) -> Result<Vec<Value>, String> {
    let outcome = view::run(schedule).map_err(|e| format!("{id}: {e}"))?;
    let deciding = view::deciding_step(schedule);
    let n = outcome.entries.len();
    let mut out = Vec::with_capacity(n + 1);
    for step in 0..=n {
        let verdict = view::verdict_at(schedule, step, deciding);
        let phones: Vec<Value> = view::phones(schedule, &outcome, step)
            .into_iter()
            .map(|(name, p)| {
                json!({
                    "name": name,
                    "text": p.text,
                    "tone": p.tone.name(),
                    "yours": p.yours,
                    "until": p.until,
                })
            })
            .collect();
        // A username's picture stands where the seat map would: it has no seats.
        let seats: Vec<Value> = view::map_at(schedule, &outcome, step)
            .iter()
            .filter(|_| !schedule.scenario().kind.is_username())
            .map(seat)
            .collect();
        let counters: Vec<Value> = view::counters_at(schedule, &outcome, step)
            .iter()
            .map(counter)
            .collect();
        let name = view::name_at(schedule, &outcome, step).map(|n| name_row(&n));
        let reason = match step {
            0 => String::new(),
            k => outcome.entries[k - 1].trace.reason.clone(),
        };
        let link = builtin.map(|b| {
            let token = link::encode(&View::of(b.chapter, b.id, defence, schedule, step));
            format!("/chapter/{}?s={token}", b.chapter)
        });
        out.push(json!({
            "scenario": id,
            "chapter": builtin.map(|b| b.chapter),
            "step": step,
            "steps": n,
            "link": link,
            "phones": phones,
            "seats": seats,
            "counters": counters,
            "name": name,
            "verdict": {
                "decided": verdict.decided,
                "deciding": verdict.deciding,
                "headline": verdict.headline,
                "story": verdict.story,
                "bad": verdict.bad,
            },
            "goal": builtin.map(|b| json!({
                "text": b.goal,
                "met": view::goal_at(b, schedule, step),
            })),
            "reason": reason,
        }));
    }
    Ok(out)
}

/// A seat of the map, as its fields stand.
fn seat(s: &MapSeat) -> Value {
    // Keyed as the page's data attributes are (`data-pending-status` is `pendingStatus` in the
    // DOM's dataset), so the browser test compares every attribute the page draws.
    json!({
        "id": s.id,
        "status": s.status.as_sql(),
        "stored": s.stored.as_sql(),
        "holder": s.holder,
        "minutes_left": s.minutes_left,
        "tickets": s.tickets,
        "told": s.told,
        "redis": s.redis.as_ref().map(|(holder, left)| json!({ "holder": holder, "minutes_left": left })),
        "lock": s.lock,
        "queue": s.queue,
        "pending": s.pending.as_ref().map(|w| &w.by),
        "pendingStatus": s.pending.as_ref().map(|w| w.status.as_sql()),
        "pendingTicket": s.pending_ticket,
        "double": s.double(),
    })
}

/// A counter row of the picture, keyed as the page's data attributes are.
/// A username's picture, as the page's data attributes mirror it.
fn name_row(n: &NameRow) -> Value {
    json!({
        "id": n.id,
        "accounts": n.accounts,
        "state": n.state().name(),
        "claimedBy": n.claimed_by,
        "told": n.told,
        "lock": n.lock,
        "queue": n.queue,
        "creating": n.creating,
        "claiming": n.claiming,
        "sentence": n.sentence(),
    })
}

fn counter(c: &CounterRow) -> Value {
    json!({
        "id": c.id,
        "kind": c.kind.id(),
        "value": c.value,
        "state": c.state().name(),
        "told": c.told,
        "lock": c.lock,
        "queue": c.queue,
        "pending": c.pending.as_ref().map(|p| &p.0),
        "pendingValue": c.pending.as_ref().map(|p| p.1),
        "sentence": c.sentence(),
    })
}
