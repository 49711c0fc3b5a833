//! What every response carries and what every request head may be: the security headers, a
//! JSON message on an error that came without one (a 405 from the router, say), and the
//! limits on the address and the headers, answered in JSON before hyper's own (whose refusals
//! have empty bodies) can apply.

use axum::extract::Request;
use axum::http::header::{
    HeaderName, CONTENT_SECURITY_POLICY, CONTENT_TYPE, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
    X_FRAME_OPTIONS,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use sha2::{Digest, Sha256};

use super::ApiError;

/// The longest address (path and query) the router reads.
pub const MAX_URI_BYTES: usize = 8 * 1024;
/// The most headers a request may have.
pub const MAX_HEADERS: usize = 100;
/// The largest request head: address and headers together.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;

/// The policy of every response but the page's HTML: nothing may run or be framed.
const API_POLICY: &str =
    "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// The page's policy: its own scripts and the wasm they compile (`'wasm-unsafe-eval'`), the
/// inline module script Trunk writes (allowed by its hash, `scripts`), its style sheets, which
/// are inline in the HTML so that the first paint needs nothing else (allowed by their hashes,
/// `styles`), the `style` attributes the app sets (`style-src-attr`), its icon (a `data:`
/// image), and fetches to this server only.
pub fn page_policy(scripts: &[String], styles: &[String]) -> String {
    let sources =
        |hashes: &[String]| -> String { hashes.iter().map(|h| format!(" '{h}'")).collect() };
    format!(
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'{}; \
         style-src 'self'{}; style-src-attr 'unsafe-inline'; img-src 'self' data:; \
         connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; \
         frame-ancestors 'none'",
        sources(scripts),
        sources(styles)
    )
}

/// The `'sha256-…'` source of each inline `<script>` in `html` (a script with a `src` has no
/// inline text to hash).
pub fn inline_script_hashes(html: &str) -> Vec<String> {
    inline_hashes(html, "script")
}

/// The `'sha256-…'` source of each `<style>` element in `html`.
pub fn inline_style_hashes(html: &str) -> Vec<String> {
    inline_hashes(html, "style")
}

/// The hash of the text of each `<tag>` element without a `src`, byte for byte as the browser
/// hashes it.
fn inline_hashes(html: &str, tag: &str) -> Vec<String> {
    let open = format!("<{tag}");
    let close = format!("</{tag}");
    let mut hashes = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find(&open) {
        rest = &rest[start + open.len()..];
        // `<styles>` or `<scripted>` is another element.
        if !rest.starts_with(|c: char| c == '>' || c.is_ascii_whitespace()) {
            continue;
        }
        let Some(open_end) = rest.find('>') else {
            break;
        };
        let attributes = &rest[..open_end];
        rest = &rest[open_end + 1..];
        let Some(end) = rest.find(&close) else {
            break;
        };
        let text = &rest[..end];
        rest = &rest[end..];
        if !attributes.contains("src=") && !text.is_empty() {
            let digest = Sha256::digest(text.as_bytes());
            hashes.push(format!(
                "sha256-{}",
                base64::engine::general_purpose::STANDARD.encode(digest)
            ));
        }
    }
    hashes
}

/// Sets the security headers on every response (keeping a `Content-Security-Policy` a handler
/// set, the page's; the page's own scripts, styles, wasm and images get `nosniff` alone), and
/// gives an error without a body its JSON message.
pub async fn secure(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let mut response = next.run(request).await;
    let status = response.status();
    if (status.is_client_error() || status.is_server_error())
        && !response.headers().contains_key(CONTENT_TYPE)
    {
        response = json_error(status, &method, &path);
    }
    let headers = response.headers_mut();
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    if is_subresource(headers) {
        // A script, a style sheet, the wasm or an image runs under the policy of the page that
        // loads it: a policy, framing or opener header of its own does nothing.
        return response;
    }
    if !headers.contains_key(CONTENT_SECURITY_POLICY) {
        headers.insert(
            CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(API_POLICY),
        );
    }
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        HeaderName::from_static("cross-origin-opener-policy"),
        HeaderValue::from_static("same-origin"),
    );
    response
}

/// Whether a response is one of the page's subresources (by its content type), which only
/// `nosniff` concerns.
fn is_subresource(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| {
            [
                "text/javascript",
                "application/javascript",
                "application/wasm",
                "text/css",
                "image/",
            ]
            .iter()
            .any(|p| t.starts_with(p))
        })
}

/// The JSON error for a response that had none.
fn json_error(status: StatusCode, method: &axum::http::Method, path: &str) -> Response {
    match status {
        // The router adds its `Allow` header outside every layer, after this has run: so the
        // methods are named here from the routes (`router`), where only `/api/runs` and
        // `/api/verify` are POSTs.
        StatusCode::METHOD_NOT_ALLOWED => ApiError::MethodNotAllowed {
            method: method.to_string(),
            allow: if path == "/api/runs" || path == "/api/verify" {
                "POST"
            } else {
                "GET,HEAD"
            }
            .to_string(),
        }
        .into_response(),
        StatusCode::NOT_FOUND => ApiError::NotFound.into_response(),
        status => {
            let message = status.canonical_reason().unwrap_or("error").to_lowercase();
            let body = serde_json::json!({ "error": { "field": null, "message": message } });
            (status, axum::Json(body)).into_response()
        }
    }
}

/// Refuses a request whose address or headers are larger than the server reads, in JSON.
pub async fn bound_head(request: Request, next: Next) -> Response {
    let uri = request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len());
    if uri > MAX_URI_BYTES {
        return ApiError::HeadTooLarge {
            status: StatusCode::URI_TOO_LONG,
            message: format!(
                "the address is {uri} bytes long, and the server reads up to {} KB: shorten it",
                MAX_URI_BYTES / 1024
            ),
        }
        .into_response();
    }
    let headers = request.headers();
    let bytes = uri
        + headers
            .iter()
            .map(|(name, value)| name.as_str().len() + value.len() + 4)
            .sum::<usize>();
    if headers.len() > MAX_HEADERS || bytes > MAX_HEAD_BYTES {
        return ApiError::HeadTooLarge {
            status: StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            message: format!(
                "the request has {} headers in {bytes} bytes, and the server reads up to {MAX_HEADERS} in {} KB: send fewer or smaller headers (cookies count)",
                headers.len(),
                MAX_HEAD_BYTES / 1024
            ),
        }
        .into_response();
    }
    next.run(request).await
}

/// Whether `Content-Type` says JSON (`application/json`, with any parameters such as
/// `charset`); otherwise what it said.
pub fn require_json(headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(value) = headers.get(CONTENT_TYPE) else {
        return Err(ApiError::NotJson(None));
    };
    let text = value.to_str().unwrap_or_default();
    let essence = text.split(';').next().unwrap_or_default().trim();
    if essence.eq_ignore_ascii_case("application/json") {
        Ok(())
    } else {
        Err(ApiError::NotJson(Some(
            String::from_utf8_lossy(value.as_bytes())
                .chars()
                .take(100)
                .collect(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::{inline_script_hashes, inline_style_hashes, page_policy};

    #[test]
    fn only_inline_scripts_are_hashed_byte_for_byte() {
        let html = "<script src=\"/a.js\"></script><script type=\"module\">\nimport init from '/x.js';\n</script>";
        let hashes = inline_script_hashes(html);
        assert_eq!(hashes.len(), 1);
        // The text between the tags, newlines included, as the browser hashes it.
        assert_eq!(
            hashes,
            ["sha256-rj6Ycg9yhc/aUqwo3hrIlxp86VVEQZR3LKMlG/J1o6s="]
        );
    }

    #[test]
    fn inline_styles_are_hashed_and_allowed_by_their_hash_alone() {
        let html = "<head><style>p{color:red}</style><styles>x</styles><script>a()</script></head>";
        let styles = inline_style_hashes(html);
        assert_eq!(styles.len(), 1);
        assert_eq!(inline_script_hashes(html).len(), 1);
        let policy = page_policy(&inline_script_hashes(html), &styles);
        assert!(policy.contains(&format!("style-src 'self' '{}';", styles[0])));
        let style_src = policy
            .split(';')
            .find(|d| d.trim().starts_with("style-src "))
            .expect("a style-src");
        assert!(!style_src.contains("unsafe-inline"), "{policy}");
    }
}
