//! `POST /api/verify` from the page: every order of the lab's programs on PostgreSQL against
//! the model, read line by line as the server streams it (one JSON object per line). The lines
//! are read as `serde_json::Value`s and the reader is reached through `Reflect`, which keeps
//! typed deserialisers and stream bindings out of the page.

use serde_json::Value;
use shared::outcome::Verdict;
use shared::schedule::ScheduleFile;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::js_sys::{Function, Promise, Reflect, Uint8Array};

use super::{no_answer, refusal, request, strings, text_of};

/// What the verification found (the server's summary, as much of it as the page shows).
#[derive(Clone, Debug, PartialEq)]
pub struct Proof {
    /// Orders run to their end.
    pub run: u64,
    pub races: u64,
    pub disagreed: u64,
    /// Per verdict of the model, its orders, the most first.
    pub verdicts: Vec<(Verdict, u64)>,
    pub first_disagreement: Option<Difference>,
    pub first_race: Option<Difference>,
    /// Rounded.
    pub runs_per_second: u64,
    /// Why it stopped before the last order, if it did.
    pub stopped: Option<String>,
}

/// An order on which PostgreSQL and the model differed.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// As actor names: loadable with `Lab::load_order`.
    pub order: Vec<String>,
    pub differences: Vec<String>,
}

impl Proof {
    fn from_json(v: &Value) -> Option<Proof> {
        Some(Proof {
            run: v["run"].as_u64()?,
            races: v["races"].as_u64()?,
            disagreed: v["disagreed"].as_u64()?,
            verdicts: v["verdicts"]
                .as_array()?
                .iter()
                .map(|c| Some((verdict(&c["verdict"])?, c["orders"].as_u64()?)))
                .collect::<Option<_>>()?,
            first_disagreement: difference(&v["first_disagreement"]),
            first_race: difference(&v["first_race"]),
            runs_per_second: (v["runs_per_second"].as_f64()? + 0.5) as u64,
            stopped: v["stopped"].as_str().map(str::to_string),
        })
    }
}

fn verdict(v: &Value) -> Option<Verdict> {
    Some(Verdict {
        double_booked: v["double_booked"].as_bool()?,
        lost_seat: v["lost_seat"].as_bool()?,
        refund_due: strings(&v["refund_due"]),
        unpaid_hold: strings(&v["unpaid_hold"]),
        booked_late: strings(&v["booked_late"]),
    })
}

fn difference(v: &Value) -> Option<Difference> {
    Some(Difference {
        order: strings(v.get("order")?),
        differences: strings(&v["differences"]),
    })
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
        match serde_json::from_str::<Value>(line) {
            Ok(v) if v.get("summary").is_some() => {
                summary = Proof::from_json(&v["summary"]);
                false
            }
            Ok(v) => {
                let p = &v["progress"];
                if let (Some(run), Some(orders)) = (p["run"].as_u64(), p["orders"].as_u64()) {
                    progress(run, orders);
                }
                true
            }
            Err(_) => false,
        }
    })
    .await;
    match (summary, read) {
        (Some(proof), _) => Ok(proof),
        (None, Some(())) => {
            Err("The server's answer was not a proof: is this a Last Seat server?".to_string())
        }
        (None, None) => Err(
            "The server stopped answering before the end: it may have been restarted. Try again."
                .to_string(),
        ),
    }
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
            if !line(std::str::from_utf8(&text).ok()?.trim_end()) {
                return Some(());
            }
        }
    }
}
