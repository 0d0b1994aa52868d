//! A message's content: from LINE's content endpoint (`GET /v2/bot/message/{messageId}/content`
//! on `api-data.line.me`, `LINE_DATA_API_BASE`), or, when the message names an `external`
//! content provider, from its `originalContentUrl` through the SSRF-guarded fetcher
//! ([`crate::sources::fetch`]: no private or local addresses, every redirect checked). Either way
//! the body is read in chunks up to one cap (a larger one is refused, not downloaded whole),
//! within one time limit, and its content type must be one the caller can use. Nothing is kept:
//! the bytes live for the turn.

use std::time::Duration;

use reqwest::StatusCode;

use crate::platform::config::Secret;
use crate::sources::fetch::{DownloadError, FetchError, Fetcher};

/// The time limit of one download, from LINE or from an external provider.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// Where a message's content is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContentRef {
    /// On LINE's servers, by message id.
    Line(String),
    /// At an external provider's URL (`originalContentUrl`).
    External(String),
}

impl ContentRef {
    /// Where the content of message `message_id` is: on LINE, or at the external provider's
    /// `original_content_url`; `None` for an external provider without a URL.
    pub fn of(message_id: &str, on_line: bool, original_content_url: Option<&str>) -> Option<Self> {
        if on_line {
            return Some(ContentRef::Line(message_id.to_string()));
        }
        let url = original_content_url?.trim();
        (!url.is_empty()).then(|| ContentRef::External(url.to_string()))
    }
}

/// Content fetched for one turn.
#[derive(Debug, Clone)]
pub struct Content {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// The content type the server gave, without parameters, lower case.
    pub content_type: String,
}

/// Why content could not be had.
#[derive(Debug, thiserror::Error)]
pub enum ContentError {
    /// LINE no longer has it (content is kept only for a while) or never had it.
    #[error("the content is gone (HTTP 404)")]
    Expired,
    /// Larger than the cap.
    #[error("the content is larger than {0} bytes")]
    TooLarge(usize),
    /// A type the caller cannot use.
    #[error("unexpected content type {0:?}")]
    WrongType(String),
    /// LINE answered another error, or could not be reached; or the download took too long.
    #[error("content unavailable: {0}")]
    Unavailable(String),
    /// An external provider's URL was refused by the SSRF guard (nothing was sent), answered an
    /// error or could not be reached.
    #[error("external content not fetched: {0}")]
    External(String),
}

impl From<DownloadError> for ContentError {
    fn from(error: DownloadError) -> Self {
        match error {
            DownloadError::TooLarge(max) => ContentError::TooLarge(max),
            DownloadError::Fetch(FetchError::Unsupported(kind)) => ContentError::WrongType(kind),
            DownloadError::Fetch(FetchError::Timeout) => {
                ContentError::Unavailable("the external provider took too long".into())
            }
            DownloadError::Fetch(other) => ContentError::External(other.to_string()),
        }
    }
}

/// The client for message content: LINE's content endpoint and external providers.
#[derive(Clone)]
pub struct ContentClient {
    http: reqwest::Client,
    base: String,
    token: Secret,
    max_bytes: usize,
    external: Fetcher,
}

impl ContentClient {
    /// A client for `base` (`https://api-data.line.me`) reading at most `max_bytes` a message,
    /// and external content through `external` (whose settings should carry the same cap and
    /// [`TIMEOUT`]); fails when the HTTP client cannot be built.
    pub fn new(
        base: &str,
        token: Secret,
        max_bytes: usize,
        external: Fetcher,
    ) -> Result<Self, reqwest::Error> {
        let http = crate::platform::tls::client_builder()
            .timeout(TIMEOUT)
            .connect_timeout(Duration::from_secs(5))
            .build()?;
        Ok(Self { http, base: base.trim_end_matches('/').to_string(), token, max_bytes, external })
    }

    /// The content at `at` when its type starts with one of `accept` (e.g. `image/`, `audio/`,
    /// `application/pdf`).
    pub async fn fetch(&self, at: &ContentRef, accept: &[&str]) -> Result<Content, ContentError> {
        match at {
            ContentRef::Line(message_id) => self.line_content(message_id, accept).await,
            ContentRef::External(url) => {
                let file = self.external.fetch_file(url, accept).await?;
                Ok(Content { bytes: file.bytes, content_type: file.content_type })
            }
        }
    }

    /// The content of message `message_id` from LINE's content endpoint.
    async fn line_content(
        &self,
        message_id: &str,
        accept: &[&str],
    ) -> Result<Content, ContentError> {
        let url = format!("{}/v2/bot/message/{}/content", self.base, urlencode(message_id));
        let unavailable = |e: reqwest::Error| ContentError::Unavailable(e.to_string());
        let mut response = self
            .http
            .get(url)
            .bearer_auth(self.token.expose())
            .send()
            .await
            .map_err(unavailable)?;
        match response.status() {
            s if s.is_success() => {}
            StatusCode::NOT_FOUND | StatusCode::GONE => return Err(ContentError::Expired),
            s => return Err(ContentError::Unavailable(format!("HTTP {s}"))),
        }
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if !accept.iter().any(|a| content_type.starts_with(a)) {
            return Err(ContentError::WrongType(content_type));
        }
        let length = response.content_length();
        if length.is_some_and(|n| n > self.max_bytes as u64) {
            return Err(ContentError::TooLarge(self.max_bytes));
        }
        // Sized once when LINE says how much is coming: a buffer that doubled its way to 9.8 MB
        // would hold 16 MiB, and both halves while it grew.
        let mut bytes = Vec::with_capacity(length.map_or(0, |n| n as usize));
        while let Some(chunk) = response.chunk().await.map_err(unavailable)? {
            if bytes.len() + chunk.len() > self.max_bytes {
                return Err(ContentError::TooLarge(self.max_bytes));
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(Content { bytes, content_type })
    }
}

/// Message ids are digits; anything else is percent-encoded so it stays one path segment.
fn urlencode(id: &str) -> String {
    id.bytes()
        .map(|b| match b {
            b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'-' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_is_on_line_unless_an_external_provider_gives_a_url() {
        assert_eq!(ContentRef::of("7", true, None), Some(ContentRef::Line("7".into())));
        assert_eq!(
            ContentRef::of("7", false, Some(" https://cdn.example.com/a.jpg ")),
            Some(ContentRef::External("https://cdn.example.com/a.jpg".into()))
        );
        assert_eq!(ContentRef::of("7", false, None), None);
        assert_eq!(ContentRef::of("7", false, Some(" ")), None);
    }

    #[test]
    fn a_message_id_stays_one_path_segment() {
        assert_eq!(super::urlencode("590001"), "590001");
        assert_eq!(super::urlencode("../x?y"), "%2E%2E%2Fx%3Fy");
    }
}
