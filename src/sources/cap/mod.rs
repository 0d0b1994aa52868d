//! Taiwan's official alerts as NCDR's public alert platform republishes them: an Atom feed
//! (`HEARTH_OFFICIAL_ALERTS_FEED_URL`) whose entries link to CAP 1.2 documents (the OASIS Common Alerting
//! Protocol) from the Directorate-General of Personnel Administration (停班停課) and the Central
//! Weather Administration (typhoon, rain, earthquake).
//!
//! The feed is read with conditional requests (ETag, Last-Modified) and as a stream of entries
//! ([`feed`]), bounded by its bytes and time, not by how many entries a busy week lists. Every
//! request — a document's link and each hop of a redirect — goes only to the feed's own scheme,
//! host and port or to the hosts the operator lists ([`origins`]). Each document is read within
//! the data sources' size cap by the bounded reader of [`xml`] (no DOCTYPE, so no entity is ever
//! expanded; depth, element count and text bounded) into a [`CapAlert`], its text made plain
//! (no markup, bidi overrides or control characters). [`areas`] knows Taiwan's counties and
//! their geocodes.

pub mod areas;
pub mod feed;
pub mod origins;
pub mod xml;

pub use feed::{FeedEntry, Wanted, parse_feed};

use jiff::Timestamp;
use reqwest::StatusCode;
use reqwest::header::{ETAG, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED};
use serde::{Deserialize, Serialize};

use super::UpstreamError;
use crate::platform::text::plain_outside_text;
use xml::{Element, Limits, XmlError};

/// How long a read of the feed may take, body included (it is larger than any document).
const FEED_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);
/// The most areas and parameters kept of one document.
const MAX_AREAS: usize = 400;

/// What a CAP message does to earlier ones (`msgType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MsgType {
    /// A new alert.
    Alert,
    /// Replaces the alerts it references.
    Update,
    /// Cancels the alerts it references.
    Cancel,
    /// Anything else (Ack, Error): never told.
    Other,
}

/// One area of an alert: its description and geocodes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Area {
    /// How the alert names it (臺北市, 新北市烏來區, 最大震度4級地區).
    pub desc: String,
    /// Its `Taiwan_Geocode_103` codes.
    pub geocodes: Vec<String>,
}

/// A CAP document, as much of it as the family is told.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CapAlert {
    /// Its identifier (unique per sender).
    pub identifier: String,
    /// Who sent it (`http://www.dgpa.gov.tw`, `weather@cwa.gov.tw`).
    pub sender: String,
    /// When it was sent.
    pub sent: Timestamp,
    /// `Actual` for a real alert (`Test`, `Exercise`, `System`, `Draft` are never told).
    pub status: String,
    /// Alert, Update or Cancel.
    pub msg_type: MsgType,
    /// The identifiers of the alerts it updates or cancels.
    pub references: Vec<String>,
    /// The event (停班停課, 颱風, 降雨, 地震).
    pub event: String,
    /// The event's code in Taiwan's CAP profile (workSchlClos, typhoon, rainfall, earthquake).
    pub event_code: Option<String>,
    /// Extreme, Severe, Moderate, Minor, Unknown.
    pub severity: String,
    /// When it takes effect.
    pub effective: Option<Timestamp>,
    /// When it expires.
    pub expires: Option<Timestamp>,
    /// The issuing agency (行政院人事行政總處, 中央氣象署).
    pub sender_name: Option<String>,
    /// Its headline (停班課通知, 陸上颱風警報, 大雨特報, 地震報告).
    pub headline: Option<String>,
    /// Its description, as text.
    pub description: String,
    /// Its parameters, name and value.
    pub parameters: Vec<(String, String)>,
    /// The areas it applies to.
    pub areas: Vec<Area>,
}

/// Why a document or the feed was refused.
#[derive(Debug, thiserror::Error)]
pub enum CapError {
    /// Not XML hearth will read.
    #[error(transparent)]
    Xml(#[from] XmlError),
    /// XML, but not a CAP alert (or an Atom feed).
    #[error("not a {0}")]
    NotCap(&'static str),
    /// A required field is missing or unreadable.
    #[error("{0} is missing or unreadable")]
    Field(&'static str),
    /// The feed answered with a message instead of entries (NCDR asks for a member key).
    #[error("the feed answered {0:?} instead of entries")]
    Refused(String),
}

fn timestamp(text: Option<&str>) -> Option<Timestamp> {
    text.and_then(|t| t.trim().parse::<Timestamp>().ok())
}

/// Reads a CAP 1.2 document.
pub fn parse_alert(bytes: &[u8]) -> Result<CapAlert, CapError> {
    let root = xml::parse(bytes, Limits::default())?;
    let plain = |text: Option<&str>| text.map(plain_outside_text).filter(|t| !t.is_empty());
    if root.name != "alert" {
        return Err(CapError::NotCap("CAP alert"));
    }
    let required =
        |name: &'static str| root.text_of(name).map(str::to_string).ok_or(CapError::Field(name));
    let identifier = required("identifier")?;
    let sent = timestamp(root.text_of("sent")).ok_or(CapError::Field("sent"))?;
    let msg_type = match root.text_of("msgType") {
        Some("Alert") => MsgType::Alert,
        Some("Update") => MsgType::Update,
        Some("Cancel") => MsgType::Cancel,
        Some(_) => MsgType::Other,
        None => return Err(CapError::Field("msgType")),
    };
    // `sender,identifier,sent` triplets, separated by spaces.
    let references = root
        .text_of("references")
        .unwrap_or("")
        .split_whitespace()
        .filter_map(|r| r.split(',').nth(1).map(str::to_string))
        .collect();
    // The Chinese info block when there are several languages.
    let info = root
        .all("info")
        .find(|i| i.text_of("language").is_some_and(|l| l.starts_with("zh")))
        .or_else(|| root.child("info"))
        .ok_or(CapError::Field("info"))?;
    let code_of = |e: &Element| {
        e.all("eventCode")
            .find(|c| c.text_of("valueName").is_some_and(|n| n.starts_with("profile:CAP-TWP")))
            .and_then(|c| c.text_of("value"))
            .map(str::to_string)
    };
    let parameters = info
        .all("parameter")
        .filter_map(|p| Some((p.text_of("valueName")?.to_string(), plain(p.text_of("value"))?)))
        .take(MAX_AREAS)
        .collect();
    let areas = info
        .all("area")
        .map(|a| Area {
            desc: plain(a.text_of("areaDesc")).unwrap_or_default(),
            geocodes: a
                .all("geocode")
                .filter(|g| g.text_of("valueName").is_some_and(|n| n.starts_with("Taiwan_Geocode")))
                .filter_map(|g| g.text_of("value").map(str::to_string))
                .collect(),
        })
        .take(MAX_AREAS)
        .collect();
    Ok(CapAlert {
        identifier,
        sender: root.text_of("sender").unwrap_or("").to_string(),
        sent,
        status: root.text_of("status").unwrap_or("Actual").to_string(),
        msg_type,
        references,
        event: plain(info.text_of("event")).unwrap_or_default(),
        event_code: code_of(info),
        severity: info.text_of("severity").unwrap_or("Unknown").to_string(),
        effective: timestamp(info.text_of("effective")),
        expires: timestamp(info.text_of("expires")),
        sender_name: plain(info.text_of("senderName")),
        headline: plain(info.text_of("headline")),
        description: plain(info.text_of("description")).unwrap_or_default(),
        parameters,
        areas,
    })
}

/// What a poll of the feed found.
#[derive(Debug)]
pub enum FeedPoll {
    /// Nothing changed since the validators sent.
    NotModified,
    /// The feed's entries, with its new validators.
    Entries {
        /// The entries.
        entries: Vec<FeedEntry>,
        /// Its `ETag`.
        etag: Option<String>,
        /// Its `Last-Modified`.
        last_modified: Option<String>,
    },
}

/// Why the feed could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum FeedSetupError {
    /// The feed's address is not an http(s) URL.
    #[error("not an http(s) URL")]
    Url,
    /// A host the operator listed is not one.
    #[error("HEARTH_OFFICIAL_ALERTS_EXTRA_HOSTS: {0}")]
    Host(#[from] origins::BadHost),
    /// The HTTP client could not be built.
    #[error("cannot build the HTTP client")]
    Client(#[from] reqwest::Error),
}

/// Why a document was not fetched.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    /// Its link, or a redirect on the way, leads away from the allowed hosts: refused.
    #[error("away from the feed's host: {0}")]
    OffHost(String),
    /// The fetch failed.
    #[error(transparent)]
    Upstream(#[from] UpstreamError),
}

/// The feed and its documents over HTTP.
#[derive(Clone)]
pub struct CapFeed {
    http: reqwest::Client,
    url: url::Url,
    origins: std::sync::Arc<Vec<origins::Origin>>,
}

impl CapFeed {
    /// The feed at `url`, its requests going only to its own scheme, host and port and to
    /// `extra_hosts` (`HEARTH_OFFICIAL_ALERTS_EXTRA_HOSTS`), redirects included; the client is built
    /// from `builder` with that redirect policy.
    pub fn new(
        builder: reqwest::ClientBuilder,
        url: &str,
        extra_hosts: &[String],
    ) -> Result<Self, FeedSetupError> {
        let url = url::Url::parse(url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
            .ok_or(FeedSetupError::Url)?;
        let allowed = origins::allowed(&url, extra_hosts)?;
        let http = builder.redirect(origins::redirect_policy(allowed.clone())).build()?;
        Ok(Self { http, url, origins: std::sync::Arc::new(allowed) })
    }

    /// The feed's address.
    pub fn url(&self) -> &url::Url {
        &self.url
    }

    /// Reads the feed, conditionally on the validators of the last read: the newest entries
    /// that are `wanted` ([`feed::parse_feed`]).
    pub async fn poll(
        &self,
        etag: Option<&str>,
        last_modified: Option<&str>,
        wanted: &(dyn Fn(&FeedEntry) -> Wanted + Sync),
    ) -> Result<FeedPoll, UpstreamError> {
        let mut request = self.http.get(self.url.clone()).timeout(FEED_TIMEOUT);
        if let Some(etag) = etag {
            request = request.header(IF_NONE_MATCH, etag);
        }
        if let Some(since) = last_modified {
            request = request.header(IF_MODIFIED_SINCE, since);
        }
        let response = super::send_limited(request, feed::MAX_FEED_BYTES).await?;
        if response.status == StatusCode::NOT_MODIFIED {
            return Ok(FeedPoll::NotModified);
        }
        if !response.status.is_success() {
            return Err(UpstreamError::Status(response.status));
        }
        let header = |name| {
            response
                .headers
                .get(name)
                .and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok())
                .map(str::to_string)
        };
        let entries =
            parse_feed(&response.body, wanted).map_err(|e| UpstreamError::Garbage(Box::new(e)))?;
        Ok(FeedPoll::Entries { entries, etag: header(ETAG), last_modified: header(LAST_MODIFIED) })
    }

    /// Fetches the document an entry links to: only from the allowed hosts, redirects
    /// included (a redirect elsewhere is refused, not followed).
    pub async fn document(&self, link: &str) -> Result<bytes::Bytes, DocumentError> {
        let url = self.url.join(link).map_err(|e| UpstreamError::Garbage(Box::new(e)))?;
        if !origins::permits(&self.origins, &url) {
            return Err(DocumentError::OffHost(where_(&url)));
        }
        let response = super::send(self.http.get(url)).await?;
        if response.status.is_redirection() {
            let to = response
                .headers
                .get(reqwest::header::LOCATION)
                .and_then(|l| l.to_str().ok())
                .and_then(|l| self.url.join(l).ok())
                .map_or_else(
                    || "a redirect".to_string(),
                    |u| format!("a redirect to {}", where_(&u)),
                );
            return Err(DocumentError::OffHost(to));
        }
        if !response.status.is_success() {
            return Err(UpstreamError::Status(response.status).into());
        }
        Ok(response.body)
    }
}

/// The scheme, host and port of `url`, for the log (never its path or user name).
fn where_(url: &url::Url) -> String {
    match url.port() {
        Some(port) => format!("{}://{}:{port}", url.scheme(), url.host_str().unwrap_or("")),
        None => format!("{}://{}", url.scheme(), url.host_str().unwrap_or("")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUSPENSION: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<alert xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns="urn:oasis:names:tc:emergency:cap:1.2">
  <identifier>dgpa.gov.tw_workSchlClos_20261203200000_i_63_001</identifier>
  <sender>http://www.dgpa.gov.tw</sender>
  <sent>2026-12-03T20:00:00+08:00</sent>
  <status>Actual</status>
  <msgType>Update</msgType>
  <scope>Public</scope>
  <references>http://www.dgpa.gov.tw,dgpa-1,2026-12-03T18:00:00+08:00 http://www.dgpa.gov.tw,dgpa-0,2026-12-03T17:00:00+08:00</references>
  <info>
    <language>zh-TW</language>
    <category>Infra</category>
    <event>停班停課</event>
    <urgency>Immediate</urgency>
    <severity>Extreme</severity>
    <certainty>Observed</certainty>
    <eventCode><valueName>profile:CAP-TWP:Event:1.0</valueName><value>workSchlClos</value></eventCode>
    <effective>2026-12-03T19:58:00+08:00</effective>
    <expires>2026-12-03T23:59:59+08:00</expires>
    <senderName>行政院人事行政總處</senderName>
    <headline>停班課通知</headline>
    <description>[停班停課通知]臺北市:明天停止上班、停止上課。行政院人事行政總處。</description>
    <area><areaDesc>臺北市</areaDesc><geocode><valueName>Taiwan_Geocode_103</valueName><value>63</value></geocode></area>
  </info>
</alert>"#;

    #[test]
    fn a_cap_document_reads_into_its_fields() {
        let alert = parse_alert(SUSPENSION.as_bytes()).expect("read");
        assert_eq!(alert.identifier, "dgpa.gov.tw_workSchlClos_20261203200000_i_63_001");
        assert_eq!(alert.msg_type, MsgType::Update);
        assert_eq!(alert.references, vec!["dgpa-1".to_string(), "dgpa-0".to_string()]);
        assert_eq!(alert.event_code.as_deref(), Some("workSchlClos"));
        assert_eq!(alert.sent.to_string(), "2026-12-03T12:00:00Z");
        assert_eq!(alert.areas[0].geocodes, vec!["63".to_string()]);
        assert_eq!(alert.sender_name.as_deref(), Some("行政院人事行政總處"));
    }

    #[test]
    fn what_is_not_a_cap_alert_is_refused() {
        assert!(matches!(parse_alert(b"<feed/>"), Err(CapError::NotCap(_))));
        assert!(matches!(parse_alert(b"<alert><sent>x</sent></alert>"), Err(CapError::Field(_))));
        assert!(matches!(parse_alert(b"not xml <"), Err(CapError::Xml(_))));
    }

    #[test]
    fn feed_text_is_made_plain() {
        let hostile = SUSPENSION.replace(
            "[停班停課通知]臺北市:明天停止上班、停止上課。",
            "<![CDATA[<b>[停班停課通知]</b>臺北市:\u{202E}明天停止上班、停止上課。<img src=x>]]>",
        );
        let alert = parse_alert(hostile.as_bytes()).expect("read");
        assert_eq!(
            alert.description,
            "[停班停課通知]臺北市:明天停止上班、停止上課。行政院人事行政總處。"
        );
    }
}
