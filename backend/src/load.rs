//! `backend load`: drives the real room API of a running server with N concurrent clients, as a
//! release day would. It makes a room with the defence and seats asked for, joins the buyers
//! (100 per client with a duration, one without), starts a round, and each client taps a random
//! seat as each of its buyers in turn (and pays, where the defence has a payment), again and
//! again until the duration is over (or once, without one). A projector's event stream watches
//! how long a winning tap takes to show. Then it prints
//! the attempts per second, the p50 and p99 latency of an attempt, how many buyers were told
//! they got each seat, and the double bookings: from what the buyers were told and from the
//! server's own scoreboard.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::Rng;
use serde_json::{json, Value};

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
}

/// What came out.
#[derive(Debug, Default)]
pub struct Report {
    pub attempts: u64,
    pub refused: u64,
    pub elapsed: Duration,
    /// Every attempt's latency, sorted.
    pub latencies: Vec<Duration>,
    /// seat → buyers told they got it.
    pub told: BTreeMap<String, u64>,
    pub scoreboard: Value,
    /// From a winning tap's sending to the seat's change on the projector's event stream.
    pub to_projector: Vec<Duration>,
    /// Winning taps whose seat was given back before the projector showed it (not timed).
    pub unseen: u64,
}

impl Report {
    pub fn percentile(&self, p: f64) -> Duration {
        percentile(&self.latencies, p)
    }

    /// The `p` percentile of `to_projector`.
    pub fn projector_percentile(&self, p: f64) -> Duration {
        percentile(&self.to_projector, p)
    }

    pub fn per_second(&self) -> f64 {
        self.attempts as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Seats two or more buyers were told they got.
    pub fn double_bookings(&self) -> usize {
        self.told.values().filter(|n| **n > 1).count()
    }
}

/// The `p` percentile of sorted `values`.
fn percentile(values: &[Duration], p: f64) -> Duration {
    if values.is_empty() {
        return Duration::ZERO;
    }
    values[((values.len() as f64 - 1.0) * p).round() as usize]
}

/// Watches the room's event stream as the projector does: each seat that a winning tap took,
/// and how long after the tap was sent the stream showed it taken.
async fn watch(
    client: Arc<Client>,
    code: String,
    pending: Pending,
    seen: Arc<Mutex<Vec<Duration>>>,
) {
    let Ok(mut stream) = client
        .http
        .get(format!("{}/api/rooms/{code}/events", client.base))
        .send()
        .await
    else {
        return;
    };
    let mut buffer = String::new();
    while let Ok(Some(chunk)) = stream.chunk().await {
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            let Some(state) = event
                .lines()
                .find_map(|l| l.strip_prefix("data:"))
                .and_then(|d| serde_json::from_str::<Value>(d.trim_start()).ok())
            else {
                continue;
            };
            let now = Instant::now();
            let mut pending = pending.lock().expect("pending");
            for seat in state["seats"].as_array().into_iter().flatten() {
                let Some(id) = seat["id"].as_str() else {
                    continue;
                };
                if seat["status"] != "AVAILABLE" || seat["ticket"] == true {
                    match pending.sent.remove(id) {
                        Some(sent) => seen.lock().expect("seen").push(now - sent),
                        // Shown before its tap's answer came back: timed when that answer does.
                        None => {
                            pending.shown.entry(id.to_string()).or_insert(now);
                        }
                    }
                } else {
                    pending.shown.remove(id);
                }
            }
        }
    }
}

/// Seats taken by a winning tap whose change the projector has not shown yet, with when the tap
/// was sent; and seats the projector showed taken before their tap's answer came back, with when
/// it showed them (the stream can be quicker than the answer).
type Pending = Arc<Mutex<Taken>>;

#[derive(Default)]
struct Taken {
    sent: std::collections::HashMap<String, Instant>,
    shown: std::collections::HashMap<String, Instant>,
    /// Seats given back before the projector showed them (not timed).
    unseen: u64,
}

struct Client {
    http: reqwest::Client,
    base: String,
}

impl Client {
    async fn post(
        &self,
        path: &str,
        bearer: Option<&str>,
        body: Value,
    ) -> Result<(u16, Value), String> {
        let mut request = self.http.post(format!("{}{path}", self.base)).json(&body);
        if let Some(b) = bearer {
            request = request.bearer_auth(b);
        }
        let response = request.send().await.map_err(|e| format!("{path}: {e}"))?;
        let status = response.status().as_u16();
        Ok((status, response.json().await.unwrap_or(Value::Null)))
    }

    async fn get(&self, path: &str) -> Result<Value, String> {
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .map_err(|e| format!("{path}: {e}"))?;
        response.json().await.map_err(|e| format!("{path}: {e}"))
    }
}

fn expect(what: &str, (status, body): (u16, Value), ok: u16) -> Result<Value, String> {
    if status == ok {
        Ok(body)
    } else {
        Err(format!(
            "{what}: the server answered {status}: {}",
            body["error"]["message"].as_str().unwrap_or("(no message)")
        ))
    }
}

/// Buyers each client taps as in turn, joined before the clock starts (one each without a
/// duration): enough that no one buyer meets the per-participant rate limit, nor uses up the
/// operations a buyer has in a round (`MAX_OPS_PER_ACTOR`) within a run of a few seconds.
const BUYERS_PER_CLIENT: usize = 100;

/// Joins every client's buyers; their tokens, per client.
async fn join_all(
    client: &Arc<Client>,
    code: &str,
    load: &Load,
) -> Result<Vec<Vec<String>>, String> {
    let per_client = if load.duration.is_some() {
        BUYERS_PER_CLIENT
    } else {
        1
    };
    eprintln!("joining {} buyers", per_client * load.buyers);
    let joins = (0..load.buyers).map(|k| {
        let (client, code) = (client.clone(), code.to_string());
        tokio::spawn(async move {
            let mut tokens = Vec::with_capacity(per_client);
            for j in 0..per_client {
                let body = json!({ "name": format!("buyer {k} {j}") });
                let path = format!("/api/rooms/{code}/participants");
                let joined = expect("joining", client.post(&path, None, body).await?, 201)?;
                tokens.push(joined["token"].as_str().ok_or("no token")?.to_string());
            }
            Ok::<_, String>(tokens)
        })
    });
    let mut all = Vec::new();
    for join in joins.collect::<Vec<_>>() {
        all.push(join.await.map_err(|e| e.to_string())??);
    }
    Ok(all)
}

/// Runs `load`, printing progress to stderr every second.
pub async fn run(load: &Load) -> Result<Report, String> {
    let client = Arc::new(Client {
        http: reqwest::Client::builder()
            .pool_max_idle_per_host(load.buyers * 2)
            .build()
            .map_err(|e| e.to_string())?,
        base: load.url.trim_end_matches('/').to_string(),
    });
    let settings = json!({ "defence": load.defence, "seats": load.seats, "gap_ms": load.gap_ms });
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
    let seats: Vec<String> = client.get(&format!("/api/rooms/{code}")).await?["seats"]
        .as_array()
        .ok_or("no seats in the room's state")?
        .iter()
        .filter_map(|s| s["id"].as_str().map(str::to_string))
        .collect();
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
                    let body = if path == "taps" {
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
        scoreboard: state["scoreboard"].clone(),
        to_projector,
        unseen,
    })
}

/// The report in words.
pub fn describe(load: &Load, r: &Report) -> String {
    let mut out = format!(
        "{} buyers, {} on {} seats, gap {} ms: {} attempts in {:.1} s = {:.0} attempts/s; p50 {:.1} ms, p99 {:.1} ms",
        load.buyers,
        load.defence,
        load.seats,
        load.gap_ms,
        r.attempts,
        r.elapsed.as_secs_f64(),
        r.per_second(),
        r.percentile(0.5).as_secs_f64() * 1000.0,
        r.percentile(0.99).as_secs_f64() * 1000.0,
    );
    if r.refused > 0 {
        out.push_str(&format!(
            " ({} refused by the server: rate limit or busy)",
            r.refused
        ));
    }
    out.push_str(&format!(
        "\nfrom a winning tap to the projector: p50 {:.1} ms, p99 {:.1} ms over {} seats",
        r.projector_percentile(0.5).as_secs_f64() * 1000.0,
        r.projector_percentile(0.99).as_secs_f64() * 1000.0,
        r.to_projector.len()
    ));
    if r.unseen > 0 {
        out.push_str(&format!(
            " ({} taps given back before the projector showed them: not timed)",
            r.unseen
        ));
    }
    if r.told.len() <= 40 {
        out.push_str("\nbuyers told they got each seat:");
        for (seat, n) in &r.told {
            out.push_str(&format!(" {seat}:{n}"));
        }
    } else {
        let once = r.told.values().filter(|n| **n == 1).count();
        out.push_str(&format!(
            "\nbuyers told they got each seat: {once} seats to one buyer, {} to two or more",
            r.told.len() - once
        ));
    }
    out.push_str(&format!(
        "\ndouble bookings: {} (told by the buyers), {} (the server's scoreboard); scoreboard {}",
        r.double_bookings(),
        r.scoreboard["double_bookings"],
        r.scoreboard
    ));
    out
}
