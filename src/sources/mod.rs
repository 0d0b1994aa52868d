//! Clients for the data sources behind the lookup tools (and, later, the scheduler): each has a
//! configurable base URL, timeouts, a cache, and turns every failure into an [`UpstreamError`].
//! Web search ([`search`]) and the SSRF-guarded page fetcher ([`fetch`], [`extract`]) live here
//! too, [`securities`], the table of Taiwan securities, and [`symbols`], the names the family
//! uses for instruments.

pub mod caldav;
pub mod calendar;
pub mod cap;
pub mod extract;
pub mod fetch;
pub mod fx;
pub mod quotes;
pub mod sandbox;
pub mod search;
pub mod securities;
pub mod symbols;
pub mod weather;

use std::time::Duration;

use reqwest::StatusCode;
use serde::de::DeserializeOwned;

/// Bodies larger than this are refused: no data source answers with megabytes.
const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

/// Why a data source did not answer usefully.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    /// The request timed out.
    #[error("timeout")]
    Timeout,
    /// The connection failed, or broke off while the body was read: it may pass.
    #[error("connection failed")]
    Connect(#[source] reqwest::Error),
    /// The source is throttling us.
    #[error("rate limited")]
    RateLimited,
    /// An error status.
    #[error("HTTP {0}")]
    Status(StatusCode),
    /// The body was not the JSON we expected (an HTML maintenance page, a changed shape).
    #[error("unexpected response")]
    Garbage(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The source reported an error of its own.
    #[error("{0}")]
    Reported(String),
}

impl From<reqwest::Error> for UpstreamError {
    fn from(e: reqwest::Error) -> Self {
        if e.is_timeout() {
            UpstreamError::Timeout
        } else if e.is_decode() || e.is_body() {
            UpstreamError::Garbage(Box::new(e))
        } else {
            UpstreamError::Connect(e)
        }
    }
}

/// The shared HTTP client for data sources: timeouts, no environment proxy, a browser-like
/// User-Agent (some sources refuse others). Fails when the client cannot be built (a
/// User-Agent that is not a valid header value, say): there is no fallback without time limits.
pub fn http_client(user_agent: &str, timeout: Duration) -> Result<reqwest::Client, reqwest::Error> {
    http_builder(user_agent, timeout).build()
}

/// The builder of [`http_client`], for a source that adds to it (the alerts feed's redirect
/// policy).
pub fn http_builder(user_agent: &str, timeout: Duration) -> reqwest::ClientBuilder {
    crate::platform::tls::client_builder()
        .user_agent(user_agent)
        .timeout(timeout)
        .connect_timeout(Duration::from_secs(5))
        .no_proxy()
}

/// A raw answer: status and body, already size-checked.
pub struct RawResponse {
    /// The HTTP status.
    pub status: StatusCode,
    /// The response's headers.
    pub headers: reqwest::header::HeaderMap,
    /// The body bytes.
    pub body: bytes::Bytes,
}

impl RawResponse {
    /// Parses the body as JSON of type `T`.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, UpstreamError> {
        serde_json::from_slice(&self.body).map_err(|e| UpstreamError::Garbage(Box::new(e)))
    }
}

/// Sends `request`; a 429 or 5xx is an error, other statuses are returned for the caller to read.
pub async fn send(request: reqwest::RequestBuilder) -> Result<RawResponse, UpstreamError> {
    send_limited(request, MAX_BODY_BYTES).await
}

/// [`send`], with bodies refused past `max_bytes` (counted while streaming) rather than the
/// data sources' usual cap: for the one source that is large by nature (the alerts feed).
pub async fn send_limited(
    request: reqwest::RequestBuilder,
    max_bytes: usize,
) -> Result<RawResponse, UpstreamError> {
    let mut response = request.send().await?;
    let status = response.status();
    let headers = response.headers().clone();
    if status == StatusCode::TOO_MANY_REQUESTS {
        return Err(UpstreamError::RateLimited);
    }
    if status.is_server_error() {
        return Err(UpstreamError::Status(status));
    }
    let mut body = Vec::new();
    // A body that breaks off (the connection reset, a chunk cut short) is the connection's
    // failure, which may pass, not a body that will never read (reqwest calls both "decode").
    let broke_off = |e: reqwest::Error| match e.is_timeout() {
        true => UpstreamError::Timeout,
        false => UpstreamError::Connect(e),
    };
    while let Some(chunk) = response.chunk().await.map_err(broke_off)? {
        if body.len() + chunk.len() > max_bytes {
            return Err(UpstreamError::Garbage("response too large".into()));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(RawResponse { status, headers, body: body.into() })
}

/// Joins a base URL and a path without doubling or dropping the slash.
pub fn join_url(base: &str, path: &str) -> String {
    format!("{}/{}", base.trim_end_matches('/'), path.trim_start_matches('/'))
}

/// Every data source, built once at start-up and shared by the tools.
#[derive(Clone)]
pub struct Sources {
    /// Open-Meteo forecast and geocoding.
    pub weather: weather::WeatherSource,
    /// Exchange rates.
    pub fx: fx::FxSource,
    /// Stock, index and crypto quotes.
    pub quotes: quotes::QuoteSource,
    /// Web search, when a provider is configured (`web_search` is offered only then).
    pub search: Option<search::SearchProvider>,
    /// The SSRF-guarded page fetcher behind `summarize_url`.
    pub fetcher: fetch::Fetcher,
    /// The Taiwan securities table: names and markets behind quotes and alerts.
    pub securities: std::sync::Arc<securities::Securities>,
}

/// Why the data sources could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SourcesError {
    /// Their HTTP client could not be built.
    #[error("cannot build the HTTP client")]
    HttpClient(#[from] reqwest::Error),
    /// The securities file (`HEARTH_TW_SECURITIES_FILE`) was refused.
    #[error("the Taiwan securities file was refused")]
    Securities(#[from] securities::SecuritiesError),
}

impl Sources {
    /// The sources at the configured base URLs; fails when their HTTP client cannot be built or
    /// the configured securities file does not parse.
    pub fn from_config(config: &crate::platform::config::Config) -> Result<Self, SourcesError> {
        let http = http_client(
            &config.sources.user_agent,
            Duration::from_secs(config.sources.upstream_timeout_secs),
        )?;
        Ok(Self {
            weather: weather::WeatherSource::new(
                http.clone(),
                &config.sources.open_meteo_url,
                &config.sources.geocoding_url,
            ),
            fx: fx::FxSource::new(http.clone(), &config.sources.fx_url),
            quotes: quotes::QuoteSource::new(
                http.clone(),
                &config.sources.yahoo_url,
                Duration::from_secs(30),
            ),
            search: search::SearchProvider::from_config(config, http),
            fetcher: fetch::Fetcher::new(fetch::FetchSettings {
                policy: fetch::FetchPolicy {
                    allow_private: config.web.allow_private_fetch,
                    exceptions: Vec::new(),
                },
                max_bytes: config.web.fetch_max_bytes.max(1024),
                timeout: Duration::from_secs(config.web.fetch_timeout_secs.max(1)),
                user_agent: config.sources.user_agent.clone(),
            })?,
            securities: securities::Securities::from_setting(
                config.sources.tw_securities_file.as_deref(),
            )?,
        })
    }

    /// The same sources with cache ages judged by `clock` (the application's clock).
    pub fn with_clock(mut self, clock: std::sync::Arc<dyn crate::platform::clock::Clock>) -> Self {
        self.quotes = self.quotes.with_clock(clock);
        self
    }
}
