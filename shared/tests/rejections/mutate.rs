//! The mutations of a valid file, as a careless hand makes them, each with what it expects
//! of the rejection.

use serde_json::{json, Map, Value};

use super::paths::{key_path, names_its_keys, paths, resolve_mut, set, split_key};

/// A small deterministic generator (splitmix64), so that a failure replays.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// `word` with one slip of the keyboard: a letter dropped, doubled, replaced or two swapped.
fn slip(rng: &mut Rng, word: &str) -> String {
    let mut chars: Vec<char> = word.chars().collect();
    let i = rng.below(chars.len());
    match rng.below(4) {
        0 if chars.len() > 2 => {
            chars.remove(i);
        }
        1 => chars.insert(i, chars[i]),
        2 => chars[i] = if chars[i] == 'x' { 'q' } else { 'x' },
        _ if chars.len() > 1 => {
            let j = if i + 1 < chars.len() { i + 1 } else { i - 1 };
            chars.swap(i, j);
        }
        _ => chars.push('x'),
    }
    chars.into_iter().collect()
}

/// Keys whose values are words of the format (an op's name, a status, a level...).
const WORD_KEYS: [&str; 8] = [
    "op",
    "status",
    "isolation",
    "wait",
    "now",
    "outcome",
    "if",
    "defence",
];

/// What a mutation expects of the rejection, beyond naming a path that exists.
pub enum Expected {
    /// Anything, or nothing at all: the file may still be valid.
    Any,
    /// A rejection naming exactly `field`, suggesting `word` if it suggests anything.
    At { field: String, word: String },
}

pub fn mutate(rng: &mut Rng, file: &Value) -> (Value, String, Expected) {
    let mut all = Vec::new();
    paths(file, String::new(), &mut all);
    let mut out = file.clone();
    loop {
        let (path, value) = &all[rng.below(all.len())];
        match rng.below(6) {
            // A format's key misspelt.
            0 => {
                let Some((parent, key)) = split_key(path) else {
                    continue;
                };
                if names_its_keys(&parent) {
                    continue;
                }
                let new = slip(rng, &key);
                let object = resolve_mut(&mut out, &parent).and_then(Value::as_object_mut);
                let object = object.expect("the parent is an object");
                if object.contains_key(&new) {
                    continue;
                }
                let v = object.remove(&key).expect("the key");
                object.insert(new.clone(), v);
                let field = key_path(&parent, &new);
                return (
                    out,
                    format!("renamed {path} to {new:?}"),
                    Expected::At { field, word: key },
                );
            }
            // A word of the format one letter off.
            1 => {
                let Some((_, key)) = split_key(path) else {
                    continue;
                };
                let Value::String(word) = value else {
                    continue;
                };
                if !WORD_KEYS.contains(&key.as_str()) || word.is_empty() {
                    continue;
                }
                let new = slip(rng, word);
                if new == *word {
                    continue;
                }
                set(&mut out, path, Value::String(new.clone()));
                let expected = Expected::At {
                    field: path.clone(),
                    word: word.clone(),
                };
                return (out, format!("{path} from {word:?} to {new:?}"), expected);
            }
            // A value of another kind.
            2 if !path.is_empty() => {
                let others = [
                    json!(7),
                    json!("x"),
                    json!([]),
                    json!({}),
                    json!(true),
                    json!(2.5),
                    json!(["A7"]),
                ];
                let new = others[rng.below(others.len())].clone();
                set(&mut out, path, new.clone());
                return (out, format!("{path} set to {new}"), Expected::Any);
            }
            // A key deleted.
            3 => {
                let Some((parent, key)) = split_key(path) else {
                    continue;
                };
                let object = resolve_mut(&mut out, &parent).and_then(Value::as_object_mut);
                object.expect("the parent is an object").remove(&key);
                return (out, format!("removed {path}"), Expected::Any);
            }
            // A key added.
            4 => {
                let Value::Object(_) = value else {
                    continue;
                };
                let new = ["zebra", "colour", "extra", "notes"][rng.below(4)];
                let object = resolve_mut(&mut out, path).and_then(Value::as_object_mut);
                let object: &mut Map<String, Value> = object.expect("an object");
                if object.contains_key(new) {
                    continue;
                }
                object.insert(new.to_string(), json!(1));
                let field = key_path(path, new);
                let expected = if names_its_keys(path) {
                    Expected::Any
                } else {
                    Expected::At {
                        field,
                        word: String::new(),
                    }
                };
                return (out, format!("added {new:?} to {path:?}"), expected);
            }
            // The file wrapped in a list (now and then: it needs no place in the file).
            5 if rng.below(8) == 0 => {
                let expected = Expected::At {
                    field: "schedule".to_string(),
                    word: String::new(),
                };
                return (json!([out]), "wrapped in a list".to_string(), expected);
            }
            _ => continue,
        }
    }
}
