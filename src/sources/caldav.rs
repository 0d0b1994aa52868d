//! A CalDAV client (RFC 4791) for the family's own calendar server (`HEARTH_CALDAV_URL`, the
//! home under which hearth keeps one calendar per chat): makes a calendar (`MKCALENDAR`), reads
//! its `getctag` and its objects' `ETag`s (`PROPFIND`), and gets, puts and deletes one object,
//! with `If-Match`/`If-None-Match` so a change made meanwhile is never overwritten blindly.
//! Answers are bounded like every source's: bodies are capped, the XML is read by the bounded
//! reader of [`crate::sources::cap::xml`] (no DOCTYPE, depth and element limits), and an
//! object larger than [`MAX_OBJECT_BYTES`] is refused.

use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, ETAG, IF_MATCH, IF_NONE_MATCH};
use reqwest::{Method, StatusCode};

use super::cap::xml::{self, Element, Limits};
use super::{UpstreamError, send_limited};
use crate::platform::config::Secret;

/// The largest calendar object read (one event with its time zone is a few kilobytes).
pub const MAX_OBJECT_BYTES: usize = 256 * 1024;
/// The largest listing read (a calendar of thousands of events).
const MAX_LISTING_BYTES: usize = 4 * 1024 * 1024;
/// How long the server has for each request.
const TIMEOUT: Duration = Duration::from_secs(20);

const PROPFIND_CTAG: &str = r#"<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:" xmlns:cs="http://calendarserver.org/ns/"><d:prop><cs:getctag/><d:sync-token/></d:prop></d:propfind>"#;
const PROPFIND_ETAGS: &str = r#"<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:"><d:prop><d:getetag/><d:resourcetype/></d:prop></d:propfind>"#;

/// The family's calendar server.
#[derive(Clone)]
pub struct CalDav {
    http: reqwest::Client,
    /// The home under which the chats' calendars are kept, ending in `/`.
    home: reqwest::Url,
    user: String,
    password: Secret,
}

/// An object of a calendar: where it is and its version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Its path on the server, percent-decoded ([`normal`]).
    pub href: String,
    /// Its `ETag`.
    pub etag: String,
}

/// What a write found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// Written; its new `ETag`, when the server said.
    Done(Option<String>),
    /// Changed (or made, or deleted) on the server since it was read: nothing was written.
    Changed,
}

/// Why the server's answer could not be used.
#[derive(Debug, thiserror::Error)]
pub enum CalDavError {
    /// The request failed or the server failed.
    #[error(transparent)]
    Upstream(#[from] UpstreamError),
    /// The server refused the credentials.
    #[error("the calendar server refused the user name or password (HTTP {0})")]
    Refused(StatusCode),
    /// An answer that is not what CalDAV answers.
    #[error("the calendar server's answer could not be read: {0}")]
    Unreadable(String),
}

impl CalDav {
    /// A client of the calendar home `home` (`HEARTH_CALDAV_URL`), signing in as `user`.
    pub fn new(home: &str, user: &str, password: Secret) -> Result<Self, CalDavError> {
        let with_slash = format!("{}/", home.trim_end_matches('/'));
        let home = reqwest::Url::parse(&with_slash)
            .map_err(|e| CalDavError::Unreadable(format!("HEARTH_CALDAV_URL: {e}")))?;
        let http = super::http_builder("hearth (CalDAV)", TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| CalDavError::Upstream(UpstreamError::Connect(e)))?;
        Ok(Self { http, home, user: user.to_string(), password })
    }

    /// The address of `path` on the server (a calendar's name under the home, or an href):
    /// under the home, on its origin, or refused — a listing naming another host never gets
    /// the password.
    fn url(&self, path: &str) -> Result<reqwest::Url, CalDavError> {
        let url =
            self.home.join(path).map_err(|e| CalDavError::Unreadable(format!("{path}: {e}")))?;
        let home = &self.home;
        let inside =
            url.origin() == home.origin() && normal(url.path()).starts_with(&normal(home.path()));
        match inside {
            true => Ok(url),
            false => Err(CalDavError::Unreadable(format!("{path} is outside the calendar home"))),
        }
    }

    fn request(&self, method: &str, path: &str) -> Result<reqwest::RequestBuilder, CalDavError> {
        let method = Method::from_bytes(method.as_bytes())
            .map_err(|e| CalDavError::Unreadable(e.to_string()))?;
        let request = self.http.request(method, self.url(path)?);
        Ok(match self.user.is_empty() {
            true => request,
            false => request.basic_auth(&self.user, Some(self.password.expose())),
        })
    }

    /// Sends `request`, refusing an answer past `max` bytes and a refusal of the credentials.
    async fn send(
        request: reqwest::RequestBuilder,
        max: usize,
    ) -> Result<super::RawResponse, CalDavError> {
        let answer = send_limited(request, max).await?;
        match answer.status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
                Err(CalDavError::Refused(answer.status))
            }
            _ => Ok(answer),
        }
    }

    /// Makes the calendar `name` (a collection under the home) called `title`; nothing when it
    /// is there already.
    pub async fn make(&self, name: &str, title: &str) -> Result<(), CalDavError> {
        let body = format!(
            r#"<?xml version="1.0" encoding="utf-8"?><c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:set><d:prop><d:displayname>{}</d:displayname></d:prop></d:set></c:mkcalendar>"#,
            escape(title)
        );
        let request = self
            .request("MKCALENDAR", name)?
            .header(CONTENT_TYPE, "application/xml; charset=utf-8")
            .body(body);
        let answer = Self::send(request, MAX_LISTING_BYTES).await?;
        match answer.status {
            s if s.is_success() => Ok(()),
            // There already: 405 (RFC 4791), or 409 as some servers answer.
            StatusCode::METHOD_NOT_ALLOWED | StatusCode::CONFLICT => Ok(()),
            other => Err(UpstreamError::Status(other).into()),
        }
    }

    /// The calendar `name`'s version (`getctag`, else its `sync-token`): it changes whenever
    /// any of its objects does.
    pub async fn version(&self, name: &str) -> Result<Option<String>, CalDavError> {
        let request = self
            .request("PROPFIND", name)?
            .header("Depth", "0")
            .header(CONTENT_TYPE, "application/xml; charset=utf-8")
            .body(PROPFIND_CTAG);
        let root = multistatus(Self::send(request, MAX_LISTING_BYTES).await?)?;
        let prop = root.all("response").flat_map(|r| r.all("propstat")).find_map(|p| {
            let ok = p.text_of("status").is_none_or(|s| s.contains(" 200"));
            ok.then(|| p.child("prop")).flatten()
        });
        Ok(prop.and_then(|p| p.text_of("getctag").or(p.text_of("sync-token"))).map(str::to_string))
    }

    /// The objects of calendar `name`, with their `ETag`s.
    pub async fn list(&self, name: &str) -> Result<Vec<Listed>, CalDavError> {
        let request = self
            .request("PROPFIND", name)?
            .header("Depth", "1")
            .header(CONTENT_TYPE, "application/xml; charset=utf-8")
            .body(PROPFIND_ETAGS);
        let root = multistatus(Self::send(request, MAX_LISTING_BYTES).await?)?;
        let mut listed = Vec::new();
        for response in root.all("response") {
            let Some(href) = response.text_of("href") else { continue };
            let props = response.all("propstat").filter_map(|p| p.child("prop"));
            let mut etag = None;
            let mut collection = false;
            for prop in props {
                etag = etag.or(prop.text_of("getetag").map(str::to_string));
                collection |= prop.child("resourcetype").is_some_and(|t| !t.children.is_empty());
            }
            if let (Some(etag), false) = (etag, collection) {
                listed.push(Listed { href: normal(href), etag });
            }
        }
        Ok(listed)
    }

    /// The object at `href` and its `ETag`; `None` when it is gone.
    pub async fn get(&self, href: &str) -> Result<Option<(String, Option<String>)>, CalDavError> {
        let answer = Self::send(self.request("GET", href)?, MAX_OBJECT_BYTES).await?;
        match answer.status {
            StatusCode::NOT_FOUND | StatusCode::GONE => Ok(None),
            s if s.is_success() => {
                let etag = header(&answer.headers, ETAG);
                let text = String::from_utf8(answer.body.to_vec())
                    .map_err(|_| CalDavError::Unreadable("an object that is not UTF-8".into()))?;
                Ok(Some((text, etag)))
            }
            other => Err(UpstreamError::Status(other).into()),
        }
    }

    /// Puts `ics` at `href`: over the version `etag`, or only where nothing is (`None`).
    pub async fn put(
        &self,
        href: &str,
        ics: &str,
        etag: Option<&str>,
    ) -> Result<Written, CalDavError> {
        let request = self
            .request("PUT", href)?
            .header(CONTENT_TYPE, "text/calendar; charset=utf-8")
            .body(ics.to_string());
        let request = match etag {
            Some(etag) => request.header(IF_MATCH, etag),
            None => request.header(IF_NONE_MATCH, "*"),
        };
        let answer = Self::send(request, MAX_LISTING_BYTES).await?;
        match answer.status {
            StatusCode::PRECONDITION_FAILED => Ok(Written::Changed),
            s if s.is_success() => Ok(Written::Done(header(&answer.headers, ETAG))),
            other => Err(UpstreamError::Status(other).into()),
        }
    }

    /// Deletes the object at `href`, if still at version `etag`.
    pub async fn delete(&self, href: &str, etag: &str) -> Result<Written, CalDavError> {
        let request = self.request("DELETE", href)?.header(IF_MATCH, etag);
        let answer = Self::send(request, MAX_LISTING_BYTES).await?;
        match answer.status {
            StatusCode::PRECONDITION_FAILED => Ok(Written::Changed),
            StatusCode::NOT_FOUND | StatusCode::GONE => Ok(Written::Done(None)),
            s if s.is_success() => Ok(Written::Done(None)),
            other => Err(UpstreamError::Status(other).into()),
        }
    }

    /// The href of the object `file` of calendar `name` (as the server lists it: a path).
    pub fn href(&self, name: &str, file: &str) -> String {
        let path = format!("{}{}/{file}", self.home.path(), name.trim_matches('/'));
        path.replace("//", "/")
    }
}

/// An href as compared: its path (a listing may give a whole URL), percent-decoded, so
/// `/me%40home/a.ics` and `https://host/me@home/a.ics` are one object.
pub fn normal(href: &str) -> String {
    let path = match reqwest::Url::parse(href) {
        Ok(url) => url.path().to_string(),
        Err(_) => href.to_string(),
    };
    percent_encoding::percent_decode_str(&path).decode_utf8_lossy().into_owned()
}

/// A header's value, if it is text.
fn header(
    headers: &reqwest::header::HeaderMap,
    name: reqwest::header::HeaderName,
) -> Option<String> {
    headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string)
}

/// The `multistatus` of a `207` answer.
fn multistatus(answer: super::RawResponse) -> Result<Element, CalDavError> {
    if answer.status != StatusCode::MULTI_STATUS {
        return Err(UpstreamError::Status(answer.status).into());
    }
    let limits =
        Limits { max_bytes: MAX_LISTING_BYTES, max_elements: 200_000, ..Limits::default() };
    let root =
        xml::parse(&answer.body, limits).map_err(|e| CalDavError::Unreadable(e.to_string()))?;
    match root.name.as_str() {
        "multistatus" => Ok(root),
        other => Err(CalDavError::Unreadable(format!("a <{other}> where a multistatus was due"))),
    }
}

/// `text` escaped for XML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> CalDav {
        CalDav::new("https://dav.example/me@home/", "me", "pw".into()).expect("client")
    }

    #[test]
    fn hrefs_are_compared_decoded_and_whole_urls_by_their_path() {
        assert_eq!(normal("/me%40home/hearth-1/a_b.ics"), "/me@home/hearth-1/a_b.ics");
        assert_eq!(normal("https://dav.example/me%40home/x.ics"), "/me@home/x.ics");
        assert_eq!(server().href("hearth-1", "a.ics"), "/me@home/hearth-1/a.ics");
    }

    #[test]
    fn an_href_on_another_host_or_outside_the_home_is_never_asked_for() {
        let dav = server();
        assert!(dav.url("hearth-1/a.ics").is_ok());
        assert!(dav.url("/me%40home/hearth-1/a.ics").is_ok());
        assert!(dav.url("https://evil.example/me@home/a.ics").is_err(), "the password stays");
        assert!(dav.url("/other/a.ics").is_err());
        assert!(dav.url("../other/a.ics").is_err());
    }
}
