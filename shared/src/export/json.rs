//! JSON that reads like the hand-written fixtures of `schedules/`: a value on one line when it
//! fits, its members one per line when it does not, scalars filling their lines, and keys in
//! the order a reader expects.

use serde_json::Value;

use crate::schedule::EXPECT_KEYS;

/// The longest line a value is written on, when it can be broken.
const WIDTH: usize = 100;

/// `value`, pretty, ending in a newline.
pub(super) fn pretty(value: &Value) -> String {
    let mut out = String::new();
    write(value, 0, &mut out);
    out.push('\n');
    out
}

fn write(value: &Value, indent: usize, out: &mut String) {
    let inline = inline(value);
    if indent + inline.len() <= WIDTH || !matches!(value, Value::Object(_) | Value::Array(_)) {
        out.push_str(&inline);
        return;
    }
    let pad = " ".repeat(indent + 2);
    match value {
        Value::Array(items) if items.iter().all(|i| !i.is_object() && !i.is_array()) => {
            // Scalars (an order, steps) fill their lines.
            out.push_str("[\n");
            out.push_str(&pad);
            let mut column = pad.len();
            for (i, item) in items.iter().enumerate() {
                let text = item.to_string();
                if i > 0 {
                    if column + 2 + text.len() + 1 > WIDTH {
                        out.push_str(",\n");
                        out.push_str(&pad);
                        column = pad.len();
                    } else {
                        out.push_str(", ");
                        column += 2;
                    }
                }
                out.push_str(&text);
                column += text.len();
            }
            out.push('\n');
        }
        Value::Array(items) => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                out.push_str(&pad);
                write(item, indent + 2, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
        }
        Value::Object(map) => {
            out.push_str("{\n");
            let keys = ordered_keys(map);
            for (i, key) in keys.iter().enumerate() {
                out.push_str(&pad);
                out.push_str(&Value::String(key.to_string()).to_string());
                out.push_str(": ");
                write(&map[*key], indent + 2, out);
                out.push_str(if i + 1 < keys.len() { ",\n" } else { "\n" });
            }
        }
        _ => unreachable!("scalars are written inline"),
    }
    out.push_str(&" ".repeat(indent));
    out.push(if value.is_array() { ']' } else { '}' });
}

fn inline(value: &Value) -> String {
    match value {
        Value::Array(items) if items.is_empty() => "[]".to_string(),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(inline).collect();
            if items.iter().any(|i| i.is_object() || i.is_array()) {
                format!("[ {} ]", parts.join(", "))
            } else {
                format!("[{}]", parts.join(", "))
            }
        }
        Value::Object(map) if map.is_empty() => "{}".to_string(),
        Value::Object(map) => {
            let parts: Vec<String> = ordered_keys(map)
                .into_iter()
                .map(|k| format!("{}: {}", Value::String(k.to_string()), inline(&map[k])))
                .collect();
            format!("{{ {} }}", parts.join(", "))
        }
        scalar => scalar.to_string(),
    }
}

fn ordered_keys(map: &serde_json::Map<String, Value>) -> Vec<&str> {
    const FIRST: &[&str] = &[
        "version",
        "name",
        "description",
        "scenario",
        "actors",
        "order",
        "expect",
        "op",
        "if",
        "id",
        "show",
        "hold_minutes",
        "clock",
        "seats",
        "status",
        "holder",
        "until",
    ];
    // Then the expectations' keys, in their own order.
    let first = FIRST.iter().chain(EXPECT_KEYS.iter());
    let rank = |k: &str| first.clone().position(|f| *f == k).unwrap_or(usize::MAX);
    let mut keys: Vec<&str> = map.keys().map(String::as_str).collect();
    keys.sort_by_key(|k| (rank(k), *k));
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_written_inline_when_it_fits_and_broken_when_it_does_not() {
        let value: Value = serde_json::from_str(
            r#"{"order": ["adam"], "version": 1, "actors": {"adam": [{"seats": ["A7"], "op": "read"}]}}"#,
        )
        .expect("json");
        assert_eq!(
            pretty(&value).trim_end(),
            r#"{ "version": 1, "actors": { "adam": [ { "op": "read", "seats": ["A7"] } ] }, "order": ["adam"] }"#
        );
        let long: Value = serde_json::json!({ "order": vec!["someone"; 20] });
        let out = pretty(&long);
        assert!(
            out.starts_with("{\n  \"order\": [\n    \"someone\", \"someone\","),
            "{out}"
        );
        assert!(out.lines().all(|l| l.len() <= 100), "{out}");
    }
}
