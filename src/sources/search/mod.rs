//! Web search behind one [`SearchProvider`]: SearXNG's JSON API (self-hosted, the default) or a
//! hosted API with a key (Tavily, Brave), chosen by configuration. Every provider's answer becomes
//! the same list of [`SearchResult`]s; snippets are plain text (Brave's `<strong>` removed).
//! What comes back is untrusted web content: the `web_search` tool fences it for the LLM.

mod brave;
mod searxng;
mod tavily;

use serde::{Deserialize, Serialize};

use super::UpstreamError;
use crate::platform::config::{Config, Secret};
use crate::platform::i18n::Lang;

/// Results returned at most.
pub const MAX_RESULTS: usize = 5;

/// One search hit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchResult {
    /// The page title.
    pub title: String,
    /// The page address.
    pub url: String,
    /// A short extract, plain text.
    pub snippet: String,
}

/// How recent the results must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TimeRange {
    /// The last day.
    Day,
    /// The last week.
    Week,
    /// The last month.
    Month,
    /// The last year.
    Year,
}

impl TimeRange {
    /// The name SearXNG and Tavily use.
    pub fn as_str(self) -> &'static str {
        match self {
            TimeRange::Day => "day",
            TimeRange::Week => "week",
            TimeRange::Month => "month",
            TimeRange::Year => "year",
        }
    }
}

/// A search request.
#[derive(Debug, Clone)]
pub struct SearchQuery {
    /// What to search for.
    pub query: String,
    /// Only results this recent.
    pub time_range: Option<TimeRange>,
    /// The language of the asker (results in it are preferred).
    pub lang: Lang,
}

/// The configured search provider.
#[derive(Clone)]
pub enum SearchProvider {
    /// A SearXNG instance (`HEARTH_SEARXNG_URL`).
    Searxng(searxng::Searxng),
    /// Tavily (`HEARTH_TAVILY_API_KEY`).
    Tavily(tavily::Tavily),
    /// Brave Search (`HEARTH_BRAVE_API_KEY`).
    Brave(brave::Brave),
}

impl SearchProvider {
    /// The provider the configuration names, if any: SearXNG when its URL is set, else Tavily,
    /// else Brave, each only when configured. `None` means `web_search` is not offered.
    pub fn from_config(config: &Config, http: reqwest::Client) -> Option<Self> {
        let set = |s: &Secret| !s.is_empty();
        if !config.web.searxng_url.trim().is_empty() {
            return Some(Self::searxng(http, &config.web.searxng_url));
        }
        if set(&config.web.tavily_api_key) {
            return Some(Self::tavily(
                http,
                &config.web.tavily_url,
                config.web.tavily_api_key.clone(),
            ));
        }
        if set(&config.web.brave_api_key) {
            return Some(Self::brave(
                http,
                &config.web.brave_url,
                config.web.brave_api_key.clone(),
            ));
        }
        None
    }

    /// A SearXNG provider at `base_url`.
    pub fn searxng(http: reqwest::Client, base_url: &str) -> Self {
        Self::Searxng(searxng::Searxng::new(http, base_url))
    }

    /// Tavily at `base_url` with `key`.
    pub fn tavily(http: reqwest::Client, base_url: &str, key: Secret) -> Self {
        Self::Tavily(tavily::Tavily::new(http, base_url, key))
    }

    /// Brave Search at `base_url` with `key`.
    pub fn brave(http: reqwest::Client, base_url: &str, key: Secret) -> Self {
        Self::Brave(brave::Brave::new(http, base_url, key))
    }

    /// The provider's name, for the answer's footnote.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Searxng(_) => "SearXNG",
            Self::Tavily(_) => "Tavily",
            Self::Brave(_) => "Brave Search",
        }
    }

    /// Searches; at most [`MAX_RESULTS`] results, an empty list when nothing was found.
    pub async fn search(&self, q: &SearchQuery) -> Result<Vec<SearchResult>, UpstreamError> {
        let mut results = match self {
            Self::Searxng(p) => p.search(q).await?,
            Self::Tavily(p) => p.search(q).await?,
            Self::Brave(p) => p.search(q).await?,
        };
        results.retain(|r| r.url.starts_with("https://") || r.url.starts_with("http://"));
        results.truncate(MAX_RESULTS);
        Ok(results)
    }
}

/// The error for a status the provider answered with (after 429 and 5xx, handled by `send`).
fn status_error(status: reqwest::StatusCode) -> UpstreamError {
    match status.as_u16() {
        401 | 403 => UpstreamError::Reported("the search service refused hearth's key".into()),
        _ => UpstreamError::Status(status),
    }
}
