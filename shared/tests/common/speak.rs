#![allow(dead_code)]

//! Whether a sentence reads like machine speak: a raw identifier, a wrong ordinal, "its" for a
//! person, a list with a singular verb, a SQLSTATE without its meaning beside it.

const CODES: [&str; 6] = ["40001", "40P01", "55P03", "23505", "25P02", "57014"];

/// Why `line` reads like machine speak, if it does.
pub fn machine_speak(line: &str) -> Option<String> {
    let words: Vec<&str> = line
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    for w in &words {
        if w.contains('_') {
            return Some(format!("a raw identifier {w:?}"));
        }
        let digits = w.trim_end_matches(|c: char| c.is_alphabetic());
        let suffix = &w[digits.len()..];
        if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
            let wrong = suffix == "th" && digits.ends_with(['1', '2', '3']);
            if wrong && !["11", "12", "13"].iter().any(|t| digits.ends_with(t)) {
                return Some(format!("a wrong ordinal {w:?}"));
            }
        }
        if *w == "its" {
            return Some("\"its\" (say whose)".to_string());
        }
    }
    // A list of two or more seats or names with a singular verb: "A12, A13 is", "A and B is".
    for verb in [" is ", " has ", " was ", " is:"] {
        for (at, _) in line.match_indices(verb) {
            let before = &line[..at];
            let last = before.rsplit(';').next().unwrap_or(before);
            let tail: Vec<&str> = last.rsplit(' ').take(3).collect();
            if tail.len() == 3 && (tail[1] == "and" || tail[1].ends_with(',')) {
                let listed = |w: &str| {
                    w.trim_end_matches(',')
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_uppercase())
                };
                if listed(tail[0]) && listed(tail[2]) {
                    return Some(format!(
                        "a list with a singular verb near {:?}",
                        &line[at.saturating_sub(20)..]
                    ));
                }
            }
        }
    }
    for code in CODES {
        for (at, _) in line.match_indices(code) {
            if !line[..at].ends_with('(') {
                return Some(format!("{code} without its meaning in brackets beside it"));
            }
        }
    }
    for pronoun in [
        "it remembers",
        "it holds",
        "it waits",
        "it gets",
        "it deletes",
        "it retries",
    ] {
        if line.contains(pronoun) {
            return Some(format!("{pronoun:?} for a person"));
        }
    }
    None
}
