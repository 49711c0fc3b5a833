//! Reading one JSON value where the file's format expects a certain kind of thing, with an
//! error that names the value's path, says what was found and what belongs there.

use serde_json::{Map, Value};

use super::super::suggest::{did_you_mean, listed};
use super::super::ScheduleError;

/// The path of `key` inside the object at `path` (`""`: the file itself). A key that is not a
/// plain word is quoted, so that a path always reads back to one place: `actors["a b"]`.
pub(crate) fn key_path(path: &str, key: &str) -> String {
    let plain = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    match (path.is_empty(), plain) {
        (true, true) => key.to_string(),
        (false, true) => format!("{path}.{key}"),
        (_, false) => format!("{path}[{}]", Value::from(key)),
    }
}

/// The error's field for a value at `path`: the path, or `schedule` for the whole file.
pub(super) fn error(path: &str, message: impl Into<String>) -> ScheduleError {
    let field = if path.is_empty() { "schedule" } else { path };
    ScheduleError::new(field, message)
}

/// What a value is, in the words of an error: `the text "A7"`, `a list`, `5`.
pub(super) fn found(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) if s.chars().count() > 40 => {
            let head: String = s.chars().take(40).collect();
            format!("the text {head:?}…")
        }
        Value::String(s) => format!("the text {s:?}"),
        Value::Array(_) => "a list".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

/// "found X where Y goes: how to write it", as every type error says it.
fn wrong(path: &str, v: &Value, wanted: &str) -> ScheduleError {
    error(path, format!("found {}, but this is {wanted}", found(v)))
}

/// An object of the file, with the keys it may have.
pub(super) struct Obj<'v> {
    pub path: String,
    map: &'v Map<String, Value>,
}

impl<'v> Obj<'v> {
    /// The object at `path`; `what` says what belongs there, with an example.
    pub fn of(path: &str, v: &'v Value, what: &str) -> Result<Obj<'v>, ScheduleError> {
        match v {
            Value::Object(map) => Ok(Obj {
                path: path.to_string(),
                map,
            }),
            _ => Err(wrong(path, v, what)),
        }
    }

    /// Refuses a key that is not one of `keys`, naming the nearest one: `of` says whose keys
    /// they are ("a lock operation").
    pub fn only(&self, keys: &[&str], of: &str) -> Result<(), ScheduleError> {
        let Some(unknown) = self.map.keys().find(|k| !keys.contains(&k.as_str())) else {
            return Ok(());
        };
        let all = listed(keys, "and");
        let fix = match did_you_mean(unknown, keys) {
            Some(d) => format!("{d} Its keys are {all}"),
            None => format!("its keys are {all}"),
        };
        Err(error(
            &self.path(unknown),
            format!("{unknown:?} is not a key of {of}: {fix}"),
        ))
    }

    pub fn path(&self, key: &str) -> String {
        key_path(&self.path, key)
    }

    /// The value of `key`, `None` if it is left out or `null`.
    pub fn get(&self, key: &str) -> Option<&'v Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// The value of `key`, which must be given: `why` says what it is, with an example.
    pub fn need(&self, key: &str, why: &str) -> Result<&'v Value, ScheduleError> {
        self.get(key)
            .ok_or_else(|| error(&self.path, format!("missing {key:?}: {why}")))
    }

    /// Reads `key` with `read` if it is given.
    pub fn opt<T>(
        &self,
        key: &str,
        read: impl FnOnce(&str, &Value) -> Result<T, ScheduleError>,
    ) -> Result<Option<T>, ScheduleError> {
        self.get(key).map(|v| read(&self.path(key), v)).transpose()
    }

    /// Every key and value, in the file's order of keys.
    pub fn entries(&self) -> impl Iterator<Item = (&'v String, &'v Value)> {
        self.map.iter()
    }
}

pub(super) fn text(path: &str, v: &Value, what: &str) -> Result<String, ScheduleError> {
    match v {
        Value::String(s) => Ok(s.clone()),
        _ => Err(wrong(path, v, &format!("{what}, written in quotes"))),
    }
}

pub(super) fn boolean(path: &str, v: &Value) -> Result<bool, ScheduleError> {
    match v {
        Value::Bool(b) => Ok(*b),
        _ => Err(wrong(path, v, "true or false (without quotes)")),
    }
}

/// A whole number; `what` says what it counts, with an example.
pub(super) fn whole(path: &str, v: &Value, what: &str) -> Result<i64, ScheduleError> {
    match v {
        Value::Number(n) => n.as_i64().ok_or_else(|| {
            let x = n.as_f64().unwrap_or(f64::INFINITY);
            let why = if x.abs() >= 9.0e18 {
                "too large".to_string()
            } else if x.fract() == 0.0 {
                format!("written as a fraction: write {}", x as i64)
            } else {
                "not a whole number".to_string()
            };
            error(path, format!("{n} is {why}; this is {what}"))
        }),
        Value::String(s) if s.trim().parse::<i64>().is_ok() => Err(error(
            path,
            format!(
                "found the text {s:?}: write the number without quotes, {}",
                s.trim()
            ),
        )),
        _ => Err(wrong(path, v, what)),
    }
}

/// A list of texts: `list` says what the list is, with an example, `item` what each one is.
pub(super) fn texts(
    path: &str,
    v: &Value,
    list: &str,
    item: &str,
) -> Result<Vec<String>, ScheduleError> {
    let Value::Array(items) = v else {
        let example = match v {
            Value::String(s) => format!(": write [{s:?}]"),
            _ => String::new(),
        };
        return Err(error(
            path,
            format!("found {}, but this is {list}{example}", found(v)),
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, one)| text(&format!("{path}[{i}]"), one, item))
        .collect()
}

/// One of `choices`, each with the word a file writes for it; `what` names the kind ("an
/// isolation level").
pub(super) fn choice<T: Copy>(
    path: &str,
    v: &Value,
    what: &str,
    choices: &[(&str, T)],
) -> Result<T, ScheduleError> {
    let words: Vec<&str> = choices.iter().map(|&(w, _)| w).collect();
    word(path, v, what, &words).map(|i| choices[i].1)
}

/// The index of the word of `words` that `v` is.
pub(super) fn word(
    path: &str,
    v: &Value,
    what: &str,
    words: &[&str],
) -> Result<usize, ScheduleError> {
    let Value::String(s) = v else {
        return Err(error(
            path,
            format!(
                "found {}, but this is {what}: write one of {} (in quotes)",
                found(v),
                listed(words, "or")
            ),
        ));
    };
    if let Some(i) = words.iter().position(|w| w == s) {
        return Ok(i);
    }
    let message = match did_you_mean(s, words) {
        Some(d) => format!(
            "{s:?} is not {what}: {d} Write one of {}",
            listed(words, "or")
        ),
        None => format!("{s:?} is not {what}: write one of {}", listed(words, "or")),
    };
    Err(error(path, message))
}
