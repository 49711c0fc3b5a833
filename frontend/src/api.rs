//! Every call from the page to the server. The page never needs them: without a server it is a
//! simulator only, and says so.

use serde_json::Value;
use shared::schedule::{Database, Op, ScheduleFile};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

mod proof;

pub use proof::{verify, Proof};

/// One request with `fetch`: the status and the body's text, or `None` if there was no answer.
async fn fetch(method: &str, url: &str, json: Option<&str>) -> Option<(u16, String)> {
    let response = request(method, url, json).await?;
    Some((response.status(), text_of(&response).await))
}

/// The body's text, all of it; empty if it cannot be read.
async fn text_of(response: &web_sys::Response) -> String {
    let text = match response.text() {
        Ok(promise) => JsFuture::from(promise)
            .await
            .ok()
            .and_then(|t| t.as_string()),
        Err(_) => None,
    };
    text.unwrap_or_default()
}

/// One request with `fetch`: the response as soon as its head is in.
async fn request(method: &str, url: &str, json: Option<&str>) -> Option<web_sys::Response> {
    let init = web_sys::RequestInit::new();
    init.set_method(method);
    if let Some(json) = json {
        let headers = web_sys::Headers::new().ok()?;
        headers.set("content-type", "application/json").ok()?;
        init.set_headers(&headers);
        init.set_body(&JsValue::from_str(json));
    }
    let promise = web_sys::window()?.fetch_with_str_and_init(url, &init);
    JsFuture::from(promise).await.ok()?.dyn_into().ok()
}

/// What `GET /api/health` told us about the server and its database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Health {
    /// The server answered and reached the database.
    Connected,
    /// The server answered but could not reach the database (it says 503).
    DatabaseDown,
    /// No Last Seat server here: a static host, a file, or the network is gone.
    NoServer,
}

/// Asks the server whether real runs on PostgreSQL are possible. Never fails: any surprise
/// means `NoServer`.
pub async fn health() -> Health {
    health_of(Database::Postgresql).await
}

/// Asks the server whether real runs on `database` are possible (`?database=innodb` asks about
/// its MariaDB).
pub async fn health_of(database: Database) -> Health {
    let path = match database {
        Database::Postgresql => "/api/health".to_string(),
        other => format!("/api/health?database={}", other.id()),
    };
    let Some((status, text)) = fetch("GET", &path, None).await else {
        return Health::NoServer;
    };
    // A static host may answer any path with index.html: only a JSON object is the real server.
    classify(status, serde_json::from_str(&text).ok())
}

/// The meaning of a health answer, apart from the fetching.
fn classify(status: u16, body: Option<Value>) -> Health {
    // The server answers `{"status": "ok", "database": "up"}`, or 503 when PostgreSQL is away.
    match (status, body) {
        (200..=299, Some(Value::Object(fields))) => match fields.get("database") {
            None => Health::Connected,
            Some(database) if database == "up" => Health::Connected,
            Some(_) => Health::DatabaseDown,
        },
        (503, Some(Value::Object(_))) => Health::DatabaseDown,
        _ => Health::NoServer,
    }
}

/// The real run of the lab's schedule, as far as it has got.
#[derive(Clone, Debug, PartialEq)]
pub enum RealRun {
    NotRun,
    Running,
    Done(Box<Report>),
    /// The server refused or could not run it; the sentence says why and what to do.
    Failed(String),
}

/// What `POST /api/runs` answers: the simulated and the real outcome, compared; only as much of
/// them as the page shows. (Read through `serde_json::Value` rather than `shared::Outcome`'s
/// `Deserialize`, which would add its whole generated code to the page for one table.)
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub agree: bool,
    /// The entries of the simulated outcome.
    pub simulated: Vec<RunEntry>,
    /// The entries of the real outcome; `None` when PostgreSQL could not run the schedule as
    /// written.
    pub real: Option<Vec<RunEntry>>,
    pub differences: Vec<String>,
}

/// One entry of an outcome (`shared::outcome::Entry`), as the comparison table shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunEntry {
    /// The actor whose operation this entry sent.
    pub actor: String,
    /// The operation, if the page can read it.
    pub op: Option<Op>,
    /// The step as `expect.steps` writes it: `ok:1`, `waiting>error:40001`, `waiting`, ….
    pub step: String,
    /// The actors it was found waiting for.
    pub waited_for: Vec<String>,
    /// The rows a `read` or `lock` returned: seat and status (`AVAILABLE`, …).
    pub seen: Vec<(String, String)>,
    /// The committed tables after this entry (compared, never shown).
    pub tables: Value,
}

impl Report {
    fn from_json(v: &Value) -> Option<Report> {
        Some(Report {
            agree: v["agree"].as_bool()?,
            simulated: entries(&v["simulated"])?,
            real: match &v["real"] {
                Value::Null => None,
                real => Some(entries(real)?),
            },
            differences: strings(&v["differences"]),
        })
    }
}

/// An outcome's entries.
fn entries(outcome: &Value) -> Option<Vec<RunEntry>> {
    outcome["entries"]
        .as_array()?
        .iter()
        .map(|e| {
            Some(RunEntry {
                actor: e["actor"].as_str()?.to_string(),
                op: Op::from_json(&e["op"]),
                step: e["step"].as_str()?.to_string(),
                waited_for: strings(&e["waited_for"]),
                seen: e["seen"]
                    .as_array()
                    .map(|rows| {
                        rows.iter()
                            .map(|r| (text(&r["seat"]), text(&r["status"])))
                            .collect()
                    })
                    .unwrap_or_default(),
                tables: e["tables"].clone(),
            })
        })
        .collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|items| items.iter().map(text).collect())
        .unwrap_or_default()
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// Runs the schedule on the server's PostgreSQL, one connection per buyer.
pub async fn run(file: &ScheduleFile) -> Result<Report, String> {
    let body = serde_json::to_string(file).map_err(|e| e.to_string())?;
    let (status, text) = fetch("POST", "/api/runs", Some(&body))
        .await
        .ok_or_else(no_answer)?;
    let json = serde_json::from_str::<Value>(&text).ok();
    if (200..300).contains(&status) {
        return json.as_ref().and_then(Report::from_json).ok_or_else(|| {
            "The server's answer was not a run report: is this a Last Seat server?".to_string()
        });
    }
    Err(refusal("run", status, json))
}

/// No answer at all to a call that needs the server.
fn no_answer() -> String {
    "The server did not answer: real runs need the Last Seat server (scripts/run).".to_string()
}

/// Why the server refused `what` (its JSON message, if it sent one), in a sentence.
fn refusal(what: &str, status: u16, json: Option<Value>) -> String {
    let message = json.and_then(|v| v["error"]["message"].as_str().map(str::to_string));
    match (status, message) {
        (_, Some(message)) => format!("The server refused the {what} ({status}): {message}"),
        (404, None) => "No Last Seat server here: this page is served statically, so it \
                        simulates only. Start the server with scripts/run for real runs."
            .to_string(),
        (_, None) => format!("The server answered {status} without a reason."),
    }
}
