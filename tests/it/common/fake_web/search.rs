//! The search provider routes of the fake web.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Query, State};
use axum::http::header::{CONTENT_TYPE, RETRY_AFTER};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::FakeWeb;

/// A failure chosen by the query, in the provider's own error shape.
fn failure(query: &str, provider: &str) -> Option<Response> {
    let status = match query {
        q if q.contains("e401") => StatusCode::UNAUTHORIZED,
        q if q.contains("e422") => StatusCode::UNPROCESSABLE_ENTITY,
        q if q.contains("e429") => StatusCode::TOO_MANY_REQUESTS,
        q if q.contains("e500") => StatusCode::INTERNAL_SERVER_ERROR,
        q if q.contains("html") => {
            return Some(
                (
                    StatusCode::OK,
                    [(CONTENT_TYPE, "text/html")],
                    "<html><body>Just a moment...</body></html>",
                )
                    .into_response(),
            );
        }
        _ => return None,
    };
    let body = match provider {
        "brave" => {
            let code = if status == StatusCode::UNPROCESSABLE_ENTITY {
                "SUBSCRIPTION_TOKEN_INVALID"
            } else if status == StatusCode::TOO_MANY_REQUESTS {
                "RATE_LIMITED"
            } else {
                "SERVER_ERROR"
            };
            json!({"type": "ErrorResponse", "error": {"id": "ade84851", "status": status.as_u16(), "code": code, "detail": "Unable to validate request parameter(s)", "meta": {}}, "time": 1_754_364_294})
        }
        "tavily" => json!({"detail": {"error": "Unauthorized: missing or invalid API key."}}),
        _ => json!({"error": "failure"}),
    };
    let mut response = (status, Json(body)).into_response();
    if status == StatusCode::TOO_MANY_REQUESTS {
        response.headers_mut().insert(RETRY_AFTER, "1".parse().expect("header"));
    }
    Some(response)
}

/// Three results for `query`: (title, url, snippet). A query with `local` gets links to this
/// fake's own `/article` (so they can be read), any other links to example.com.
fn hits(query: &str, base: &str) -> Vec<(String, String, String)> {
    (1..=3)
        .map(|i| {
            (
                format!("{query} — 報導 {i}"),
                if query.contains("local") {
                    format!("{base}/article?story={i}")
                } else {
                    format!("https://news{i}.example.com/story/{i}")
                },
                format!("第 {i} 則：關於 {query} 的最新消息。"),
            )
        })
        .collect()
}

/// `GET /searxng/search?q=…&format=json`.
pub async fn searxng(
    State(web): State<FakeWeb>,
    uri: Uri,
    headers: HeaderMap,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    web.record(&uri, &headers);
    let q = params.get("q").cloned().unwrap_or_default();
    if params.get("format").map(String::as_str) != Some("json") {
        return (StatusCode::FORBIDDEN, "Forbidden").into_response();
    }
    if let Some(r) = failure(&q, "searxng") {
        return r;
    }
    let (results, unresponsive): (Vec<Value>, Value) = if q.contains("empty") {
        (Vec::new(), json!([]))
    } else if q.contains("down") {
        (
            Vec::new(),
            json!([["bing", "timeout"], ["duckduckgo", "CAPTCHA"], ["google", "access denied"]]),
        )
    } else {
        let results = hits(&q, &web.url())
            .into_iter()
            .enumerate()
            .map(|(i, (title, url, content))| {
                json!({"url": url, "title": title, "content": content, "engine": "duckduckgo",
                       "engines": ["duckduckgo", "brave"], "parsed_url": ["https", "example.com", "/p", "", "", ""],
                       "template": "default.html", "positions": [i + 1], "score": 2.5 - i as f64,
                       "category": "general", "publishedDate": null, "thumbnail": null})
            })
            .collect();
        (results, json!([["bing", "timeout"]]))
    };
    Json(json!({"query": q, "number_of_results": 0, "results": results, "answers": [],
                "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": unresponsive}))
    .into_response()
}

/// `POST /tavily/search` with a JSON body and a bearer key.
pub async fn tavily(
    State(web): State<FakeWeb>,
    uri: Uri,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    web.record(&uri, &headers);
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some("Bearer tvly-test") {
        return (StatusCode::UNAUTHORIZED, Json(json!({"detail": {"error": "Unauthorized"}})))
            .into_response();
    }
    let q = body["query"].as_str().unwrap_or_default().to_string();
    if let Some(r) = failure(&q, "tavily") {
        return r;
    }
    let results: Vec<Value> = if q.contains("empty") {
        Vec::new()
    } else {
        hits(&q, &web.url())
            .into_iter()
            .map(|(title, url, content)| json!({"title": title, "url": url, "content": content, "score": 0.81, "raw_content": null, "favicon": null}))
            .collect()
    };
    Json(json!({"query": q, "answer": null, "images": [], "results": results,
                "response_time": "1.67", "usage": {"credits": 1}, "request_id": "fake"}))
    .into_response()
}

/// `GET /brave/res/v1/web/search?q=…` with `X-Subscription-Token`.
pub async fn brave(
    State(web): State<FakeWeb>,
    uri: Uri,
    headers: HeaderMap,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    web.record(&uri, &headers);
    let q = params.get("q").cloned().unwrap_or_default();
    if let Some(r) = failure(&q, "brave") {
        return r;
    }
    if q.contains("empty") {
        return Json(
            json!({"type": "search", "query": {"original": q, "more_results_available": false}}),
        )
        .into_response();
    }
    let results: Vec<Value> = hits(&q, &web.url())
        .into_iter()
        .map(|(title, url, content)| {
            json!({"title": format!("<strong>{title}</strong>"), "url": url,
                   "description": content.replace(&q, &format!("<strong>{q}</strong>")),
                   "page_age": "2025-01-15T08:00:00", "age": "2 days ago",
                   "profile": {"name": "news", "img": "https://imgs.example/x.png"}, "extra_snippets": []})
        })
        .collect();
    Json(json!({"type": "search", "query": {"original": q, "more_results_available": true},
                "web": {"type": "search", "results": results}}))
    .into_response()
}
