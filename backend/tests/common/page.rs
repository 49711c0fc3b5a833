//! A built page for a test server to serve: a directory of its own holding an index.html.

#![allow(dead_code)]

use std::path::PathBuf;

/// The plainest page: a title and nothing to run.
pub const PLAIN: &str = "<!doctype html><title>Last Seat</title>";

/// A directory named after `name`, this process and this thread (tests run side by side),
/// holding `html` as its index.html.
pub fn page_dir(name: &str, html: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "lastseat-{name}-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).expect("a temporary dist");
    std::fs::write(dir.join("index.html"), html).expect("index.html");
    dir
}
