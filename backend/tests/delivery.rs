//! Delivery of the page on a real server (port 0): the files compressed at build time are sent
//! precompressed to whoever accepts them, Trunk's hashed files are cached for good and the HTML
//! never is, and each chapter's HTML carries its title and prose before any wasm runs.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};

use backend::http::assets::{compress_dir, IMMUTABLE, NO_CACHE};
use backend::AppState;
use reqwest::header::{ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE};

const WASM: &str = "frontend-0123456789abcdef_bg.wasm";
const INDEX: &str = "<!doctype html><html lang=\"en\"><head><title>Last Seat</title></head>\
                     <body><noscript>needs JavaScript</noscript></body></html>";

/// A built page: index.html, a hashed "wasm" that compresses well, and its .br and .gz.
fn dist(name: &str) -> (PathBuf, Vec<u8>) {
    let dir = std::env::temp_dir().join(format!("lastseat-delivery-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary dist");
    std::fs::write(dir.join("index.html"), INDEX).expect("index.html");
    let wasm: Vec<u8> = (0..200_000u32)
        .map(|i| (i % 251) as u8 ^ (i / 4096) as u8)
        .collect();
    std::fs::write(dir.join(WASM), &wasm).expect("the wasm");
    std::fs::write(dir.join("notes-plain.txt"), "not hashed").expect("a plain file");
    let compressed = compress_dir(&dir).expect("compress");
    assert!(compressed
        .iter()
        .any(|c| c.path.ends_with(WASM) && c.brotli < c.raw / 4));
    (dir, wasm)
}

async fn spawn_app(dist: &Path) -> String {
    let pool = common::pool().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port 0");
    let addr = listener.local_addr().expect("the bound address");
    tokio::spawn(backend::serve(
        listener,
        AppState::new(pool, Some(dist.to_path_buf())),
    ));
    format!("http://{addr}")
}

/// reqwest here decompresses nothing: the bodies are the bytes on the wire.
async fn get(url: &str, encoding: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new().get(url);
    if let Some(e) = encoding {
        request = request.header(ACCEPT_ENCODING, e);
    }
    request.send().await.expect("the request")
}

fn header(response: &reqwest::Response, name: reqwest::header::HeaderName) -> String {
    response
        .headers()
        .get(name)
        .map(|v| v.to_str().expect("ascii").to_string())
        .unwrap_or_default()
}

#[tokio::test]
async fn the_wasm_goes_out_as_brotli_or_gzip_and_is_cached_for_good() {
    let (dir, wasm) = dist("wasm");
    let base = spawn_app(&dir).await;
    let url = format!("{base}/{WASM}");

    let br = get(&url, Some("br, gzip")).await;
    assert_eq!(br.status(), 200);
    assert_eq!(header(&br, CONTENT_ENCODING), "br");
    assert_eq!(header(&br, CACHE_CONTROL), IMMUTABLE);
    assert_eq!(header(&br, CONTENT_TYPE), "application/wasm");
    let body = br.bytes().await.expect("a body");
    assert!(
        body.len() < wasm.len() / 4,
        "{} bytes over the wire",
        body.len()
    );
    let mut plain = Vec::new();
    brotli::Decompressor::new(&body[..], 4096)
        .read_to_end(&mut plain)
        .expect("brotli");
    assert_eq!(plain, wasm);

    let gz = get(&url, Some("gzip")).await;
    assert_eq!(header(&gz, CONTENT_ENCODING), "gzip");
    assert_eq!(header(&gz, CACHE_CONTROL), IMMUTABLE);
    let body = gz.bytes().await.expect("a body");
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(&body[..])
        .read_to_end(&mut plain)
        .expect("gzip");
    assert_eq!(plain, wasm);

    let raw = get(&url, None).await;
    assert_eq!(header(&raw, CONTENT_ENCODING), "");
    assert_eq!(raw.bytes().await.expect("a body").len(), wasm.len());
}

#[tokio::test]
async fn the_html_and_unhashed_files_are_never_cached() {
    let (dir, _) = dist("html");
    let base = spawn_app(&dir).await;
    for path in ["/", "/chapter/2", "/nowhere", "/notes-plain.txt"] {
        let response = get(&format!("{base}{path}"), Some("br")).await;
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(header(&response, CACHE_CONTROL), NO_CACHE, "{path}");
    }
    let api = get(&format!("{base}/api/scenarios"), None).await;
    assert_ne!(header(&api, CACHE_CONTROL), IMMUTABLE);
}

#[tokio::test]
async fn each_chapter_s_html_carries_its_title_and_prose() {
    let (dir, _) = dist("prose");
    let base = spawn_app(&dir).await;
    for chapter in shared::chapters::CHAPTERS {
        let response = get(&format!("{base}/chapter/{}", chapter.number), None).await;
        assert!(header(&response, CONTENT_TYPE).starts_with("text/html"));
        let html = response.text().await.expect("html");
        assert!(
            html.contains(&format!("<title>Chapter {}: ", chapter.number)),
            "chapter {}",
            chapter.number
        );
        assert!(html.contains("id=\"prerendered\""));
        let first = chapter.text[0]
            .split(['"', '<', '>', '&'])
            .next()
            .expect("words");
        assert!(html.contains(first), "chapter {}: {first}", chapter.number);
    }
    let home = get(&format!("{base}/"), None)
        .await
        .text()
        .await
        .expect("html");
    for chapter in shared::chapters::CHAPTERS {
        assert!(home.contains(chapter.title), "{}", chapter.title);
    }
    let elsewhere = get(&format!("{base}/nowhere"), None)
        .await
        .text()
        .await
        .expect("html");
    assert_eq!(elsewhere, INDEX, "any other address gets the plain page");
}
