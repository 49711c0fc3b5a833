//! Every call from the room's pages to the server: JSON in and out, the facilitator's secret or
//! the participant's token as `Authorization: Bearer` (never in a URL), and every refusal as the
//! server's own sentence.

use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// `method url` with `body` as JSON, as `bearer`: the answer's JSON, or what went wrong in
/// words (the server's message, or that it did not answer).
pub async fn call(
    method: &str,
    url: &str,
    body: Option<&Value>,
    bearer: Option<&str>,
) -> Result<Value, String> {
    let response = send(method, url, body, bearer).await.ok_or_else(|| {
        "the server did not answer: check the connection and try again".to_string()
    })?;
    let text = match response.text() {
        Ok(p) => JsFuture::from(p).await.ok().and_then(|t| t.as_string()),
        Err(_) => None,
    }
    .unwrap_or_default();
    let json: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    if response.ok() {
        return Ok(json);
    }
    Err(json["error"]["message"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| format!("the server answered {}", response.status())))
}

/// A GET of `url`.
pub async fn get(url: &str) -> Result<Value, String> {
    call("GET", url, None, None).await
}

async fn send(
    method: &str,
    url: &str,
    body: Option<&Value>,
    bearer: Option<&str>,
) -> Option<web_sys::Response> {
    let init = web_sys::RequestInit::new();
    init.set_method(method);
    let headers = web_sys::Headers::new().ok()?;
    if let Some(body) = body {
        headers.set("content-type", "application/json").ok()?;
        init.set_body(&JsValue::from_str(&body.to_string()));
    }
    if let Some(bearer) = bearer {
        headers
            .set("authorization", &format!("Bearer {bearer}"))
            .ok()?;
    }
    init.set_headers(&headers);
    let promise = web_sys::window()?.fetch_with_str_and_init(url, &init);
    JsFuture::from(promise).await.ok()?.dyn_into().ok()
}

/// The tab's own storage (a participant's token, a facilitator's secret): it lives as long as
/// the tab, so a reload keeps the phone, and it never goes into an address.
pub fn stored(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

pub fn store(key: &str, value: &str) {
    if let Some(s) = storage() {
        let _ = s.set_item(key, value);
    }
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

/// Sends a POST that outlives the page, at once (not on a later task: the page may be gone).
pub fn post_on_leaving(url: &str, bearer: &str) {
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    // `keepalive` is not in web-sys's stable bindings.
    let _ = js_sys::Reflect::set(&init, &"keepalive".into(), &JsValue::TRUE);
    if let Ok(headers) = web_sys::Headers::new() {
        let _ = headers.set("authorization", &format!("Bearer {bearer}"));
        init.set_headers(&headers);
    }
    if let Some(w) = web_sys::window() {
        let _ = w.fetch_with_str_and_init(url, &init);
    }
}
