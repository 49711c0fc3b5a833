//! Paths into a file as errors write them (`actors.adam[0].isolation`, `actors["a b"]`,
//! `schedule` for the file itself): every value's path, and the value a path names.

use serde_json::Value;

/// Every value of the file with its path, as errors write paths.
pub fn paths(v: &Value, path: String, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                paths(child, key_path(&path, k), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                paths(child, format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
    out.push((path, v.clone()));
}

pub fn key_path(path: &str, key: &str) -> String {
    let plain = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    match (path.is_empty(), plain) {
        (true, true) => key.to_string(),
        (false, true) => format!("{path}.{key}"),
        (_, false) => format!("{path}[{}]", Value::from(key)),
    }
}

/// One step of a path: an object's key or a list's index.
enum Step {
    Key(String),
    Index(usize),
}

/// The steps of a path as errors write it, `a.b[0]["c d"]`; `schedule` is the file itself.
fn steps(path: &str) -> Option<Vec<Step>> {
    let mut out = Vec::new();
    if path == "schedule" {
        return Some(out);
    }
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("[\"") {
            let end = r.find("\"]")?;
            out.push(Step::Key(
                serde_json::from_str(&format!("\"{}\"", &r[..end])).ok()?,
            ));
            rest = &r[end + 2..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            out.push(Step::Index(r[..end].parse().ok()?));
            rest = &r[end + 1..];
        } else {
            let r = rest.strip_prefix('.').unwrap_or(rest);
            let end = r.find(['.', '[']).unwrap_or(r.len());
            out.push(Step::Key(r[..end].to_string()));
            rest = &r[end..];
        }
    }
    Some(out)
}

/// The value a path names, if it names one.
pub fn resolve<'v>(root: &'v Value, path: &str) -> Option<&'v Value> {
    steps(path)?.iter().try_fold(root, |v, step| match step {
        Step::Key(k) => v.as_object()?.get(k),
        Step::Index(i) => v.as_array()?.get(*i),
    })
}

pub fn resolve_mut<'v>(root: &'v mut Value, path: &str) -> Option<&'v mut Value> {
    steps(path)?.iter().try_fold(root, |v, step| match step {
        Step::Key(k) => v.as_object_mut()?.get_mut(k),
        Step::Index(i) => v.as_array_mut()?.get_mut(*i),
    })
}

/// Objects whose keys the file chooses (actor names, seat ids), not the format.
pub fn names_its_keys(path: &str) -> bool {
    path == "actors" || path.ends_with("told") || path.ends_with("final")
}

pub fn set(root: &mut Value, path: &str, value: Value) {
    let target = resolve_mut(root, path).expect("a path of the file");
    *target = value;
}

/// The object path and key of an object member's path; `None` for a list item or the file.
pub fn split_key(path: &str) -> Option<(String, String)> {
    if path.ends_with(']') && !path.ends_with("\"]") {
        return None;
    }
    if let Some(i) = path.rfind("[\"") {
        let key: String = serde_json::from_str(&path[i + 1..path.len() - 1]).ok()?;
        return Some((path[..i].to_string(), key));
    }
    match path.rfind('.') {
        Some(i) => Some((path[..i].to_string(), path[i + 1..].to_string())),
        None if !path.is_empty() => Some((String::new(), path.to_string())),
        None => None,
    }
}
