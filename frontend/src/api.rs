//! Every call from the page to the server. The page never needs them: without a server it is a
//! simulator only, and says so.

use gloo_net::http::Request;

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
