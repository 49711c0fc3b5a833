//! The page's components, one concern each.

mod controls;
mod defences;
mod explorer;
mod health;
mod intro;
mod lab;
mod matrix;
mod pages;
mod phones;
mod postgres;
mod rows;
mod sandbox;
mod seatmap;
mod share;
mod timeline;
mod verdict;

pub use pages::{ChapterPage, Home, Nav, NotFound};
