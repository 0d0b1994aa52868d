//! One endpoint of an OpenAI-compatible server as hearth calls it: a path under the base URL
//! (which carries the version, e.g. `…/v1`), the key sent as a bearer token when there is one,
//! and an HTTP client with a time limit for the whole answer. The chat completions client and
//! the voice transcription client post through it; each maps the answer to its own errors.

use std::time::Duration;

use bytes::Bytes;
use reqwest::{RequestBuilder, StatusCode};

use crate::platform::config::Secret;

/// An endpoint and the client that calls it.
#[derive(Clone)]
pub struct Endpoint {
    http: reqwest::Client,
    url: String,
    api_key: Secret,
}

impl Endpoint {
    /// `path` under `base_url`, answered within `timeout`; fails when the HTTP client cannot be
    /// built (there is no client without time limits to fall back on).
    pub fn new(
        base_url: &str,
        path: &str,
        api_key: Secret,
        timeout: Duration,
    ) -> Result<Self, reqwest::Error> {
        let http = crate::platform::tls::client_builder()
            .timeout(timeout)
            .connect_timeout(Duration::from_secs(10))
            .build()?;
        Ok(Self { http, url: format!("{}/{path}", base_url.trim_end_matches('/')), api_key })
    }

    /// Posts what `body` puts in the request; the answer's status and its whole body.
    pub async fn post(
        &self,
        body: impl FnOnce(RequestBuilder) -> RequestBuilder,
    ) -> Result<(StatusCode, Bytes), reqwest::Error> {
        let mut request = body(self.http.post(&self.url));
        if !self.api_key.is_empty() {
            request = request.bearer_auth(self.api_key.expose());
        }
        let response = request.send().await?;
        let status = response.status();
        Ok((status, response.bytes().await?))
    }
}
