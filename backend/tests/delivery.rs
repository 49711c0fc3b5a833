//! Delivery of the page on a real server (port 0): the files compressed at build time are sent
//! precompressed to whoever accepts them, Trunk's hashed files are cached for good and the HTML
//! never is, and each chapter's HTML carries its title and prose before any wasm runs.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};

use backend::http::assets::{compress_dir, IMMUTABLE, NO_CACHE};
use backend::AppState;
use base64::Engine;
use reqwest::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_SECURITY_POLICY, CONTENT_TYPE, VARY,
};
use sha2::{Digest, Sha256};

const WASM: &str = "frontend-0123456789abcdef_bg.wasm";
const INDEX: &str = "<!doctype html><html lang=\"en\"><head><title>Last Seat</title>\
                     <style>.prose{max-width:40em}</style></head>\
                     <body><noscript>needs JavaScript</noscript></body></html>";

/// A built page: index.html, a hashed "wasm" that compresses well, and its .br and .gz.
fn dist(name: &str) -> (PathBuf, Vec<u8>) {
    let dir = std::env::temp_dir().join(format!("lastseat-delivery-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary dist");
    std::fs::write(dir.join("index.html"), INDEX).expect("index.html");
    // Chapter 6's bundle (the shapes), the same page here.
    std::fs::create_dir_all(dir.join("shapes-page")).expect("the shapes' folder");
    std::fs::write(dir.join("shapes-page/index.html"), INDEX).expect("its index.html");
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

#[tokio::test]
async fn a_chapter_s_html_goes_out_as_brotli_or_gzip_with_its_style_allowed_by_hash() {
    let (dir, _) = dist("html-encoded");
    let base = spawn_app(&dir).await;
    let url = format!("{base}/chapter/3");
    let plain = get(&url, None).await;
    assert_eq!(header(&plain, CONTENT_ENCODING), "");
    let policy = header(&plain, CONTENT_SECURITY_POLICY);
    let plain = plain.text().await.expect("html");
    assert!(plain.contains("id=\"prerendered\""));

    let br = get(&url, Some("gzip, deflate, br, zstd")).await;
    assert_eq!(header(&br, CONTENT_ENCODING), "br");
    assert_eq!(header(&br, VARY), "accept-encoding");
    assert_eq!(header(&br, CACHE_CONTROL), NO_CACHE);
    let body = br.bytes().await.expect("a body");
    let mut text = String::new();
    brotli::Decompressor::new(&body[..], 4096)
        .read_to_string(&mut text)
        .expect("brotli");
    assert_eq!(text, plain);

    let gz = get(&url, Some("gzip")).await;
    assert_eq!(header(&gz, CONTENT_ENCODING), "gzip");
    let body = gz.bytes().await.expect("a body");
    let mut text = String::new();
    flate2::read::GzDecoder::new(&body[..])
        .read_to_string(&mut text)
        .expect("gzip");
    assert_eq!(text, plain);

    let refused = get(&url, Some("br;q=0, gzip;q=0")).await;
    assert_eq!(header(&refused, CONTENT_ENCODING), "");

    // The inline style sheet is allowed by its hash, and inline styles are not allowed at large.
    let hash = base64::engine::general_purpose::STANDARD
        .encode(Sha256::digest(".prose{max-width:40em}".as_bytes()));
    let style_src = policy
        .split(';')
        .map(str::trim)
        .find(|d| d.starts_with("style-src "))
        .expect("a style-src");
    assert_eq!(
        style_src,
        format!("style-src 'self' 'sha256-{hash}'"),
        "{policy}"
    );
}

/// The chapters' second bundle, with InnoDB's model: for a state on InnoDB or a request for it,
/// with the same words in it; every other address gets the first.
#[tokio::test]
async fn an_address_on_innodb_or_asking_for_it_gets_the_bundle_with_its_model() {
    let (dir, _) = dist("bundles");
    let second = dir.join("innodb-page");
    std::fs::create_dir_all(&second).expect("the second bundle's folder");
    let with_innodb = INDEX.replace(
        "<title>",
        "<meta name=\"bundle\" content=\"innodb\"><title>",
    );
    std::fs::write(second.join("index.html"), &with_innodb).expect("its index.html");
    let base = spawn_app(&dir).await;
    let built = shared::scenarios::get("ch4-check_then_act").expect("a built-in");
    let token = |database| {
        let schedule = built.schedule().on(database).expect("runs there");
        shared::link::encode(&shared::link::View::of(4, built.id, None, &schedule, 1))
    };
    let innodb = token(shared::schedule::Database::Innodb);
    let postgres = token(shared::schedule::Database::Postgresql);
    let html = |path: String| {
        let url = format!("{base}{path}");
        async move {
            let response = get(&url, None).await;
            assert_eq!(response.status(), 200, "{url}");
            response.text().await.expect("html")
        }
    };
    for path in [
        format!("/chapter/4?s={innodb}"),
        format!("/chapter/4?s={postgres}&db=innodb"),
        format!("/chapter/4?s={postgres}&with=innodb"),
        "/?with=innodb".to_string(),
    ] {
        let page = html(path.clone()).await;
        assert!(page.contains("content=\"innodb\""), "{path}");
        if path.starts_with("/chapter/4") {
            assert!(page.contains("<title>Chapter 4: "), "{path}: its words");
        }
    }
    for path in [
        format!("/chapter/4?s={postgres}"),
        "/chapter/4".to_string(),
        "/?with=mysql".to_string(),
        "/chapter/4?s=not-a-token".to_string(),
    ] {
        assert!(
            !html(path.clone()).await.contains("content=\"innodb\""),
            "{path}"
        );
    }
}

/// The chapters' third bundle, chapter 6 alone (the shapes beyond seats), with its words in it;
/// the whole page (InnoDB's bundle) for an address that needs the shapes beside the seats (a
/// counter in the sandbox, a seat's race kept in chapter 6's link) or asks for InnoDB as well.
#[tokio::test]
async fn chapter_6_gets_its_own_bundle_and_the_shapes_beside_the_seats_the_whole_page() {
    let (dir, _) = dist("shapes-bundle");
    for (folder, name) in [("shapes-page", "shapes"), ("innodb-page", "innodb")] {
        let bundle = dir.join(folder);
        std::fs::create_dir_all(&bundle).expect("the bundle's folder");
        let index = INDEX.replace(
            "<title>",
            &format!("<meta name=\"bundle\" content=\"{name}\"><title>"),
        );
        std::fs::write(bundle.join("index.html"), index).expect("its index.html");
    }
    let base = spawn_app(&dir).await;
    let token = |id: &str, chapter: u8| {
        let built = shared::scenarios::get(id).expect("a built-in");
        shared::link::encode(&shared::link::View::of(
            chapter,
            built.id,
            None,
            &built.schedule(),
            1,
        ))
    };
    let balance = token("shapes-balance", 5);
    let balance_on_6 = token("shapes-balance", 6);
    let seats = token("ch5-three-buyers", 5);
    let seat = shared::scenarios::get("ch4-check_then_act").expect("a built-in");
    let seat_on_6 = shared::link::encode(&shared::link::View::of(
        6,
        "shapes-balance",
        None,
        &seat.schedule(),
        1,
    ));
    let bundle_of = |path: String| {
        let url = format!("{base}{path}");
        async move {
            let response = get(&url, None).await;
            assert_eq!(response.status(), 200, "{url}");
            let page = response.text().await.expect("html");
            let bundle = ["shapes", "innodb"]
                .into_iter()
                .find(|b| page.contains(&format!("content=\"{b}\"")));
            (bundle, page)
        }
    };
    for path in [
        "/chapter/6".to_string(),
        "/chapter/6?present=1".to_string(),
        format!("/chapter/6?s={balance_on_6}"),
    ] {
        let (bundle, page) = bundle_of(path.clone()).await;
        assert_eq!(bundle, Some("shapes"), "{path}");
        assert!(page.contains("<title>Chapter 6: "), "{path}: its words");
    }
    for path in [
        "/chapter/6?db=innodb".to_string(),
        format!("/chapter/6?s={seat_on_6}"),
        format!("/chapter/5?s={balance}"),
        "/chapter/5?with=shapes".to_string(),
    ] {
        let (bundle, _) = bundle_of(path.clone()).await;
        assert_eq!(bundle, Some("innodb"), "{path}: the whole page");
    }
    for path in [
        "/chapter/5".to_string(),
        format!("/chapter/5?s={seats}"),
        "/chapter/5?with=shape".to_string(),
        "/chapter/60".to_string(),
    ] {
        assert_eq!(bundle_of(path.clone()).await.0, None, "{path}");
    }
}
