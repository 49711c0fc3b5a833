//! The page's components, one concern each.

mod claim;
mod controls;
mod counter;
mod databases;
mod defences;
mod drag;
mod explorer;
mod fork;
mod health;
mod intro;
mod lab;
mod matrix;
mod pages;
mod phones;
mod postgres;
mod proof;
mod reorder;
mod rows;
mod sandbox;
mod seatmap;
mod share;
mod timeline;
mod timeline_event;
mod username;
mod verdict;

pub use pages::{ChapterPage, Home, Nav, NotFound};
