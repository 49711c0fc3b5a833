//! The built page's files: compressed once at build time (`backend compress DIR` writes a `.br`
//! and a `.gz` beside each text or wasm file), served precompressed to whoever accepts it, and
//! cached for good when Trunk's hash is in the name (a new build is a new name).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use axum::extract::Request;
use axum::http::header::{
    ACCEPT_ENCODING, ACCEPT_RANGES, CACHE_CONTROL, CONTENT_TYPE, LAST_MODIFIED, VARY,
};
use axum::http::{HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

/// For a file whose name carries its content's hash: it never changes.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// For everything else (the HTML above all): ask again each time, so a new build shows at once.
pub const NO_CACHE: &str = "no-cache";

/// The files worth compressing, by extension.
const COMPRESSIBLE: &[&str] = &["wasm", "js", "css", "html", "svg", "json", "txt", "map"];

/// One file compressed: its path and its sizes in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compressed {
    pub path: PathBuf,
    pub raw: u64,
    pub brotli: u64,
    pub gzip: u64,
}

/// Writes `NAME.br` (brotli, quality 11) and `NAME.gz` (gzip, level 9) beside every compressible
/// file under `dir`, replacing older ones; what it compressed, in path order.
pub fn compress_dir(dir: &Path) -> io::Result<Vec<Compressed>> {
    let mut files = Vec::new();
    collect(dir, &mut files)?;
    files.sort();
    files.iter().map(|path| compress_file(path)).collect()
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, files)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| COMPRESSIBLE.contains(&e))
        {
            files.push(path);
        }
    }
    Ok(())
}

fn compress_file(path: &Path) -> io::Result<Compressed> {
    let raw = std::fs::read(path)?;
    let br = brotli(&raw)?;
    let gz = gzip(&raw)?;
    std::fs::write(with_suffix(path, "br"), &br)?;
    std::fs::write(with_suffix(path, "gz"), &gz)?;
    Ok(Compressed {
        path: path.to_path_buf(),
        raw: raw.len() as u64,
        brotli: br.len() as u64,
        gzip: gz.len() as u64,
    })
}

/// `raw` as brotli at quality 11 (the smallest it makes).
pub fn brotli(raw: &[u8]) -> io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(raw.len() / 3);
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        lgwin: 22,
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &raw[..], &mut out, &params)?;
    Ok(out)
}

/// `raw` as gzip at level 9.
pub fn gzip(raw: &[u8]) -> io::Result<Vec<u8>> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(raw)?;
    gz.finish()
}

/// How a response body goes out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Brotli,
    Gzip,
    Identity,
}

impl Encoding {
    /// The best encoding `Accept-Encoding` allows: brotli, then gzip, then none (a coding
    /// given `q=0` is refused; `*` stands for every coding not named).
    pub fn accepted(headers: &HeaderMap) -> Encoding {
        let mut br = None;
        let mut gz = None;
        let mut any = None;
        for value in headers.get_all(ACCEPT_ENCODING) {
            for item in value.to_str().unwrap_or_default().split(',') {
                let mut parts = item.split(';');
                let coding = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
                let refused = parts.any(|p| {
                    p.trim()
                        .strip_prefix("q=")
                        .and_then(|q| q.trim().parse::<f32>().ok())
                        .is_some_and(|q| q <= 0.0)
                });
                let slot = match coding.as_str() {
                    "br" => &mut br,
                    "gzip" | "x-gzip" => &mut gz,
                    "*" => &mut any,
                    _ => continue,
                };
                *slot = Some(!refused);
            }
        }
        if br.or(any).unwrap_or(false) {
            Encoding::Brotli
        } else if gz.or(any).unwrap_or(false) {
            Encoding::Gzip
        } else {
            Encoding::Identity
        }
    }

    /// The `Content-Encoding` value, if any.
    pub fn header(self) -> Option<&'static str> {
        match self {
            Encoding::Brotli => Some("br"),
            Encoding::Gzip => Some("gzip"),
            Encoding::Identity => None,
        }
    }
}

/// `dist/app.wasm` → `dist/app.wasm.br`.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(suffix);
    PathBuf::from(name)
}

/// Whether a file name carries Trunk's content hash: `frontend-0123456789abcdef_bg.wasm`,
/// `style-0123456789abcdef.css` (a dash, then the hash as 8 to 16 hex digits, since Trunk
/// writes it without its leading zeros, then `.` or `_`).
pub fn is_hashed(name: &str) -> bool {
    let bytes = name.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        let digits = bytes[i + 1..]
            .iter()
            .take_while(|c| c.is_ascii_hexdigit())
            .count();
        b == b'-'
            && (8..=16).contains(&digits)
            && matches!(bytes.get(i + 1 + digits), Some(b'.' | b'_'))
    })
}

/// The `Cache-Control` of the page's files: immutable for hashed names, `no-cache` for the rest.
/// Every response that may come compressed says that it depends on `Accept-Encoding`.
pub async fn cache_headers(request: Request, next: Next) -> Response {
    let name = request
        .uri()
        .path()
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string();
    let mut response = next.run(request).await;
    let ok = response.status().is_success() || response.status().as_u16() == 304;
    let html = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    let value = if ok && !html && is_hashed(&name) {
        IMMUTABLE
    } else {
        NO_CACHE
    };
    let headers = response.headers_mut();
    if value == IMMUTABLE {
        // Never asked for again, so never revalidated or resumed: the validators and the
        // range support would be bytes of every first visit for nothing.
        headers.remove(LAST_MODIFIED);
        headers.remove(ACCEPT_RANGES);
    }
    headers.insert(CACHE_CONTROL, HeaderValue::from_static(value));
    if !headers.contains_key(VARY) {
        headers.insert(VARY, HeaderValue::from_static("accept-encoding"));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trunk_s_hashed_names_are_told_from_plain_ones() {
        assert!(is_hashed("frontend-5c1d2e3f4a5b6c7d_bg.wasm"));
        assert!(is_hashed("frontend-5c1d2e3f4a5b6c7d.js"));
        assert!(is_hashed("panels-00112233445566ff.css"));
        assert!(!is_hashed("index.html"));
        assert!(!is_hashed("chapter-1"));
        assert!(!is_hashed("my-file.css"));
        assert!(
            is_hashed("frontend-479abe1ab61852_bg.wasm"),
            "leading zeros left out"
        );
        assert!(!is_hashed("frontend-5c1d2.js"), "five digits");
        assert!(
            !is_hashed("frontend-5c1d2e3f4a5b6c7d9.js"),
            "seventeen digits"
        );
        assert!(!is_hashed("frontend-5c1d2e3f4a5b6c7dzz.js"));
    }

    fn accept(value: &str) -> Encoding {
        let mut headers = HeaderMap::new();
        headers.insert(
            ACCEPT_ENCODING,
            HeaderValue::from_str(value).expect("a header"),
        );
        Encoding::accepted(&headers)
    }

    #[test]
    fn the_best_accepted_encoding_is_chosen() {
        assert_eq!(accept("gzip, deflate, br, zstd"), Encoding::Brotli);
        assert_eq!(accept("gzip"), Encoding::Gzip);
        assert_eq!(accept("br;q=0, gzip;q=0.5"), Encoding::Gzip);
        assert_eq!(accept("identity"), Encoding::Identity);
        assert_eq!(accept("*"), Encoding::Brotli);
        assert_eq!(accept("*;q=0"), Encoding::Identity);
        assert_eq!(accept("BR ; q=1"), Encoding::Brotli);
        assert_eq!(Encoding::accepted(&HeaderMap::new()), Encoding::Identity);
    }
}
