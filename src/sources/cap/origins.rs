//! Where the alerts feed's requests may go: the feed's own scheme, host and port, and the hosts
//! the operator lists (`HEARTH_OFFICIAL_ALERTS_EXTRA_HOSTS`, e.g. a CDN NCDR has served documents
//! from). Every request is checked — a document's link and each hop of a redirect — so a
//! document on the feed's host that redirects to `localhost`, or a link to another port of the
//! feed's host, is refused rather than fetched.

/// A scheme, host and port requests may go to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    scheme: String,
    host: String,
    port: u16,
}

impl Origin {
    /// The origin of `url` (none for a URL without a host or a known port).
    pub fn of(url: &url::Url) -> Option<Origin> {
        Some(Origin {
            scheme: url.scheme().to_string(),
            host: url.host_str()?.to_ascii_lowercase(),
            port: url.port_or_known_default()?,
        })
    }
}

/// Why an extra host was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a host name, host:port or http(s) origin")]
pub struct BadHost(pub String);

/// The origins requests may go to: the feed's, and each of `extra` — a host (`cdn.example`:
/// the feed's scheme, on its default port), a `host:port`, or an origin
/// (`https://cdn.example:8443`).
pub fn allowed(feed: &url::Url, extra: &[String]) -> Result<Vec<Origin>, BadHost> {
    let mut origins: Vec<Origin> = Origin::of(feed).into_iter().collect();
    for written in extra.iter().map(|h| h.trim()).filter(|h| !h.is_empty()) {
        let full = if written.contains("://") {
            written.to_string()
        } else {
            format!("{}://{written}", feed.scheme())
        };
        let url = url::Url::parse(&full).map_err(|_| BadHost(written.to_string()))?;
        let clean = matches!(url.scheme(), "http" | "https")
            && matches!(url.path(), "" | "/")
            && url.username().is_empty()
            && url.query().is_none();
        match Origin::of(&url).filter(|_| clean) {
            Some(origin) => origins.push(origin),
            None => return Err(BadHost(written.to_string())),
        }
    }
    Ok(origins)
}

/// True when a request to `url` may be sent.
pub fn permits(origins: &[Origin], url: &url::Url) -> bool {
    Origin::of(url).is_some_and(|o| origins.contains(&o))
}

/// Redirects followed for one request at most.
const MAX_REDIRECTS: usize = 5;

/// The redirect policy of the feed's client: each hop is followed only to an allowed origin
/// (and at most [`MAX_REDIRECTS`] of them); otherwise the redirect itself is the answer, which
/// the caller refuses and logs.
pub fn redirect_policy(origins: Vec<Origin>) -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() <= MAX_REDIRECTS && permits(&origins, attempt.url()) {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> url::Url {
        url::Url::parse(s).expect("url")
    }

    #[test]
    fn only_the_feed_s_scheme_host_and_port_are_allowed() {
        let feed = url("https://alerts.ncdr.nat.gov.tw/RssAtomFeed.ashx");
        let origins = allowed(&feed, &[]).expect("origins");
        assert!(permits(&origins, &url("https://alerts.ncdr.nat.gov.tw/Capstorage/a.cap")));
        assert!(permits(&origins, &url("https://ALERTS.ncdr.nat.gov.tw:443/a.cap")));
        for refused in [
            "http://alerts.ncdr.nat.gov.tw/a.cap",
            "https://alerts.ncdr.nat.gov.tw:8443/a.cap",
            "https://localhost/a.cap",
            "https://alerts.ncdr.nat.gov.tw.evil.example/a.cap",
            "https://127.0.0.1/a.cap",
        ] {
            assert!(!permits(&origins, &url(refused)), "{refused}");
        }
        let local = allowed(&url("http://127.0.0.1:8080/feed"), &[]).expect("origins");
        assert!(permits(&local, &url("http://127.0.0.1:8080/Capstorage/x")));
        assert!(!permits(&local, &url("http://127.0.0.1:8081/Capstorage/x")));
        assert!(!permits(&local, &url("http://localhost:8080/Capstorage/x")));
    }

    #[test]
    fn hosts_the_operator_lists_are_allowed_as_written() {
        let feed = url("https://alerts.ncdr.nat.gov.tw/RssAtomFeed.ashx");
        let extra = ["cdn.example".to_string(), "http://mirror.example:8080".into(), " ".into()];
        let origins = allowed(&feed, &extra).expect("origins");
        assert!(permits(&origins, &url("https://cdn.example/a.cap")));
        assert!(!permits(&origins, &url("http://cdn.example/a.cap")), "the feed's scheme");
        assert!(permits(&origins, &url("http://mirror.example:8080/a.cap")));
        assert!(!permits(&origins, &url("http://mirror.example/a.cap")));
        for bad in ["https://x.example/path", "user@x.example", "ftp://x.example", "a b"] {
            assert!(allowed(&feed, &[bad.to_string()]).is_err(), "{bad}");
        }
    }
}
