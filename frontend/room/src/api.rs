//! Every call from the room's pages to the server: JSON in and out, read as
//! `shared::protocol`'s types, the facilitator's secret or the participant's token as
//! `Authorization: Bearer` (never in a URL), and every refusal as the server's own sentence.

use serde::de::DeserializeOwned;
use serde::Serialize;
use shared::protocol::ErrorBody;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

// Only `read` and `json` are generic: every request shares the rest of the code, which keeps
// the bundle small (a generic request would be compiled once per answer's type).

/// A GET of `url`: the answer's text, or what went wrong in words.
pub async fn get(url: &str) -> Result<String, String> {
    call("GET", url, None, None).await
}

/// A POST of the JSON text `body` to `url`, as `bearer`: the answer's text, or what went wrong
/// in words.
pub async fn post(url: &str, body: String, bearer: Option<&str>) -> Result<String, String> {
    call("POST", url, Some(&body), bearer).await
}

/// An answer's text as `T`. (Why it does not read is not worded: a page that speaks to its own
/// server never meets it, and the words of serde's errors would weigh on the bundle.)
pub fn read<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|_| "the server's answer could not be read".to_string())
}

/// `body` as JSON text, for `post`.
pub fn json(body: &impl Serialize) -> String {
    // Request bodies are structs of strings, numbers and flags: nothing fails to serialise.
    serde_json::to_string(body).unwrap_or_default()
}

/// `method url` with the JSON text `body`, as `bearer`: the answer's text, or what went wrong
/// in words (the server's message, or that it did not answer).
async fn call(
    method: &str,
    url: &str,
    body: Option<&str>,
    bearer: Option<&str>,
) -> Result<String, String> {
    let response = send(method, url, body, bearer).await.ok_or_else(|| {
        "the server did not answer: check the connection and try again".to_string()
    })?;
    let text = match response.text() {
        Ok(p) => JsFuture::from(p).await.ok().and_then(|t| t.as_string()),
        Err(_) => None,
    }
    .unwrap_or_default();
    if response.ok() {
        return Ok(text);
    }
    Err(serde_json::from_str::<ErrorBody>(&text)
        .map(|e| e.error.message)
        .unwrap_or_else(|_| format!("the server answered {}", response.status())))
}

async fn send(
    method: &str,
    url: &str,
    body: Option<&str>,
    bearer: Option<&str>,
) -> Option<web_sys::Response> {
    let init = web_sys::RequestInit::new();
    init.set_method(method);
    let headers = web_sys::Headers::new().ok()?;
    if let Some(body) = body {
        headers.set("content-type", "application/json").ok()?;
        init.set_body(&JsValue::from_str(body));
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
