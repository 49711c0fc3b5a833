//! The words a file writes for each choice of the format, as serde writes them back (a test
//! holds the two to each other).

use super::super::{ClockUnit, Database, Isolation, Now, PayOutcome, SeatStatus, Shape, Wait};

pub(super) const STATUSES: [(&str, SeatStatus); 3] = [
    ("AVAILABLE", SeatStatus::Available),
    ("HELD", SeatStatus::Held),
    ("BOOKED", SeatStatus::Booked),
];

pub(super) const SHAPES: [(&str, Shape); 6] = [
    ("seats", Shape::Seats),
    ("general_admission", Shape::GeneralAdmission),
    ("balance", Shape::Balance),
    ("rate_limit", Shape::RateLimit),
    ("coupon", Shape::Coupon),
    ("username", Shape::Username),
];

pub(super) const CLOCK_UNITS: [(&str, ClockUnit); 2] =
    [("minute", ClockUnit::Minute), ("second", ClockUnit::Second)];

pub(super) const DATABASES: [(&str, Database); 2] = [
    ("postgresql", Database::Postgresql),
    ("innodb", Database::Innodb),
];

pub(super) const LEVELS: [(&str, Isolation); 3] = [
    ("read committed", Isolation::ReadCommitted),
    ("repeatable read", Isolation::RepeatableRead),
    ("serializable", Isolation::Serializable),
];

pub(super) const WAITS: [(&str, Wait); 3] = [
    ("wait", Wait::Wait),
    ("nowait", Wait::Nowait),
    ("skip_locked", Wait::SkipLocked),
];

pub(super) const NOWS: [(&str, Now); 3] = [
    ("transaction", Now::Transaction),
    ("statement", Now::Statement),
    ("evaluation", Now::Evaluation),
];

pub(super) const OUTCOMES: [(&str, PayOutcome); 3] = [
    ("succeeds", PayOutcome::Succeeds),
    ("declined", PayOutcome::Declined),
    ("unknown", PayOutcome::Unknown),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn written<T: serde::Serialize>(words: &[(&str, T)]) {
        for (word, choice) in words {
            assert_eq!(serde_json::to_value(choice).unwrap(), *word);
        }
    }

    #[test]
    fn every_word_is_the_one_serde_writes() {
        written(&STATUSES);
        written(&CLOCK_UNITS);
        written(&SHAPES);
        written(&DATABASES);
        written(&LEVELS);
        written(&WAITS);
        written(&NOWS);
        written(&OUTCOMES);
    }
}
