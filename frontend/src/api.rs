//! Every call from the page to the server. The page never needs them: without a server it is a
//! simulator only, and says so.

use gloo_net::http::Request;
use serde::Deserialize;
use shared::schedule::ScheduleFile;
use shared::Outcome;

/// What `GET /api/health` told us about the server and its database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Health {
    /// The server answered and reached PostgreSQL.
    Connected,
    /// The server answered but could not reach PostgreSQL (it says 503).
    DatabaseDown,
    /// No Last Seat server here: a static host, a file, or the network is gone.
    NoServer,
}

/// Asks the server whether real runs are possible. Never fails: any surprise means `NoServer`.
pub async fn health() -> Health {
    let Ok(response) = Request::get("/api/health").send().await else {
        return Health::NoServer;
    };
    // A static host may answer any path with index.html: only a JSON object is the real server.
    let json = response
        .text()
        .await
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok());
    classify(response.status(), json)
}

/// The meaning of a health answer, apart from the fetching.
fn classify(status: u16, body: Option<serde_json::Value>) -> Health {
    // The server answers `{"status": "ok", "database": "up"}`, or 503 when PostgreSQL is away.
    match (status, body) {
        (200..=299, Some(serde_json::Value::Object(fields))) => match fields.get("database") {
            None => Health::Connected,
            Some(database) if database == "up" => Health::Connected,
            Some(_) => Health::DatabaseDown,
        },
        (503, Some(serde_json::Value::Object(_))) => Health::DatabaseDown,
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

/// What `POST /api/runs` answers: the simulated and the real outcome, compared.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Report {
    pub agree: bool,
    pub simulated: Outcome,
    /// `None` when PostgreSQL could not run the schedule as written.
    pub real: Option<Outcome>,
    pub differences: Vec<String>,
}

/// Runs the schedule on the server's PostgreSQL, one connection per buyer.
pub async fn run(file: &ScheduleFile) -> Result<Report, String> {
    let body = serde_json::to_string(file).map_err(|e| e.to_string())?;
    let request = Request::post("/api/runs")
        .header("content-type", "application/json")
        .body(body)
        .map_err(|e| e.to_string())?;
    let response = request.send().await.map_err(|_| {
        "The server did not answer: real runs need the Last Seat server (scripts/run).".to_string()
    })?;
    let status = response.status();
    let text = response.text().await.unwrap_or_default();
    if (200..300).contains(&status) {
        return serde_json::from_str(&text).map_err(|_| {
            "The server's answer was not a run report: is this a Last Seat server?".to_string()
        });
    }
    let message = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_string));
    Err(match (status, message) {
        (_, Some(message)) => format!("The server refused the run ({status}): {message}"),
        (404, None) => "No Last Seat server here: this page is served statically, so it \
                        simulates only. Start the server with scripts/run for real runs."
            .to_string(),
        (_, None) => format!("The server answered {status} without a reason."),
    })
}
