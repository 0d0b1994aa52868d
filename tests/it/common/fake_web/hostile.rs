//! Hostile pages for `summarize_url` (`/hostile/{kind}`): nesting thousands of levels deep,
//! a 2 MB page on one line, and 200,000 empty elements. Each ends with [`DEEP_TEXT`].

use axum::extract::{Path, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

use super::FakeWeb;

/// The text every hostile page carries, innermost.
pub const DEEP_TEXT: &str = "The family picnic is on Saturday at the riverside park.";

/// Every kind of hostile page served.
pub const KINDS: &[&str] = &[
    "nested-inline-5000",
    "nested-inline-100000",
    "nested-block-5000",
    "nested-block-100000",
    "single-line-2mb",
    "empty-elements-200000",
    "rebuilt-formatting",
];

fn nested(open: &str, close: &str, levels: usize) -> String {
    format!(
        "<!DOCTYPE html><html><head><title>Deep</title></head><body>{}<p>{DEEP_TEXT}</p>{}</body></html>",
        open.repeat(levels),
        close.repeat(levels)
    )
}

/// The page of `kind`, one of [`KINDS`].
pub fn page(kind: &str) -> Option<String> {
    Some(match kind {
        "nested-inline-5000" => nested("<b>", "</b>", 5_000),
        "nested-inline-100000" => nested("<b>", "</b>", 100_000),
        "nested-block-5000" => nested("<div>", "</div>", 5_000),
        "nested-block-100000" => nested("<div>", "</div>", 100_000),
        "single-line-2mb" => {
            let paragraph = "<p>The riverside bike path will be extended by twelve kilometres, with shaded rest stops, fountains and lights for evening riders.</p>";
            let body = paragraph.repeat(1_990_000 / paragraph.len());
            format!(
                "<!DOCTYPE html><html><head><title>One line</title></head><body><article>{body}<p>{DEEP_TEXT}</p></article></body></html>"
            )
        }
        "empty-elements-200000" => format!(
            "<!DOCTYPE html><html><head><title>Empty</title></head><body>{}<p>{DEEP_TEXT}</p></body></html>",
            "<i></i>".repeat(200_000)
        ),
        // Every new paragraph makes the HTML parser rebuild the 250 formatting elements left
        // open (each distinct, so none is dropped as a duplicate): ten million elements from
        // 300 KB, over a gigabyte in a parser.
        "rebuilt-formatting" => {
            let open: String = (0..250).map(|n| format!("<b class=f{n}>")).collect();
            format!(
                "<!DOCTYPE html><html><head><title>Rebuilt</title></head><body><p>{DEEP_TEXT}</p><p>{open}{}</body></html>",
                "<p>.\n".repeat(39_000)
            )
        }
        _ => return None,
    })
}

/// `/hostile/{kind}`.
pub async fn serve(
    State(web): State<FakeWeb>,
    Path(kind): Path<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    web.record(&uri, &headers);
    match page(&kind) {
        Some(html) => {
            (StatusCode::OK, [(CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
        }
        None => StatusCode::NOT_FOUND.into_response(),
    }
}
