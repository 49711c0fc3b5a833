//! The page's components, one concern each.

mod defences;
mod health;
mod intro;

pub use defences::DefenceList;
pub use health::HealthLine;
pub use intro::Intro;
