//! The page's components, one concern each.

mod controls;
mod defences;
mod explorer;
mod health;
mod intro;
mod lab;
mod matrix;
mod pages;
mod postgres;
mod sandbox;
mod share;
mod stage;
mod timeline;
mod verdict;

pub use pages::{ChapterPage, Home, Nav, NotFound};
