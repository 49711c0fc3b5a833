//! `backend load`: drives the real room API of a running server with N concurrent clients, as a
//! release day would. It makes a room with the defence and seats asked for, joins the buyers
//! (100 per client with a duration, one without), starts a round, and each client taps a random
//! seat as each of its buyers in turn (and pays, where the defence has a payment), again and
//! again until the duration is over (or once, without one). A projector's event stream watches
//! how long a winning tap takes to show. Then it prints
//! the attempts per second, the p50 and p99 latency of an attempt, how many buyers were told
//! they got each seat, and the double bookings: from what the buyers were told and from the
//! server's own scoreboard.
//!
//! `client` calls the room API, `projector` watches the event stream, `report` adds up and
//! words what came out.

mod client;
mod projector;
mod report;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::Rng;
use serde_json::json;

use client::{expect, join_all, Client};
use projector::{watch, Pending};

pub use report::{describe, Report};

/// What to run.
#[derive(Clone, Debug)]
pub struct Load {
    pub url: String,
    pub defence: String,
    pub buyers: usize,
    pub seats: u32,
    pub gap_ms: u32,
    pub duration: Option<Duration>,
    /// Each buyer cancels a seat it won at once (the seats stay free, taps keep winning).
    pub release: bool,
    /// A general-admission round of this many tickets instead of numbered seats: every buyer
    /// asks for a ticket of the section.
    pub tickets: Option<u32>,
}

/// What the report calls a general-admission round's section, where a seat's id would be.
pub const SECTION: &str = "the section";

/// Runs `load`, printing progress to stderr every second.
pub async fn run(load: &Load) -> Result<Report, String> {
    let client = Arc::new(Client {
        http: reqwest::Client::builder()
            .pool_max_idle_per_host(load.buyers * 2)
            .build()
            .map_err(|e| e.to_string())?,
        base: load.url.trim_end_matches('/').to_string(),
    });
    let settings = match load.tickets {
        Some(tickets) => json!({ "defence": load.defence, "kind": "general_admission",
                                 "tickets": tickets, "gap_ms": load.gap_ms }),
        None => json!({ "defence": load.defence, "seats": load.seats, "gap_ms": load.gap_ms }),
    };
    let room = expect(
        "creating the room",
        client.post("/api/rooms", None, settings).await?,
        201,
    )?;
    let code = room["code"].as_str().ok_or("no room code")?.to_string();
    let secret = room["secret"].as_str().ok_or("no secret")?.to_string();
    let pays = shared::Defence::parse(&load.defence).is_some_and(shared::Defence::pays);
    expect(
        "starting the round",
        client
            .post(
                &format!("/api/rooms/{code}/rounds"),
                Some(&secret),
                json!({ "countdown_ms": 0 }),
            )
            .await?,
        200,
    )?;
    // A section's buyers ask for no seat in particular (its one id stands for it in the report).
    let seats: Vec<String> = match load.tickets {
        Some(_) => vec![SECTION.to_string()],
        None => client.get(&format!("/api/rooms/{code}")).await?["seats"]
            .as_array()
            .ok_or("no seats in the room's state")?
            .iter()
            .filter_map(|s| s["id"].as_str().map(str::to_string))
            .collect(),
    };
    let section = load.tickets.is_some();
    let attempts = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let told = Arc::new(Mutex::new(BTreeMap::<String, u64>::new()));
    let refused = Arc::new(AtomicU64::new(0));
    let buyers = join_all(&client, &code, load).await?;
    let pending: Pending = Arc::default();
    let projector = Arc::new(Mutex::new(Vec::new()));
    let watcher = tokio::spawn(watch(
        client.clone(),
        code.clone(),
        pending.clone(),
        projector.clone(),
    ));
    // The stream's first event (the whole state) before anyone taps.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    let progress = {
        let (attempts, stop) = (attempts.clone(), stop.clone());
        tokio::spawn(async move {
            let mut last = 0;
            while !stop.load(Ordering::SeqCst) {
                tokio::time::sleep(Duration::from_secs(1)).await;
                let now = attempts.load(Ordering::SeqCst);
                eprintln!(
                    "{:>5.1} s  {now} attempts  {}/s",
                    started.elapsed().as_secs_f64(),
                    now - last
                );
                last = now;
            }
        })
    };
    let mut tasks = Vec::new();
    for tokens in buyers {
        let (client, code, seats) = (client.clone(), code.clone(), seats.clone());
        let (attempts, latencies, told, refused) = (
            attempts.clone(),
            latencies.clone(),
            told.clone(),
            refused.clone(),
        );
        let deadline = load.duration.map(|d| started + d);
        let release = load.release;
        let (pending, projector) = (pending.clone(), projector.clone());

        tasks.push(tokio::spawn(async move {
            let mut round = 0u64;
            loop {
                round += 1;
                let token = &tokens[(round as usize - 1) % tokens.len()];
                let seat = seats[rand::thread_rng().gen_range(0..seats.len())].clone();
                let mut holding = false;
                let release = release && !pays;
                for path in ["taps", "pay", "cancel"] {
                    if path == "pay" && !(pays && holding) {
                        continue;
                    }
                    if path == "cancel" && !(release && holding) {
                        break;
                    }
                    let body = if path == "taps" && section {
                        json!({ "seats": [] })
                    } else if path == "taps" {
                        json!({ "seats": [seat] })
                    } else {
                        json!({})
                    };
                    let sent = Instant::now();
                    let (status, answer) = client
                        .post(&format!("/api/rooms/{code}/{path}"), Some(token), body)
                        .await?;
                    latencies.lock().expect("latencies").push(sent.elapsed());
                    attempts.fetch_add(1, Ordering::SeqCst);
                    if status != 200 {
                        refused.fetch_add(1, Ordering::SeqCst);
                        break;
                    }
                    holding = answer["holding"] == true;
                    if path == "cancel" {
                        // Given back before the projector showed it, the seat may never show
                        // (held and freed between two of its states): its next tap is timed
                        // from that tap, not from this one.
                        let mut pending = pending.lock().expect("pending");
                        if pending.sent.remove(&seat).is_some() {
                            pending.unseen += 1;
                        }
                        pending.shown.remove(&seat);
                        break;
                    }
                    if holding && path == "taps" {
                        let mut pending = pending.lock().expect("pending");
                        match pending.shown.remove(&seat) {
                            Some(shown) => projector.lock().expect("seen").push(shown - sent),
                            None => {
                                pending.sent.entry(seat.clone()).or_insert(sent);
                            }
                        }
                    }
                }
                // A seat given back at once was held, never sold: not counted as told.
                if holding && !release {
                    *told.lock().expect("told").entry(seat).or_default() += 1;
                }
                if deadline.is_none_or(|d| Instant::now() >= d) {
                    return Ok::<(), String>(());
                }
            }
        }));
    }
    let mut first_error = None;
    for t in tasks {
        if let Ok(Err(e)) = t.await {
            first_error.get_or_insert(e);
        }
    }
    let elapsed = started.elapsed();
    stop.store(true, Ordering::SeqCst);
    progress.abort();
    if let Some(e) = first_error {
        return Err(e);
    }
    // The last changes on their way to the projector.
    tokio::time::sleep(Duration::from_millis(500)).await;
    watcher.abort();
    let mut to_projector = std::mem::take(&mut *projector.lock().expect("projector"));
    to_projector.sort();
    let unseen = pending.lock().expect("pending").unseen;
    let state = client.get(&format!("/api/rooms/{code}")).await?;
    let mut latencies = std::mem::take(&mut *latencies.lock().expect("latencies"));
    latencies.sort();
    let told = std::mem::take(&mut *told.lock().expect("told"));
    Ok(Report {
        attempts: attempts.load(Ordering::SeqCst),
        refused: refused.load(Ordering::SeqCst),
        elapsed,
        latencies,
        told,
        tickets: load.tickets,
        scoreboard: state["scoreboard"].clone(),
        to_projector,
        unseen,
    })
}
