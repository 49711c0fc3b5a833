//! The room API as a load run's clients call it: a request and its answer, the status it must
//! have, and every client's buyers joined.

use std::sync::Arc;

use serde_json::{json, Value};

use super::Load;

pub(super) struct Client {
    pub(super) http: reqwest::Client,
    pub(super) base: String,
}

impl Client {
    pub(super) async fn post(
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

    pub(super) async fn get(&self, path: &str) -> Result<Value, String> {
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .map_err(|e| format!("{path}: {e}"))?;
        response.json().await.map_err(|e| format!("{path}: {e}"))
    }
}

pub(super) fn expect(what: &str, (status, body): (u16, Value), ok: u16) -> Result<Value, String> {
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
pub(super) async fn join_all(
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
