//! How the timeline marks an operation that runs only under a condition: a retry's new attempt,
//! a step only while its buyer holds the seats.

use shared::schedule::{Actor, Condition};

/// The mark the timeline puts on each operation of a program: "attempt N" where an attempt
/// written again under "only if the last attempt failed" begins (the first such operation after
/// an unconditional one, or the same operation as the one that began the last attempt), "only
/// if held" on one that runs only while its buyer holds the seats, nothing otherwise.
pub fn condition_marks(actor: &Actor) -> Vec<Option<String>> {
    let mut attempt = 1;
    let mut first: Option<&'static str> = None;
    (0..actor.program.len())
        .map(|i| {
            let name = actor.program[i].name();
            match actor.condition(i) {
                Condition::Always => {
                    first = None;
                    None
                }
                Condition::Held => Some("only if held".to_string()),
                Condition::Failed if first.is_some_and(|f| f != name) => None,
                Condition::Failed => {
                    attempt += 1;
                    first = Some(name);
                    Some(format!("attempt {attempt}"))
                }
            }
        })
        .collect()
}
