//! One endpoint of an OpenAI-compatible server as hearth calls it: a path under the base URL
//! (which carries the version, e.g. `…/v1`), the key sent as a bearer token when there is one,
//! and an HTTP client with a time limit for the whole answer. The chat completions client and
//! the voice transcription and speech clients post through it; each maps the answer to its own errors.

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
        // An API answers where it was asked: a redirect is an answer, never followed (a
        // speech server's 302 would otherwise be fetched and used as the audio).
        let http = crate::platform::tls::client_builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .connect_timeout(Duration::from_secs(10))
            .build()?;
        Ok(Self { http, url: format!("{}/{path}", base_url.trim_end_matches('/')), api_key })
    }

    /// The request `body` makes, with the key when there is one.
    fn request(&self, body: impl FnOnce(RequestBuilder) -> RequestBuilder) -> RequestBuilder {
        let request = body(self.http.post(&self.url));
        if self.api_key.is_empty() { request } else { request.bearer_auth(self.api_key.expose()) }
    }

    /// Posts what `body` puts in the request; the answer's status and its whole body.
    pub async fn post(
        &self,
        body: impl FnOnce(RequestBuilder) -> RequestBuilder,
    ) -> Result<(StatusCode, Bytes), reqwest::Error> {
        let response = self.request(body).send().await?;
        let status = response.status();
        Ok((status, response.bytes().await?))
    }

    /// [`Endpoint::post`] reading at most `max_bytes` of the answer: `None` for the body when
    /// the answer is longer (what was read is dropped).
    pub async fn post_capped(
        &self,
        body: impl FnOnce(RequestBuilder) -> RequestBuilder,
        max_bytes: usize,
    ) -> Result<(StatusCode, Option<Vec<u8>>), reqwest::Error> {
        let mut response = self.request(body).send().await?;
        let status = response.status();
        let mut read = Vec::new();
        while let Some(chunk) = response.chunk().await? {
            if read.len() + chunk.len() > max_bytes {
                return Ok((status, None));
            }
            read.extend_from_slice(&chunk);
        }
        Ok((status, Some(read)))
    }
}
