//! SearXNG's JSON API (`GET /search?format=json`). All engines unresponsive is "search
//! unavailable", not "nothing found".

use serde::Deserialize;

use super::{SearchQuery, SearchResult, status_error};
use crate::sources::{UpstreamError, join_url, send};

#[derive(Debug, Deserialize)]
struct Response {
    #[serde(default)]
    results: Vec<Hit>,
    #[serde(default)]
    unresponsive_engines: Vec<serde_json::Value>,
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

/// A SearXNG instance.
#[derive(Clone)]
pub struct Searxng {
    http: reqwest::Client,
    base_url: String,
}

impl Searxng {
    /// A client for the instance at `base_url`.
    pub fn new(http: reqwest::Client, base_url: &str) -> Self {
        Self { http, base_url: base_url.trim().to_string() }
    }

    /// Searches.
    pub async fn search(&self, q: &SearchQuery) -> Result<Vec<SearchResult>, UpstreamError> {
        let language = q.lang.code();
        let mut params = vec![
            ("q", q.query.as_str()),
            ("format", "json"),
            ("language", language),
            ("pageno", "1"),
            ("categories", "general"),
        ];
        if let Some(range) = q.time_range {
            params.push(("time_range", range.as_str()));
        }
        let request = self.http.get(join_url(&self.base_url, "search")).query(&params);
        let raw = send(request).await?;
        if !raw.status.is_success() {
            return Err(status_error(raw.status));
        }
        let body: Response = raw.json()?;
        if body.results.is_empty() && !body.unresponsive_engines.is_empty() {
            return Err(UpstreamError::Reported(
                "search unavailable: every search engine failed to answer".into(),
            ));
        }
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
