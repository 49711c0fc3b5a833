//! How a username ends, for the headline, the consequence, the explorer and the matrix:
//! "Created twice: Adam and Omar both have an account named batman", "⇒ … users has 2 accounts
//! named batman, and usernames has no claim of it".

use super::{accounts, UsernameWords};

impl UsernameWords {
    /// The headline's start when more were told they have the name than it could take:
    /// "created twice" (the name follows, after who has it).
    pub fn too_many(&self, told: usize) -> String {
        match told + usize::from(self.taken_at_start) {
            2 => "created twice".to_string(),
            n => format!("created {} times", crate::explain::number(n)),
        }
    }

    /// Who has the name once it was created too often, after the names: "both have an account
    /// named batman", "has an account named batman, though one already had it".
    pub fn all_have(&self, told: usize) -> String {
        let name = &self.name;
        match (told, self.taken_at_start) {
            (1, true) => format!("has an account named {name}, though one already had it"),
            (2, false) => format!("both have an account named {name}"),
            (n, false) => format!(
                "all {} have an account named {name}",
                crate::explain::number(n)
            ),
            (_, true) => format!("have accounts named {name}, though one already had it"),
        }
    }

    /// One who got the name, after the name: "got batman".
    pub fn created(&self) -> String {
        format!("got {}", self.name)
    }

    /// How the tables end: "users has 2 accounts named batman, and usernames has no claim of
    /// it", "users has no account named batman, and usernames gives it to Adam" (`claimed_by`
    /// the owner of its claim; the name itself for the account it had at the start).
    pub fn ends(&self, accounts_at_end: i64, claimed_by: Option<&str>) -> String {
        let name = &self.name;
        let users = match accounts_at_end {
            0 => format!("users has no account named {name}"),
            n => format!("users has {} named {name}", accounts(n)),
        };
        let claim = match claimed_by {
            None => "usernames has no claim of it".to_string(),
            Some(owner) if owner == name => "usernames gives it to that first account".to_string(),
            Some(owner) => format!("usernames gives it to {}", crate::explain::title(owner)),
        };
        format!("{users}, and {claim}")
    }

    /// Nobody got the name: "nobody created batman".
    pub fn nobody(&self) -> String {
        format!("nobody created {}", self.name)
    }

    /// The explorer's words for an order where nobody was stopped.
    pub fn not_stopped(&self) -> String {
        format!("nobody was stopped: {} was created twice", self.name)
    }

    /// A write the application did not send, as the explorer's stop.
    pub fn stop_skipped(&self) -> String {
        format!("saw {} taken and did not create it", self.name)
    }

    /// A claim of no rows, as the explorer's stop.
    pub fn stop_claimed(&self) -> String {
        format!("found {} already claimed and inserted nothing", self.name)
    }

    /// The matrix's words for the orders that went wrong: ("creates batman twice", "create
    /// batman twice").
    pub fn sells(&self) -> (String, String) {
        (
            format!("creates {} twice", self.name),
            format!("create {} twice", self.name),
        )
    }
}
