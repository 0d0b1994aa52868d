//! A local stand-in for NCDR's public alert platform: an Atom feed (`/RssAtomFeed.ashx`) whose
//! entries link to CAP 1.2 documents (`/Capstorage/...`), shaped like the real ones — the
//! Directorate-General of Personnel Administration's 停班停課 notices (one area each, the
//! `[停班停課通知]臺北市:明天停止上班、停止上課。` description, `Taiwan_Geocode_103` codes), the
//! Central Weather Administration's earthquake reports (a `LocalMaxIntensity` parameter per
//! county and the `最大震度N級地區` areas), typhoon and rain warnings. The feed answers
//! conditional requests with `304`; it can be taken down or made to answer NCDR's login page,
//! and any document can be replaced by raw bytes (hostile XML) or by an endless body, made to
//! answer an error status, to answer slowly, or to redirect elsewhere; an entry can link
//! anywhere, and the feed can be filled with thousands of entries of a busy week.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio::net::TcpListener;

/// How the feed answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FeedMode {
    /// The entries.
    #[default]
    Normal,
    /// `503`.
    Down,
    /// `200` with NCDR's "please log in" message instead of a feed.
    Login,
}

/// A document's body.
#[derive(Clone)]
enum Doc {
    Xml(String),
    /// This many bytes of `<a>` elements, streamed (never held in memory).
    Endless(usize),
}

/// How a document misbehaves instead of answering.
#[derive(Clone, Debug)]
pub enum Misbehave {
    /// Answers this status (`500`, `503`, `429`).
    Status(u16),
    /// Answers only after this long.
    Slow(std::time::Duration),
    /// Redirects (`302`) to this address.
    RedirectTo(String),
    /// Starts the document, then breaks the connection off (a reset mid-body).
    CutOff,
}

/// One entry of the feed.
struct Entry {
    id: String,
    title: String,
    updated: String,
    /// Where it links, when not to this fake's own `/Capstorage/{id}`.
    link: Option<String>,
}

#[derive(Default)]
struct CapState {
    /// Entries, newest last.
    entries: Vec<Entry>,
    misbehaving: HashMap<String, Misbehave>,
    docs: HashMap<String, Doc>,
    mode: FeedMode,
    feed_hits: usize,
    not_modified: usize,
    doc_hits: HashMap<String, usize>,
}

/// Handle to the running fake; clones share the same server.
#[derive(Clone)]
pub struct FakeCap {
    port: u16,
    state: Arc<Mutex<CapState>>,
}

impl FakeCap {
    /// Binds `127.0.0.1:0` and serves the fake.
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind fake CAP feed");
        let port = listener.local_addr().expect("address").port();
        let fake = Self { port, state: Arc::default() };
        let router = Router::new()
            .route("/RssAtomFeed.ashx", get(feed))
            .route("/Capstorage/{name}", get(document))
            .with_state(fake.clone());
        tokio::spawn(async move {
            axum::serve(listener, router).await.expect("fake CAP server");
        });
        fake
    }

    /// The feed's address (`HEARTH_OFFICIAL_ALERTS_FEED_URL`).
    pub fn feed_url(&self) -> String {
        format!("http://127.0.0.1:{}/RssAtomFeed.ashx", self.port)
    }

    fn lock(&self) -> MutexGuard<'_, CapState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Publishes a CAP document (`xml`, from the builders below) under `identifier`, with the
    /// feed's `title` (停班停課, 地震, 颱風, 降雨).
    pub fn publish(&self, identifier: &str, title: &str, xml: String) {
        let updated = sent_of(&xml).unwrap_or_else(|| "2026-11-30T20:00:00+08:00".into());
        let mut s = self.lock();
        s.docs.insert(identifier.to_string(), Doc::Xml(xml));
        s.entries.push(Entry::new(identifier, title, &updated));
    }

    /// Publishes an entry whose document is raw text (malformed or hostile XML).
    pub fn publish_raw(&self, identifier: &str, title: &str, body: &str) {
        let mut s = self.lock();
        s.docs.insert(identifier.to_string(), Doc::Xml(body.to_string()));
        s.entries.push(Entry::new(identifier, title, "2026-11-30T20:00:00+08:00"));
    }

    /// Publishes an entry whose document is `bytes` long and never ends sooner.
    pub fn publish_endless(&self, identifier: &str, title: &str, bytes: usize) {
        let mut s = self.lock();
        s.docs.insert(identifier.to_string(), Doc::Endless(bytes));
        s.entries.push(Entry::new(identifier, title, "2026-11-30T20:00:00+08:00"));
    }

    /// Makes the document `identifier` misbehave `how` (or answer again, with `None`).
    pub fn misbehave(&self, identifier: &str, how: Option<Misbehave>) {
        let mut s = self.lock();
        match how {
            Some(how) => s.misbehaving.insert(identifier.to_string(), how),
            None => s.misbehaving.remove(identifier),
        };
    }

    /// Makes the entry `identifier` link to `link` instead of this fake's document.
    pub fn link_elsewhere(&self, identifier: &str, link: &str) {
        let mut s = self.lock();
        if let Some(entry) = s.entries.iter_mut().find(|e| e.id == identifier) {
            entry.link = Some(link.to_string());
        }
    }

    /// Lists `count` entries of `title` (no documents behind them), one a minute up to
    /// `newest`: the bulk of a busy week (thunderstorms, heat, road closures…).
    pub fn publish_filler(&self, count: usize, title: &str, newest: &str) {
        let newest: jiff::Timestamp = newest.parse().expect("newest");
        let tz = jiff::tz::TimeZone::get("Asia/Taipei").expect("zone");
        let mut s = self.lock();
        for n in (0..count).rev() {
            let at = newest - jiff::SignedDuration::from_mins(n as i64);
            let updated = at.to_zoned_datetime(tz.clone()).strftime("%Y-%m-%dT%H:%M:%S+08:00");
            s.entries.push(Entry::new(&format!("filler-{title}-{n}"), title, &updated.to_string()));
        }
    }

    /// `count` entries of `title` without an `<updated>` time, whose documents are not there.
    pub fn publish_filler_undated(&self, count: usize, title: &str) {
        let mut s = self.lock();
        for n in 0..count {
            s.entries.push(Entry::new(&format!("undated-{title}-{n}"), title, ""));
        }
    }

    /// The address of the document `identifier` on this fake.
    pub fn doc_url(&self, identifier: &str) -> String {
        format!("http://127.0.0.1:{}/Capstorage/{identifier}", self.port)
    }

    /// This fake's port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Switches how the feed answers.
    pub fn set_mode(&self, mode: FeedMode) {
        self.lock().mode = mode;
    }

    /// Requests the feed received, and how many it answered `304`.
    pub fn feed_hits(&self) -> (usize, usize) {
        let s = self.lock();
        (s.feed_hits, s.not_modified)
    }

    /// Times the document `identifier` was fetched.
    pub fn doc_hits(&self, identifier: &str) -> usize {
        self.lock().doc_hits.get(identifier).copied().unwrap_or(0)
    }

    fn atom(&self) -> String {
        let s = self.lock();
        let mut xml = String::from(
            r#"<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:cap="urn:oasis:names:tc:emergency:cap:1.1"><id>https://alerts.ncdr.nat.gov.tw/RSS.aspx</id><title>NCDR_CAP-即時防災資訊</title><updated>2026-11-30T20:00:00+08:00</updated><author><name>NCDR</name></author><rights>Public Domain</rights>"#,
        );
        for Entry { id, title, updated, link } in s.entries.iter().rev() {
            let link = link.clone().unwrap_or_else(|| self.doc_url(id));
            let updated = match updated.as_str() {
                "" => String::new(),
                at => format!("<updated>{at}</updated>"),
            };
            xml.push_str(&format!(
                r#"<entry><id>{id}</id><title>{title}</title>{updated}<author><name>NCDR</name></author><link rel="alternate" href="{link}" /><summary type="html">{title}</summary><category term="{title}" /><cap:status>Actual</cap:status></entry>"#,
            ));
        }
        xml.push_str("</feed>");
        xml
    }
}

impl Entry {
    fn new(id: &str, title: &str, updated: &str) -> Self {
        Self { id: id.into(), title: title.into(), updated: updated.into(), link: None }
    }
}

fn sent_of(xml: &str) -> Option<String> {
    let start = xml.find("<sent>")? + "<sent>".len();
    Some(xml[start..start + xml[start..].find('<')?].to_string())
}

async fn feed(State(fake): State<FakeCap>, headers: HeaderMap) -> Response {
    let mode = {
        let mut s = fake.lock();
        s.feed_hits += 1;
        s.mode
    };
    match mode {
        FeedMode::Down => return (StatusCode::SERVICE_UNAVAILABLE, "down").into_response(),
        FeedMode::Login => {
            let body = "<WarningMessage><Warning>請先登入會員。</Warning></WarningMessage>";
            return ([(header::CONTENT_TYPE, "text/xml")], body).into_response();
        }
        FeedMode::Normal => {}
    }
    let body = fake.atom();
    let etag = format!("\"{:x}\"", fnv(body.as_bytes()));
    if headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()) == Some(etag.as_str()) {
        fake.lock().not_modified += 1;
        return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag)]).into_response();
    }
    ([(header::CONTENT_TYPE, "application/atom+xml".to_string()), (header::ETAG, etag)], body)
        .into_response()
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3))
}

async fn document(State(fake): State<FakeCap>, Path(name): Path<String>) -> Response {
    let (doc, misbehaving) = {
        let mut s = fake.lock();
        *s.doc_hits.entry(name.clone()).or_default() += 1;
        (s.docs.get(&name).cloned(), s.misbehaving.get(&name).cloned())
    };
    match misbehaving {
        Some(Misbehave::Status(code)) => {
            let status = StatusCode::from_u16(code).expect("status");
            return (status, [(header::RETRY_AFTER, "120")], "busy").into_response();
        }
        Some(Misbehave::RedirectTo(to)) => {
            return (StatusCode::FOUND, [(header::LOCATION, to)]).into_response();
        }
        Some(Misbehave::Slow(wait)) => tokio::time::sleep(wait).await,
        Some(Misbehave::CutOff) => {
            let start = bytes::Bytes::from_static(b"<?xml version=\"1.0\"?><alert");
            let reset = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "cut off");
            // The start goes out with the headers; the reset comes once they are read.
            let later = async {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                Err(reset)
            };
            let body = futures::StreamExt::chain(
                futures::stream::iter([Ok(start)]),
                futures::stream::once(later),
            );
            return ([(header::CONTENT_TYPE, "application/xml")], Body::from_stream(body))
                .into_response();
        }
        None => {}
    }
    match doc {
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
        Some(Doc::Xml(xml)) => ([(header::CONTENT_TYPE, "application/xml")], xml).into_response(),
        Some(Doc::Endless(bytes)) => {
            let chunk = bytes::Bytes::from("<a>".repeat(21_845));
            let chunks = bytes.div_ceil(chunk.len());
            let stream = futures::stream::iter(
                std::iter::repeat_n(chunk, chunks).map(Ok::<_, std::io::Error>),
            );
            ([(header::CONTENT_TYPE, "application/xml")], Body::from_stream(stream)).into_response()
        }
    }
}

/// A work/school suspension notice (停班停課) as the DGPA publishes it: one area, `Extreme`
/// when work stops. `references` names the identifiers it updates or cancels.
pub fn suspension(
    identifier: &str,
    msg_type: &str,
    references: &[&str],
    sent: &str,
    area: &str,
    geocode: &str,
    announced: &str,
) -> String {
    let severity = if announced.contains("停止上班") { "Extreme" } else { "Minor" };
    let expires = format!("{}T23:59:59+08:00", &sent[..10]);
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<alert xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="urn:oasis:names:tc:emergency:cap:1.2">
  <identifier>{identifier}</identifier>
  <sender>http://www.dgpa.gov.tw</sender>
  <sent>{sent}</sent>
  <status>Actual</status>
  <msgType>{msg_type}</msgType>
  <scope>Public</scope>{refs}
  <info>
    <language>zh-TW</language>
    <category>Infra</category>
    <event>停班停課</event>
    <urgency>Immediate</urgency>
    <severity>{severity}</severity>
    <certainty>Observed</certainty>
    <eventCode>
      <valueName>profile:CAP-TWP:Event:1.0</valueName>
      <value>workSchlClos</value>
    </eventCode>
    <effective>{sent}</effective>
    <expires>{expires}</expires>
    <senderName>行政院人事行政總處</senderName>
    <headline>停班課通知</headline>
    <description>[停班停課通知]{area}:{announced}。行政院人事行政總處。如有任何問題請撥1999(市內直撥)。</description>
    <instruction>適用範圍為各級政府機關及公、私立學校；
至交通運輸、警察、消防、海岸巡防、醫療、關務等業務性質特殊機關（構），為全年無休服務民眾，
且應實施輪班、輪休制度，如遇天然災害發生時，其尚無停止上班之適用。</instruction>
    <web>http://www.dgpa.gov.tw</web>
    <parameter>
      <valueName>alert_title</valueName>
      <value>天然災害停止上班及上課情形</value>
    </parameter>
    <parameter>
      <valueName>CMAMtext</valueName>
      <value>[停班停課通知]{area}:{announced}。行政院人事行政總處。</value>
    </parameter>
    <area>
      <areaDesc>{area}</areaDesc>
      <geocode>
        <valueName>Taiwan_Geocode_103</valueName>
        <value>{geocode}</value>
      </geocode>
    </area>
  </info>
</alert>"#,
        refs = references_of("http://www.dgpa.gov.tw", references, sent),
    )
}

fn references_of(sender: &str, references: &[&str], sent: &str) -> String {
    if references.is_empty() {
        return String::new();
    }
    let list: Vec<String> = references.iter().map(|r| format!("{sender},{r},{sent}")).collect();
    format!("\n  <references>{}</references>", list.join(" "))
}

/// An earthquake report as the CWA publishes it: one `LocalMaxIntensity` parameter per county
/// (`(level, county, code)`), and the epicentre's area first.
pub fn earthquake(identifier: &str, sent: &str, intensities: &[(&str, &str, &str)]) -> String {
    let parameters: String = intensities
        .iter()
        .map(|(level, county, code)| {
            format!(
                "\n    <parameter>\n      <valueName>LocalMaxIntensity</valueName>\n      <value>{level};\"{county}\";Taiwan_Geocode_103;{code};;;\"CAP-EQ:1.0\"</value>\n    </parameter>"
            )
        })
        .collect();
    let expires = jiff::Timestamp::from_second(
        sent.parse::<jiff::Timestamp>().expect("sent").as_second() + 3600,
    )
    .expect("expires")
    .to_string();
    format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="no" ?>
<alert xmlns="urn:oasis:names:tc:emergency:cap:1.2">
  <identifier>{identifier}</identifier>
  <sender>cwasoc@cwa.gov.tw</sender>
  <sent>{sent}</sent>
  <status>Actual</status>
  <msgType>Alert</msgType>
  <source>CWA</source>
  <scope>Public</scope>
  <info>
    <language>zh-TW</language>
    <category>Geo</category>
    <event>地震</event>
    <urgency>Past</urgency>
    <severity>Moderate</severity>
    <certainty>Observed</certainty>
    <eventCode>
      <valueName>profile:CAP-TWP:Event:1.0</valueName>
      <value>earthquake</value>
    </eventCode>
    <effective>{sent}</effective>
    <onset>{sent}</onset>
    <expires>{expires}</expires>
    <senderName>中央氣象署</senderName>
    <headline>地震報告</headline>
    <description>花蓮縣壽豐鄉發生規模5.5有感地震，最大震度花蓮縣水璉4級。</description>
    <web>https://scweb.cwa.gov.tw/zh-tw/earthquake/details/2026113020080055218</web>
    <parameter><valueName>alert_title</valueName><value>地震報告</value></parameter>
    <parameter><valueName>EventLocationName</valueName><value>花蓮縣壽豐鄉</value></parameter>
    <parameter><valueName>EventDepth</valueName><value>10.0公里</value></parameter>
    <parameter><valueName>EventMagnitudeDescription</valueName><value>芮氏規模5.5</value></parameter>{parameters}
    <area>
      <areaDesc>花蓮縣政府南南西方  26.8  公里 (位於花蓮縣壽豐鄉)</areaDesc>
      <circle>23.759,121.546 0.000</circle>
    </area>
  </info>
</alert>"#
    )
}

/// A CWA weather warning (`typhoon` or `rainfall`) as the CWA publishes it.
pub struct Warning<'a> {
    /// Its identifier.
    pub identifier: &'a str,
    /// `typhoon` or `rainfall`.
    pub event_code: &'a str,
    /// Alert, Update or Cancel.
    pub msg_type: &'a str,
    /// The identifiers it updates or cancels.
    pub references: &'a [&'a str],
    /// When it was sent (RFC 3339 with +08:00).
    pub sent: &'a str,
    /// When it expires.
    pub expires: &'a str,
    /// 陸上颱風警報, 大雨特報, 解除颱風警報.
    pub headline: &'a str,
    /// `(areaDesc, geocode)`.
    pub areas: &'a [(&'a str, &'a str)],
}

impl Warning<'_> {
    /// The CAP document.
    pub fn xml(&self) -> String {
        let Warning {
            identifier,
            event_code,
            msg_type,
            references,
            sent,
            expires,
            headline,
            areas,
        } = *self;
        let event = if event_code == "typhoon" { "颱風" } else { "降雨" };
        let areas: String = areas
            .iter()
            .map(|(desc, code)| {
                format!(
                    "\n        <area>\n            <areaDesc>{desc}</areaDesc>\n            <geocode>\n                <valueName>Taiwan_Geocode_103</valueName>\n                <value>{code}</value>\n            </geocode>\n        </area>"
                )
            })
            .collect();
        format!(
            r#"<alert xmlns="urn:oasis:names:tc:emergency:cap:1.2">
        <identifier>{identifier}</identifier>
        <sender>weather@cwa.gov.tw</sender>
        <sent>{sent}</sent>
        <status>Actual</status>
        <msgType>{msg_type}</msgType>
        <scope>Public</scope>{refs}
        <info>
            <language>zh-TW</language>
            <category>Met</category>
            <event>{event}</event>
            <responseType>Monitor</responseType>
            <urgency>Future</urgency>
            <severity>Moderate</severity>
            <certainty>Likely</certainty>
            <eventCode>
                <valueName>profile:CAP-TWP:Event:1.0</valueName>
                <value>{event_code}</value>
            </eventCode>
            <effective>{sent}</effective>
            <onset>{sent}</onset>
            <expires>{expires}</expires>
            <senderName>中央氣象署</senderName>
            <headline>{headline}</headline>
            <description>
    颱風外圍環流影響，請注意強風豪雨，山區慎防坍方及落石。
            </description>
            <web>https://www.cwa.gov.tw/V8/C/P/Warning/FIFOWS.html</web>
            <parameter><valueName>alert_title</valueName><value>{headline}</value></parameter>
            <parameter><valueName>alert_color</valueName><value>橙色</value></parameter>{areas}
        </info>
    </alert>"#,
            refs = references_of("weather@cwa.gov.tw", references, sent),
        )
    }
}
