//! Tavily (`POST /search`, bearer key). Errors are FastAPI-style `{"detail": {"error": …}}`.

use serde::Deserialize;
use serde_json::json;

use super::{SearchQuery, SearchResult, status_error};
use crate::platform::config::Secret;
use crate::sources::{UpstreamError, join_url, send};

#[derive(Debug, Deserialize)]
struct Response {
    #[serde(default)]
    results: Vec<Hit>,
}

#[derive(Debug, Deserialize)]
struct Hit {
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    content: Option<String>,
}

/// The Tavily client.
#[derive(Clone)]
pub struct Tavily {
    http: reqwest::Client,
    base_url: String,
    key: Secret,
}

impl Tavily {
    /// A client for `base_url` with `key`.
    pub fn new(http: reqwest::Client, base_url: &str, key: Secret) -> Self {
        Self { http, base_url: base_url.trim().to_string(), key }
    }

    /// Searches.
    pub async fn search(&self, q: &SearchQuery) -> Result<Vec<SearchResult>, UpstreamError> {
        let mut body = json!({
            "query": q.query,
            "search_depth": "basic",
            "max_results": super::MAX_RESULTS,
            "include_answer": false,
            "topic": "general",
        });
        if let Some(range) = q.time_range {
            body["time_range"] = json!(range.as_str());
        }
        let request = self
            .http
            .post(join_url(&self.base_url, "search"))
            .bearer_auth(self.key.expose())
            .json(&body);
        let raw = send(request).await?;
        if !raw.status.is_success() {
            return Err(status_error(raw.status));
        }
        let body: Response = raw.json()?;
        Ok(body
            .results
            .into_iter()
            .filter_map(|h| {
                Some(SearchResult {
                    url: h.url?,
                    title: h.title.unwrap_or_default().trim().to_string(),
                    snippet: h.content.unwrap_or_default().trim().to_string(),
                })
            })
            .collect())
    }
}
