//! What a person signing up for a username is told, on the phone and in the story: "the name
//! batman is free", "account batman created", "the name batman is taken (23505, duplicate key):
//! someone claimed it first", "was told the account is theirs too".

use super::UsernameWords;
use crate::sqlstate::SqlState;

impl UsernameWords {
    /// Before the first step: "about to sign up as batman".
    pub fn about_to(&self) -> String {
        format!("about to sign up as {}", self.name)
    }

    /// A transaction under way: "checking batman…" before it created anything, "creating
    /// account batman…" once its insert is in, uncommitted.
    pub fn working(&self, created: bool) -> String {
        if created {
            format!("creating account {}…", self.name)
        } else {
            format!("checking {}…", self.name)
        }
    }

    /// What the application's check found, on the phone: "the name batman is free", "the name
    /// batman is taken" (a phone's line starts with a capital, a username may not).
    pub fn looked(&self, accounts: usize) -> String {
        if accounts == 0 {
            format!("the name {} is free", self.name)
        } else {
            format!("the name {} is taken", self.name)
        }
    }

    /// A sign-up that went through, on the phone.
    pub fn got(&self) -> String {
        format!("account {} created", self.name)
    }

    /// A write the application did not send: its check had found the name taken.
    pub fn taken_checked(&self) -> String {
        format!("the name {} is taken: pick another name", self.name)
    }

    /// A claim that inserted nothing (`on conflict do nothing`, `insert ignore`).
    pub fn taken_claimed(&self) -> String {
        format!("the name {} is taken: someone claimed it first", self.name)
    }

    /// A claim the key refused (23505, 1062).
    pub fn taken_refused(&self, code: &SqlState) -> String {
        format!(
            "the name {} is taken {}: someone claimed it first",
            self.name,
            code.tag()
        )
    }

    /// Any other error, as the application tells its user.
    pub fn error_phone(&self, code: &SqlState) -> String {
        match code {
            SqlState::SerializationFailure => format!(
                "someone else signed up at the same time {}: try again",
                code.tag()
            ),
            code if code.is_deadlock() => {
                format!("two sign-ups blocked each other {}: try again", code.tag())
            }
            code if code.is_busy() => {
                format!(
                    "the name {} is busy right now {}: try again",
                    self.name,
                    code.tag()
                )
            }
            code if code.is_duplicate() => self.taken_refused(code),
            other => format!("something went wrong (error {other}): try again"),
        }
    }

    /// What the application remembers of its check, for a person: "batman free", "batman
    /// taken".
    pub fn remembers(&self, free: bool) -> String {
        let how = if free { "free" } else { "taken" };
        format!("{} {how}", self.name)
    }

    /// What the application was told it got, for a person.
    pub fn told_words(&self, told: bool) -> String {
        if told {
            format!("the account {} is theirs", self.name)
        } else {
            "no account yet".to_string()
        }
    }

    /// In the story, after a subject and what it did: "was told the account is theirs", or
    /// "… theirs too" after someone else had been told so.
    pub fn told(&self, second: bool) -> String {
        let too = if second { " too" } else { "" };
        format!("was told the account is theirs{too}")
    }

    /// A loser in the story and the headline, after "Omar was": "told batman is taken".
    pub fn told_no(&self) -> String {
        format!("told {} is taken", self.name)
    }
}
