//! LINE's content endpoint: `GET /v2/bot/message/{messageId}/content` on `api-data.line.me`
//! (`LINE_DATA_API_BASE`). The body is read in chunks up to a cap (a larger one is refused, not
//! downloaded whole), and its content type must be one the caller can use. Nothing is kept: the
//! bytes live for the turn.

use std::time::Duration;

use reqwest::StatusCode;

use crate::config::Secret;

/// Content fetched for one turn.
#[derive(Debug, Clone)]
pub struct Content {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// The content type LINE gave, without parameters, lower case.
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
    /// LINE answered another error, or could not be reached.
    #[error("content unavailable: {0}")]
    Unavailable(String),
}

/// The client for LINE's content endpoint.
#[derive(Clone)]
pub struct ContentClient {
    http: reqwest::Client,
    base: String,
    token: Secret,
    max_bytes: usize,
}

impl ContentClient {
    /// A client for `base` (`https://api-data.line.me`) reading at most `max_bytes` a message;
    /// fails when the HTTP client cannot be built.
    pub fn new(base: &str, token: Secret, max_bytes: usize) -> Result<Self, reqwest::Error> {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(20))
            .connect_timeout(Duration::from_secs(5))
            .build()?;
        Ok(Self { http, base: base.trim_end_matches('/').to_string(), token, max_bytes })
    }

    /// The content of message `message_id` when its type starts with one of `accept` (e.g.
    /// `image/`, `audio/`, `application/pdf`).
    pub async fn fetch(&self, message_id: &str, accept: &[&str]) -> Result<Content, ContentError> {
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
        if response.content_length().is_some_and(|n| n > self.max_bytes as u64) {
            return Err(ContentError::TooLarge(self.max_bytes));
        }
        let mut bytes = Vec::new();
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
    #[test]
    fn a_message_id_stays_one_path_segment() {
        assert_eq!(super::urlencode("590001"), "590001");
        assert_eq!(super::urlencode("../x?y"), "%2E%2E%2Fx%3Fy");
    }
}
