//! Brave Search (`GET /res/v1/web/search`, `X-Subscription-Token`). Descriptions carry HTML
//! highlights (`<strong>`), removed here; a missing `web` section means no results; a bad key is
//! `422` with code `SUBSCRIPTION_TOKEN_INVALID`.

use serde::Deserialize;

use super::{SearchQuery, SearchResult, status_error};
use crate::platform::config::Secret;
use crate::platform::i18n::Lang;
use crate::sources::extract::strip_inline_tags;
use crate::sources::{UpstreamError, join_url, send};

#[derive(Debug, Deserialize)]
struct Response {
    #[serde(default)]
    web: Option<Web>,
}

#[derive(Debug, Deserialize)]
struct Web {
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
    description: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ErrorBody {
    error: ErrorDetail,
}

#[derive(Debug, Deserialize)]
struct ErrorDetail {
    #[serde(default)]
    code: Option<String>,
}

/// The Brave Search client.
#[derive(Clone)]
pub struct Brave {
    http: reqwest::Client,
    base_url: String,
    key: Secret,
}

impl Brave {
    /// A client for `base_url` with `key`.
    pub fn new(http: reqwest::Client, base_url: &str, key: Secret) -> Self {
        Self { http, base_url: base_url.trim().to_string(), key }
    }

    /// Searches.
    pub async fn search(&self, q: &SearchQuery) -> Result<Vec<SearchResult>, UpstreamError> {
        let count = super::MAX_RESULTS.to_string();
        let mut params = vec![("q", q.query.as_str()), ("count", count.as_str())];
        if q.lang == Lang::ZhTw {
            params.push(("country", "TW"));
            params.push(("search_lang", "zh-hant"));
        }
        if let Some(range) = q.time_range {
            let freshness = match range {
                super::TimeRange::Day => "pd",
                super::TimeRange::Week => "pw",
                super::TimeRange::Month => "pm",
                super::TimeRange::Year => "py",
            };
            params.push(("freshness", freshness));
        }
        let request = self
            .http
            .get(join_url(&self.base_url, "res/v1/web/search"))
            .header("X-Subscription-Token", self.key.expose())
            .header("Accept", "application/json")
            .query(&params);
        let raw = send(request).await?;
        if !raw.status.is_success() {
            let code = raw.json::<ErrorBody>().ok().and_then(|b| b.error.code);
            if code.as_deref() == Some("SUBSCRIPTION_TOKEN_INVALID") {
                return Err(status_error(reqwest::StatusCode::UNAUTHORIZED));
            }
            return Err(status_error(raw.status));
        }
        let body: Response = raw.json()?;
        let hits = body.web.map(|w| w.results).unwrap_or_default();
        Ok(hits
            .into_iter()
            .filter_map(|h| {
                Some(SearchResult {
                    url: h.url?,
                    title: strip_inline_tags(&h.title.unwrap_or_default()),
                    snippet: strip_inline_tags(&h.description.unwrap_or_default()),
                })
            })
            .collect())
    }
}
