//! The story's lines on a username (`UsernameWords`): "Adam checked batman: no account had it",
//! "Adam created an account named batman and was told the account is theirs", "Omar's insert
//! failed: batman was already claimed in usernames (23505)".

use super::Event;
use crate::outcome::StepResult;
use crate::schedule::Op;
use crate::username_words::UsernameWords;

impl Event<'_> {
    /// The line of a completion on a username: `None` for the lines every shape shares (a
    /// begin, a commit or rollback, a skip by a condition), which `line` writes.
    pub(super) fn username_line(&self, u: &UsernameWords, result: &StepResult) -> Option<String> {
        let (who, op) = (self.who(), &self.entry().op);
        let name = u.name();
        let accounts = self.entry().trace.seen.len();
        let had = match accounts {
            0 => "no account had it".to_string(),
            1 => "1 account had it".to_string(),
            n => format!("{n} accounts had it"),
        };
        Some(match (op, result) {
            (Op::Begin { .. } | Op::Commit | Op::Rollback, _) => return None,
            (_, StepResult::Error { code, message }) => {
                let what = match op {
                    Op::Write { .. } | Op::Book { .. } | Op::Claim { .. } => "insert",
                    other => other.name(),
                };
                format!(
                    "{who}'s {what} failed: {} ({code})",
                    u.error_story(code, message)
                )
            }
            (Op::Read { .. }, _) => format!("{who} checked {name}: {had}"),
            (Op::Lock { .. }, _) if accounts == 0 => {
                format!("{who}'s locking check found no account named {name} and locked no row")
            }
            (Op::Lock { .. }, _) => format!("{who} locked the accounts named {name}: {had}"),
            (Op::Write { .. }, StepResult::Skipped) => {
                format!("{who} did not create the account: the check found {name} taken")
            }
            (Op::Book { .. } | Op::Claim { .. }, StepResult::Skipped) => {
                format!("{who} did not claim {name}: the check found it taken")
            }
            (Op::Write { .. }, StepResult::Ok { rows: Some(1..) }) => {
                self.username_told(u, format!("{who} created an account named {name}"))
            }
            (Op::Book { .. } | Op::Claim { .. }, StepResult::Ok { rows: Some(1..) }) => {
                self.username_told(u, format!("{who} claimed {name} in usernames"))
            }
            (Op::Claim { .. }, _) => {
                format!("{who}'s insert found {name} already claimed and inserted nothing")
            }
            _ => return None,
        })
    }

    /// `base`, and what the person was told by it, if anything: "… and was told the account is
    /// theirs", or that they are the second of that name.
    pub(super) fn username_told(&self, u: &UsernameWords, base: String) -> String {
        let got = self.got();
        if got.is_empty() {
            return base;
        }
        let second = u.taken_at_start() || self.someone_else_had(&got);
        format!("{base} and {}", u.told(second))
    }
}
