//! The spec's words: each step's name, a name as the spec's lexer takes it (bare or quoted),
//! a statement with its parameters written in, and the indentation of a block.

use std::collections::BTreeSet;

use super::super::Sent;
use crate::sql::{Param, Statement};

/// Each sent entry's step name: `adam_read`, or `adam_hold1`, `adam_hold2`… when the actor
/// sends the same operation more than once.
pub(super) fn step_names(plan: &[Sent<'_>]) -> Vec<Option<String>> {
    let base = |s: &Sent<'_>| format!("{}_{}", s.actor.name, s.op.name());
    let mut seen: Vec<(String, usize)> = Vec::new();
    let mut used: BTreeSet<String> = BTreeSet::new();
    plan.iter()
        .map(|s| {
            s.statement.as_ref()?;
            let b = base(s);
            let repeated = plan
                .iter()
                .filter(|o| o.statement.is_some() && base(o) == b)
                .count()
                > 1;
            let n = match seen.iter_mut().find(|(name, _)| *name == b) {
                Some((_, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    seen.push((b.clone(), 1));
                    1
                }
            };
            let mut name = if repeated { format!("{b}{n}") } else { b };
            while used.contains(&name) {
                name.push('_');
            }
            used.insert(name.clone());
            Some(name)
        })
        .collect()
}

/// A name as the spec's lexer takes it: bare when it is a plain identifier and no keyword,
/// quoted otherwise.
pub(super) fn ident(name: &str) -> String {
    const KEYWORDS: &[&str] = &[
        "notices",
        "permutation",
        "session",
        "setup",
        "step",
        "teardown",
    ];
    let plain = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !KEYWORDS.contains(&name);
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// A statement with its parameters written in, text arrays as `array[…]` (no braces).
pub(super) fn spec_sql(statement: &Statement) -> String {
    let mut out = statement.sql.clone();
    for (i, p) in statement.params.iter().enumerate().rev() {
        let literal = match p {
            Param::TextArray(items) => {
                let items: Vec<String> = items
                    .iter()
                    .map(|s| Param::Text(s.clone()).literal())
                    .collect();
                format!("array[{}]::text[]", items.join(", "))
            }
            other => other.literal(),
        };
        // Highest index first, so that $1 does not eat the start of $10.
        out = out.replace(&format!("${}", i + 1), &literal);
    }
    out
}

pub(super) fn indent(text: &str) -> String {
    text.lines()
        .map(|l| {
            if l.is_empty() {
                "\n".to_string()
            } else {
                format!("  {l}\n")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_are_not_plain_identifiers_are_quoted() {
        assert_eq!(ident("adam_read"), "adam_read");
        assert_eq!(ident("1st_read"), "\"1st_read\"");
        assert_eq!(ident("setup"), "\"setup\"");
    }
}
