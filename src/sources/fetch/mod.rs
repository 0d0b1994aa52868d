//! Fetching user-supplied web pages safely (for `summarize_url`). The layers, each needed:
//!
//! 1. [`policy::check_url`] on the URL before anything is sent: http(s) only, ports 80/443, no
//!    userinfo, and IP-literal hosts checked here because `reqwest` skips a custom resolver for
//!    them (the URL parser has already normalised `http://2130706433/` to `127.0.0.1`).
//! 2. A [`resolve::GuardedResolver`] that drops blocked addresses after DNS resolution, so the
//!    client connects only to checked addresses (no DNS rebinding).
//! 3. Redirects followed by hand, each hop checked again, at most [`MAX_REDIRECTS`].
//! 4. `.no_proxy()`, connect and total timeouts, a size cap enforced while streaming, and a
//!    Content-Type allow-list (HTML, XHTML, plain text): a PDF or an image is refused.
//!
//! [`Fetcher::fetch_file`] downloads other content (a photo kept outside LINE) through the same
//! layers, with the caller's content types and the size cap as a hard limit.

pub mod policy;
pub mod resolve;

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, LOCATION};
use url::Url;

pub use policy::{FetchPolicy, Refusal};
use resolve::{GuardedResolver, ResolveError};
pub use resolve::{Lookup, StaticLookup, SystemLookup};

/// Most redirects followed.
pub const MAX_REDIRECTS: usize = 5;
/// Content types that are read; anything else is refused.
const ALLOWED_TYPES: &[&str] =
    &["text/html", "application/xhtml+xml", "text/plain", "text/calendar"];

/// How the fetcher behaves.
#[derive(Debug, Clone)]
pub struct FetchSettings {
    /// Who may be reached.
    pub policy: FetchPolicy,
    /// Bytes read at most; the rest of a larger page is not downloaded.
    pub max_bytes: usize,
    /// Time limit for the whole fetch, redirects included.
    pub timeout: Duration,
    /// The User-Agent sent.
    pub user_agent: String,
}

/// What kind of text a page is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageKind {
    /// HTML or XHTML.
    Html,
    /// Plain text.
    Text,
}

/// A fetched page.
#[derive(Debug, Clone)]
pub struct Page {
    /// The URL finally read (after redirects).
    pub url: Url,
    /// HTML or plain text.
    pub kind: PageKind,
    /// The body, decoded.
    pub body: String,
    /// True when the page was larger than the cap and was cut off.
    pub truncated: bool,
}

/// Why a page could not be fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The URL or an address was refused by the policy; nothing was sent there.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// Not a page hearth reads (a PDF, an image…).
    #[error("the link is {0}, not a web page")]
    Unsupported(String),
    /// The site answered with an error status.
    #[error("the site answered HTTP {0}")]
    Status(u16),
    /// The site took too long.
    #[error("the site took too long to answer")]
    Timeout,
    /// The name does not exist or the site could not be reached.
    #[error("the site could not be reached")]
    Unreachable(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// A file downloaded by [`Fetcher::fetch_file`].
#[derive(Debug, Clone)]
pub struct File {
    /// The bytes, at most the size cap.
    pub bytes: Vec<u8>,
    /// The media type the server gave, lower case, without parameters.
    pub content_type: String,
}

/// Why a file could not be downloaded.
#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    /// Refused, unreachable, an error status, the wrong content type, too slow.
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// Larger than the size cap; the rest was not downloaded.
    #[error("the file is larger than {0} bytes")]
    TooLarge(usize),
}

/// The guarded page fetcher. Cheap to clone.
#[derive(Clone)]
pub struct Fetcher {
    /// The client with the guarded resolver, no proxy, no automatic redirects and time limits.
    client: reqwest::Client,
    settings: Arc<FetchSettings>,
}

impl Fetcher {
    /// A fetcher resolving names with the system resolver; fails when its HTTP client cannot be
    /// built (a User-Agent that is not a valid header value, say).
    pub fn new(settings: FetchSettings) -> Result<Self, reqwest::Error> {
        Self::with_lookup(settings, Arc::new(SystemLookup))
    }

    /// A fetcher resolving names with `lookup` (tests map names to chosen addresses).
    pub fn with_lookup(
        settings: FetchSettings,
        lookup: Arc<dyn Lookup>,
    ) -> Result<Self, reqwest::Error> {
        let resolver = GuardedResolver::new(lookup, settings.policy.clone());
        let client = crate::platform::tls::client_builder()
            .user_agent(settings.user_agent.clone())
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .dns_resolver(Arc::new(resolver))
            .connect_timeout(Duration::from_secs(5).min(settings.timeout))
            .timeout(settings.timeout)
            .build()?;
        Ok(Self { client, settings: Arc::new(settings) })
    }

    /// The settings in force.
    pub fn settings(&self) -> &FetchSettings {
        &self.settings
    }

    /// Fetches `raw` (an http(s) URL) under the policy: every hop checked, the body capped.
    pub async fn fetch(&self, raw: &str) -> Result<Page, FetchError> {
        match tokio::time::timeout(self.settings.timeout, self.fetch_inner(raw)).await {
            Ok(result) => result,
            Err(_) => Err(FetchError::Timeout),
        }
    }

    async fn fetch_inner(&self, raw: &str) -> Result<Page, FetchError> {
        let (url, mut response) = self
            .open(raw, "text/html,application/xhtml+xml,text/plain;q=0.9,text/calendar;q=0.9")
            .await?;
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_ascii_lowercase);
        let mime = content_type.as_deref().map(mime_of);
        if let Some(mime) = &mime
            && !ALLOWED_TYPES.contains(&mime.as_str())
        {
            return Err(FetchError::Unsupported(mime.clone()));
        }
        let (bytes, truncated) = read_capped(&mut response, self.settings.max_bytes).await?;
        if mime.is_none() && looks_binary(&bytes) {
            return Err(FetchError::Unsupported("binary data".into()));
        }
        let kind = match mime.as_deref() {
            Some("text/plain" | "text/calendar") => PageKind::Text,
            _ => PageKind::Html,
        };
        let body = decode(&bytes, content_type.as_deref());
        Ok(Page { url, kind, body, truncated })
    }

    /// Downloads `raw` under the policy when its content type starts with one of `accept`
    /// (`image/`, say): every hop checked, the whole fetch within the timeout, and a body larger
    /// than the size cap refused (not cut off), by its Content-Length or while streaming.
    pub async fn fetch_file(&self, raw: &str, accept: &[&str]) -> Result<File, DownloadError> {
        match tokio::time::timeout(self.settings.timeout, self.fetch_file_inner(raw, accept)).await
        {
            Ok(result) => result,
            Err(_) => Err(FetchError::Timeout.into()),
        }
    }

    async fn fetch_file_inner(&self, raw: &str, accept: &[&str]) -> Result<File, DownloadError> {
        let (_, mut response) = self.open(raw, "*/*").await?;
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|ct| mime_of(&ct.to_ascii_lowercase()))
            .unwrap_or_default();
        if !accept.iter().any(|a| content_type.starts_with(a)) {
            return Err(FetchError::Unsupported(content_type).into());
        }
        let max = self.settings.max_bytes;
        if response.content_length().is_some_and(|n| n > max as u64) {
            return Err(DownloadError::TooLarge(max));
        }
        let (bytes, truncated) = read_capped(&mut response, max).await?;
        if truncated {
            return Err(DownloadError::TooLarge(max));
        }
        Ok(File { bytes, content_type })
    }

    /// Sends a GET for `raw` with `accept`, following redirects by hand (each hop checked), and
    /// returns the final URL and its successful response.
    async fn open(&self, raw: &str, accept: &str) -> Result<(Url, reqwest::Response), FetchError> {
        let policy = &self.settings.policy;
        let mut url = policy::parse_and_check(raw, policy)?;
        let client = &self.client;
        let mut hops = 0;
        let response = loop {
            let response =
                client.get(url.clone()).header(ACCEPT, accept).send().await.map_err(classify)?;
            if !response.status().is_redirection() {
                break response;
            }
            let Some(next) = response
                .headers()
                .get(LOCATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|loc| url.join(loc).ok())
            else {
                break response;
            };
            hops += 1;
            if hops > MAX_REDIRECTS {
                return Err(Refusal::TooManyRedirects.into());
            }
            if let Err(refusal) = policy::check_url(&next, policy) {
                tracing::warn!(from = %url, to = %next, %refusal, "redirect refused");
                return Err(refusal.into());
            }
            url = next;
        };
        let status = response.status();
        if !status.is_success() {
            return Err(FetchError::Status(status.as_u16()));
        }
        Ok((url, response))
    }
}

/// The media type of a (lower-cased) Content-Type header, without its parameters.
fn mime_of(content_type: &str) -> String {
    content_type.split(';').next().unwrap_or("").trim().to_string()
}

/// Reads at most `max` bytes of the body; the rest is never downloaded.
async fn read_capped(
    response: &mut reqwest::Response,
    max: usize,
) -> Result<(Vec<u8>, bool), FetchError> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(classify)? {
        let room = max.saturating_sub(body.len());
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}

fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(1024).any(|&b| b == 0)
}

/// Decodes with the charset of the header or of an early `<meta charset>`, else UTF-8.
fn decode(bytes: &[u8], content_type: Option<&str>) -> String {
    let label = content_type.and_then(charset_label).or_else(|| {
        let head = String::from_utf8_lossy(&bytes[..bytes.len().min(2048)]).to_ascii_lowercase();
        charset_label(&head)
    });
    let encoding = label
        .and_then(|l| encoding_rs::Encoding::for_label(l.as_bytes()))
        .unwrap_or(encoding_rs::UTF_8);
    encoding.decode(bytes).0.into_owned()
}

fn charset_label(text: &str) -> Option<String> {
    let at = text.find("charset=")? + "charset=".len();
    let label: String = text[at..]
        .trim_start_matches(['"', '\''])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    (!label.is_empty()).then_some(label)
}

/// Finds our refusal in a `reqwest` error's source chain (a resolver refusal arrives wrapped).
fn classify(error: reqwest::Error) -> FetchError {
    if error.is_timeout() {
        return FetchError::Timeout;
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&error);
    while let Some(e) = source {
        if let Some(ResolveError::Blocked(refusal)) = e.downcast_ref::<ResolveError>() {
            return FetchError::Refused(refusal.clone());
        }
        source = e.source();
    }
    FetchError::Unreachable(Box::new(error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charsets_come_from_the_header_or_the_meta_tag() {
        assert_eq!(charset_label("text/html; charset=Big5").as_deref(), Some("Big5"));
        assert_eq!(charset_label("<meta charset=\"utf-8\">").as_deref(), Some("utf-8"));
        let big5 = [0xa4, 0xa4, 0xa4, 0xe5];
        assert_eq!(decode(&big5, Some("text/plain; charset=big5")), "中文");
        assert_eq!(decode("héllo".as_bytes(), None), "héllo");
    }
}
