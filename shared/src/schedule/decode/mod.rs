//! JSON to a `ScheduleFile`, and an operation's JSON to an `Op`: a walk over the parsed value
//! that knows every key of the format, so that each error names the exact path of what is
//! wrong (`actors.adam[0].isolation`), what was found there, what is accepted and the nearest
//! accepted word. An unknown key is refused, never ignored; a key given as `null` counts as
//! left out. `reader` reads one value of a kind; `op` reads an operation; `scenario` the
//! scenario and `expect` the expectations.

mod expect;
mod op;
mod reader;
mod scenario;
mod words;

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::{ProgramSpec, ScheduleError, ScheduleFile, SeatStatus};
use expect::expect;
use reader::{choice, error, text, texts, whole, Obj};
use scenario::scenario;

pub(crate) use expect::EXPECT_KEYS;
pub(super) use op::op;
pub(crate) use reader::key_path;

const FILE_KEYS: [&str; 8] = [
    "version",
    "name",
    "engine",
    "description",
    "scenario",
    "actors",
    "order",
    "expect",
];

const SHAPE: &str = "{\"version\": 1, \"scenario\": {\"seats\": [{\"id\": \"A7\"}]}, \"actors\": {\"adam\": [{\"op\": \"claim\", \"seats\": [\"A7\"]}]}}";

/// The file in `text`: JSON (after a byte-order mark, if any) of one schedule file.
pub(super) fn file_from_text(text: &str) -> Result<ScheduleFile, ScheduleError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value: Value = serde_json::from_str(text).map_err(|e| {
        // serde_json ends its message with the place, which the error says first.
        let message = e.to_string();
        let what = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(what, _)| what);
        error(
            "",
            format!(
                "not valid JSON at line {}, column {}: {what}; a schedule file is one JSON object, e.g. {SHAPE}",
                e.line(),
                e.column()
            ),
        )
    })?;
    file(value)
}

/// A schedule file read with serde (a link's stored file, the page's own copies) gets the
/// same errors as `Schedule::parse_json`, each naming its field.
impl<'de> Deserialize<'de> for ScheduleFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        file(value).map_err(serde::de::Error::custom)
    }
}

/// The file that `v` is. Its programs' operations move into it as they are, for `op` to read.
pub(super) fn file(v: Value) -> Result<ScheduleFile, ScheduleError> {
    let mut file = checked(&v)?;
    if let Value::Object(mut map) = v {
        if let Some(Value::Object(given)) = map.remove("actors") {
            for (name, program) in given {
                if let (Value::Array(ops), Some(ProgramSpec::Ops(slot))) =
                    (program, file.actors.get_mut(&name))
                {
                    *slot = ops;
                }
            }
        }
    }
    Ok(file)
}

/// The file that `v` is, every program given as a list left with no operations (`file`
/// moves them in).
fn checked(v: &Value) -> Result<ScheduleFile, ScheduleError> {
    let root = match v {
        Value::Array(items) => {
            let fix = match items.as_slice() {
                [Value::Object(_)] => "remove the [ and ] around it".to_string(),
                _ => format!("write one object, e.g. {SHAPE}"),
            };
            return Err(error(
                "",
                format!("the file is a list, but a schedule file is one JSON object: {fix}"),
            ));
        }
        v => Obj::of(
            "",
            v,
            &format!("a schedule file, which is one JSON object, e.g. {SHAPE}"),
        )?,
    };
    root.only(&FILE_KEYS, "a schedule file")?;
    let version = whole(
        "version",
        root.need("version", "write \"version\": 1 (this is format version 1)")?,
        "the format version, 1",
    )?;
    super::check::version(version)?;
    let scenario = scenario(root.need(
        "scenario",
        "the initial state, e.g. \"scenario\": {\"seats\": [{\"id\": \"A7\"}]}",
    )?)?;
    let actors = actors(root.need(
        "actors",
        "each buyer and its program, e.g. \"actors\": {\"adam\": {\"defence\": \"atomic_update\"}}",
    )?)?;
    Ok(ScheduleFile {
        version: 1,
        name: root
            .opt("name", |p, v| text(p, v, "the schedule's name"))?
            .unwrap_or_default(),
        engine: root
            .opt("engine", |p, v| {
                choice(p, v, "the database it races on", &words::DATABASES)
            })?
            .unwrap_or_default(),
        description: root.opt("description", |p, v| text(p, v, "a description"))?,
        scenario,
        actors,
        order: root
            .opt("order", |p, v| {
                texts(
                    p,
                    v,
                    "a list of actor names, one per entry, e.g. [\"adam\", \"omar\"]",
                    "an actor's name",
                )
            })?
            .unwrap_or_default(),
        expect: root.opt("expect", expect)?,
    })
}

fn status(path: &str, v: &Value) -> Result<SeatStatus, ScheduleError> {
    choice(path, v, "a seat's status", &words::STATUSES)
}

fn actors(v: &Value) -> Result<BTreeMap<String, ProgramSpec>, ScheduleError> {
    let o = Obj::of(
        "actors",
        v,
        "an object of each buyer's program, e.g. {\"adam\": {\"defence\": \"atomic_update\"}}",
    )?;
    o.entries()
        .map(|(name, program)| Ok((name.clone(), self::program(&o.path(name), program)?)))
        .collect()
}

/// A program: a list of operations (read later, by `op`; left empty here for `file` to move
/// in) or a defence by name.
fn program(path: &str, v: &Value) -> Result<ProgramSpec, ScheduleError> {
    if let Value::Array(_) = v {
        return Ok(ProgramSpec::Ops(Vec::new()));
    }
    let o = Obj::of(path, v, "a program: a list of operations, e.g. [{\"op\": \"claim\", \"seats\": [\"A7\"]}], or a defence, e.g. {\"defence\": \"lock_row\"}")?;
    o.only(&["defence", "seats"], "a program given by its defence")?;
    Ok(ProgramSpec::Defence {
        defence: text(
            &o.path("defence"),
            o.need(
                "defence",
                "name the defence, e.g. {\"defence\": \"lock_row\"}, or give a list of operations",
            )?,
            "a defence's name",
        )?,
        seats: o.opt("seats", |p, v| {
            texts(p, v, "a list of seat ids, e.g. [\"A7\"]", "a seat id")
        })?,
    })
}
