//! The nearest valid word to one that is not: what a rejection offers as "did you mean".

/// The choices in `choices` nearest to `found`, if any is near enough to be a slip of the
/// keyboard (a letter missing, extra, wrong or swapped, a case or a separator changed), not a
/// different word: every choice at the least distance, in their order.
pub(crate) fn nearest<'c>(found: &str, choices: &[&'c str]) -> Vec<&'c str> {
    let found = found.to_lowercase();
    let near: Vec<(usize, &str)> = choices
        .iter()
        .map(|&c| (distance(&found, &c.to_lowercase()), c))
        .filter(|&(d, c)| d <= 1 + c.chars().count() / 4 && d < c.chars().count())
        .collect();
    let least = near.iter().map(|&(d, _)| d).min();
    near.into_iter()
        .filter(|&(d, _)| Some(d) == least)
        .map(|(_, c)| c)
        .collect()
}

/// `did you mean "x"?` (or `"x" or "y"?` for a tie) for the choices nearest to `found`.
pub(crate) fn did_you_mean(found: &str, choices: &[&str]) -> Option<String> {
    let near = nearest(found, choices);
    (!near.is_empty()).then(|| format!("did you mean {}?", listed(&near, "or")))
}

/// The edit distance between `a` and `b`, a swap of two neighbouring letters counting as one
/// edit, and a space, `_` or `-` for another as none (so `read_committed` is `read committed`).
fn distance(a: &str, b: &str) -> usize {
    let norm = |s: &str| -> Vec<char> {
        s.chars()
            .map(|c| if c == '_' || c == '-' { ' ' } else { c })
            .collect()
    };
    let (a, b) = (norm(a), norm(b));
    // Rows i-2, i-1 and i of the optimal-string-alignment table.
    let mut before: Vec<usize> = Vec::new();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (prev[j] + 1).min(row[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut prev, row);
    }
    prev[b.len()]
}

/// ` (did you mean "x"?)` to put after a name that is not one of `choices`, or nothing.
pub(crate) fn aside(found: &str, choices: &[&str]) -> String {
    did_you_mean(found, choices)
        .map(|d| format!(" ({d})"))
        .unwrap_or_default()
}

/// The choices as a reader would list them, joined by `last` ("or", "and"): `"a", "b" or "c"`.
pub(crate) fn listed(choices: &[&str], last: &str) -> String {
    let quoted: Vec<String> = choices.iter().map(|c| format!("{c:?}")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., end] => format!("{} {last} {end}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slip_of_the_keyboard_finds_its_word() {
        let levels = ["read committed", "repeatable read", "serializable"];
        assert_eq!(nearest("serialisable", &levels), vec!["serializable"]);
        assert_eq!(nearest("read_committed", &levels), vec!["read committed"]);
        assert_eq!(nearest("Serializable", &levels), vec!["serializable"]);
        assert_eq!(nearest("sets", &["id", "seats", "status"]), vec!["seats"]);
        assert_eq!(nearest("oder", &["order", "name"]), vec!["order"]);
        assert_eq!(nearest("hodl", &["hold", "held"]), vec!["hold"]);
    }

    #[test]
    fn a_different_word_finds_none() {
        assert!(nearest("grab", &["read", "claim", "book"]).is_empty());
        assert!(nearest("x", &["id", "op"]).is_empty());
        assert!(nearest("", &["id"]).is_empty());
    }

    #[test]
    fn a_tie_offers_both() {
        let keys = ["op", "if", "seats", "status"];
        assert_eq!(
            did_you_mean("stats", &keys).as_deref(),
            Some("did you mean \"seats\" or \"status\"?")
        );
    }
}
