//! `POST /api/verify` from the page: every order of the lab's programs on PostgreSQL against
//! the model, read line by line as the server streams it (one JSON object per line). The
//! server writes the findings in words; the page shows them as they are. The lines are read as
//! `serde_json::Value`s and the stream through `Reflect`, which keeps typed deserialisers and
//! stream bindings out of the page.

use serde_json::Value;
use shared::schedule::ScheduleFile;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::js_sys::{Function, Promise, Reflect, Uint8Array};

use super::{no_answer, refusal, request, strings, text, text_of};

/// Where a proof stands, or what it found.
#[derive(Clone, Debug, PartialEq)]
pub struct Proof {
    /// Whether PostgreSQL agreed with the model on every order (or took a race the model
    /// named); `None` while the proof runs.
    pub agree: Option<bool>,
    /// In words: the progress, why it could not run, or the findings.
    pub words: String,
    /// The first order that differed (a disagreement, else a race taken), as actor names:
    /// loadable with `Lab::load_order`.
    pub order: Option<Vec<String>>,
}

impl Proof {
    fn from_json(v: &Value) -> Option<Proof> {
        let first = [&v["first_disagreement"], &v["first_race"]]
            .into_iter()
            .find_map(|d| d.get("order"));
        Some(Proof {
            agree: Some(v["agree"].as_bool()?),
            words: format!("{} {}", text(&v["headline"]), text(&v["detail"])),
            order: first.map(strings),
        })
    }
}

/// Proves the schedule's programs on the server's PostgreSQL, every order; `progress` is told
/// the orders run and the orders to run as the server reports them.
pub async fn verify(
    file: &ScheduleFile,
    mut progress: impl FnMut(u64, u64),
) -> Result<Proof, String> {
    let body = serde_json::to_string(file).map_err(|e| e.to_string())?;
    let response = request("POST", "/api/verify", Some(&body))
        .await
        .ok_or_else(no_answer)?;
    let status = response.status();
    if !(200..300).contains(&status) {
        let json = serde_json::from_str(&text_of(&response).await).ok();
        return Err(refusal("proof", status, json));
    }
    let mut summary = None;
    let read = each_line(&response, |line| {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            return false;
        };
        let p = &v["progress"];
        if let (Some(run), Some(orders)) = (p["run"].as_u64(), p["orders"].as_u64()) {
            progress(run, orders);
        }
        summary = Proof::from_json(&v["summary"]);
        summary.is_none()
    })
    .await;
    summary.ok_or_else(|| match read {
        Some(()) => "The server's answer was not a proof: is this a Last Seat server?".to_string(),
        None => "The server stopped answering before the end: it may have been restarted. Try \
                 again."
            .to_string(),
    })
}

/// Tells `line` every line of the body as it arrives, until it says stop or the body ends;
/// `None` if the body could not be read to its end.
async fn each_line(response: &web_sys::Response, mut line: impl FnMut(&str) -> bool) -> Option<()> {
    let method = |target: &JsValue, name: &str| -> Option<Function> {
        Reflect::get(target, &JsValue::from_str(name))
            .ok()?
            .dyn_into()
            .ok()
    };
    let body = Reflect::get(response, &JsValue::from_str("body")).ok()?;
    let reader = method(&body, "getReader")?.call0(&body).ok()?;
    let read = method(&reader, "read")?;
    let mut pending: Vec<u8> = Vec::new();
    loop {
        let next: Promise = read.call0(&reader).ok()?.dyn_into().ok()?;
        let chunk = JsFuture::from(next).await.ok()?;
        if Reflect::get(&chunk, &JsValue::from_str("done"))
            .ok()?
            .is_truthy()
        {
            return Some(());
        }
        let bytes = Reflect::get(&chunk, &JsValue::from_str("value")).ok()?;
        pending.extend(Uint8Array::new(&bytes).to_vec());
        while let Some(end) = pending.iter().position(|&b| b == b'\n') {
            let text: Vec<u8> = pending.drain(..=end).collect();
            if !line(std::str::from_utf8(&text).ok()?) {
                return Some(());
            }
        }
    }
}
