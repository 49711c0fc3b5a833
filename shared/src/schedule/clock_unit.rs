//! What one tick of a schedule's virtual clock stands for, and the clock in words. A chapter's
//! schedule counts minutes; a live round's replay counts seconds, and every sentence that names
//! the clock says so ("until second 61", "moves 5 seconds on"). The file's keys keep their
//! names (`hold_minutes`, `minutes`): only the words follow the unit.

use serde::{Deserialize, Serialize};

/// The unit of a schedule's clock: minutes unless the file says `"clock_unit": "second"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClockUnit {
    #[default]
    Minute,
    Second,
}

impl ClockUnit {
    /// The unit's word: "minute", "second".
    pub fn word(self) -> &'static str {
        match self {
            ClockUnit::Minute => "minute",
            ClockUnit::Second => "second",
        }
    }

    /// A moment on the clock: "minute 61", "second 61".
    pub fn at(self, n: i64) -> String {
        format!("{} {n}", self.word())
    }

    /// A length of time: "1 minute", "5 minutes", "1 second", "5 seconds".
    pub fn span(self, n: i64) -> String {
        match n {
            1 => format!("1 {}", self.word()),
            n => format!("{n} {}s", self.word()),
        }
    }

    /// A length of time where room is short: "5 min", "5 s".
    pub fn short(self, n: i64) -> String {
        match self {
            ClockUnit::Minute => format!("{n} min"),
            ClockUnit::Second => format!("{n} s"),
        }
    }

    /// The default unit, which a file leaves unsaid (serde's `skip_serializing_if`).
    pub fn is_minute(&self) -> bool {
        *self == ClockUnit::Minute
    }
}

#[cfg(test)]
mod tests {
    use super::ClockUnit::{Minute, Second};

    #[test]
    fn each_unit_names_a_moment_a_span_and_a_short_span() {
        assert_eq!(Minute.at(61), "minute 61");
        assert_eq!(Second.at(61), "second 61");
        assert_eq!(Minute.span(1), "1 minute");
        assert_eq!(Minute.span(5), "5 minutes");
        assert_eq!(Second.span(1), "1 second");
        assert_eq!(Second.span(0), "0 seconds");
        assert_eq!(Second.span(5), "5 seconds");
        assert_eq!(Minute.short(5), "5 min");
        assert_eq!(Second.short(5), "5 s");
    }
}
