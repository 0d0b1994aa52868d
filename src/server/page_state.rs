//! What the family page keeps in memory, beside the application it belongs to ([`PageState`], the
//! page router's own state): who connected and which address a request counts as
//! ([`client_address`], believing `X-Forwarded-For` only from `HEARTH_TRUSTED_PROXIES`), the rate
//! limits (keyed `governor` limiters; each process counts on its own), and what the page says after
//! a change.
//!
//! The limits are split so that a stranger cannot spend them for the family: a request whose
//! cookie names an open session is counted only in that session's bucket; every other request
//! (opening a link, the LIFF sign-in, no cookie or a cookie naming no session) is counted in
//! the bucket of the address it comes from. Behind a proxy nobody trusted, strangers and the
//! family share that address's bucket, but a family member signed in never uses it.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;

use axum::http::HeaderMap;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::platform::ip_range::IpRanges;

/// The family page's own state, reached by its handlers through axum's `FromRef` (from
/// [`crate::server::app::Hearth`]): its limits, what it says after a change, its LIFF app, its
/// public address and the names of securities it shows. Clones share them.
#[derive(Clone)]
pub struct PageState {
    /// The rate limits.
    pub(crate) limits: Arc<PageLimits>,
    /// What the page says after a change.
    pub(crate) flash: Arc<PageFlash>,
    /// The LIFF app the page opens in (`HEARTH_LIFF_ID`), if any.
    pub(crate) liff_id: Option<Arc<str>>,
    /// The public address the page is served at (`HEARTH_PUBLIC_URL`), if any: a change must
    /// come from it.
    pub(crate) public_url: Option<Arc<str>>,
    /// The Taiwan securities table (names of watched symbols).
    pub(crate) securities: Arc<crate::sources::securities::Securities>,
}

impl PageState {
    /// The page's state under `settings` (and the public address of `server`), naming securities
    /// from `securities`.
    pub fn new(
        settings: &crate::platform::config::PageSettings,
        server: &crate::platform::config::ServerSettings,
        securities: Arc<crate::sources::securities::Securities>,
    ) -> Self {
        Self {
            limits: Arc::new(PageLimits::new(settings.trusted_proxies.clone())),
            flash: Arc::default(),
            liff_id: settings.liff().map(Arc::from),
            public_url: server.public_url.as_deref().map(Arc::from),
            securities,
        }
    }
}

/// The address a request came from (set by the connection, [`crate::server::listen`]).
#[derive(Debug, Clone, Copy)]
pub struct Peer(pub Option<IpAddr>);

/// The address a request is counted as: the `peer`'s, unless the peer is one of the `trusted`
/// proxies; then the right-most address of `X-Forwarded-For` (its `forwarded_for` header lines,
/// in order) that is not itself trusted — the one the last trusted proxy saw, which no client
/// can choose. Entries are read from the right; one that is not a plain address ends the walk
/// at the last address known, and a header of trusted addresses only gives its left-most.
/// IPv4 addresses written as IPv6 count as themselves.
pub fn client_address(
    peer: Option<IpAddr>,
    forwarded_for: &[&str],
    trusted: &IpRanges,
) -> Option<IpAddr> {
    let mut client = peer?.to_canonical();
    if !trusted.contains(client) {
        return Some(client);
    }
    for entry in forwarded_for.iter().rev().flat_map(|line| line.rsplit(',')) {
        let Ok(hop) = entry.trim().parse::<IpAddr>() else { break };
        client = hop.to_canonical();
        if !trusted.contains(client) {
            break;
        }
    }
    Some(client)
}

/// The family page's rate limits: per session, and per address for requests without one.
pub struct PageLimits {
    per_session: DefaultKeyedRateLimiter<String>,
    anonymous: DefaultKeyedRateLimiter<Option<IpAddr>>,
    trusted_proxies: IpRanges,
}

impl PageLimits {
    /// The limits, believing `X-Forwarded-For` from `trusted_proxies` only.
    pub fn new(trusted_proxies: IpRanges) -> Self {
        let per_minute = |n: u32| Quota::per_minute(NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN));
        Self {
            // A member taps a few times a minute; a page with its changes passes in a burst.
            per_session: RateLimiter::keyed(
                per_minute(120).allow_burst(NonZeroU32::MIN.saturating_add(59)),
            ),
            // A family opens a link now and then; an expired cookie is seen once per page.
            anonymous: RateLimiter::keyed(
                per_minute(60).allow_burst(NonZeroU32::MIN.saturating_add(29)),
            ),
            trusted_proxies,
        }
    }

    /// The address a request from `peer` with `headers` counts as ([`client_address`]).
    pub fn client(&self, peer: Peer, headers: &HeaderMap) -> Option<IpAddr> {
        let forwarded: Vec<&str> = match self.trusted_proxies.is_empty() {
            true => Vec::new(),
            false => {
                headers.get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok()).collect()
            }
        };
        client_address(peer.0, &forwarded, &self.trusted_proxies)
    }

    /// True when a request without a session, from `peer` with `headers`, may be answered now.
    pub fn anonymous_allows(&self, peer: Peer, headers: &HeaderMap) -> bool {
        let allowed = self.anonymous.check_key(&self.client(peer, headers)).is_ok();
        if self.anonymous.len() > 10_000 {
            self.anonymous.retain_recent();
        }
        allowed
    }

    /// True when the session `hash` may make one more request now.
    pub fn session_allows(&self, hash: &str) -> bool {
        let allowed = self.per_session.check_key(&hash.to_string()).is_ok();
        if self.per_session.len() > 10_000 {
            self.per_session.retain_recent();
        }
        allowed
    }
}

/// What the page says after a change, kept for the page shown next (one per session, a minute).
#[derive(Default)]
pub struct PageFlash(
    std::sync::Mutex<std::collections::HashMap<String, (String, std::time::Instant)>>,
);

impl PageFlash {
    /// Keeps `said` for the session `hash`'s next page.
    pub fn put(&self, hash: &str, said: &str) {
        let mut kept = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.retain(|_, (_, at)| at.elapsed() < std::time::Duration::from_secs(60));
        if kept.len() < 10_000 {
            kept.insert(hash.to_string(), (said.to_string(), std::time::Instant::now()));
        }
    }

    /// What to say on the session `hash`'s page, once.
    pub fn take(&self, hash: &str) -> Option<String> {
        let mut kept = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.remove(hash).map(|(said, _)| said)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> Option<IpAddr> {
        Some(text.parse().expect("an address"))
    }

    fn ranges(text: &str) -> IpRanges {
        text.parse().expect("ranges")
    }

    #[test]
    fn without_trusted_proxies_a_request_is_its_peer_whatever_it_forwards() {
        let none = IpRanges::default();
        assert_eq!(client_address(ip("203.0.113.9"), &["198.51.100.1"], &none), ip("203.0.113.9"));
        assert_eq!(client_address(None, &["198.51.100.1"], &none), None);
        let other = ranges("10.0.0.0/8");
        assert_eq!(
            client_address(ip("127.0.0.1"), &["198.51.100.1"], &other),
            ip("127.0.0.1"),
            "an untrusted peer's header is ignored"
        );
    }

    #[test]
    fn behind_trusted_proxies_a_request_is_the_right_most_untrusted_forwarded_address() {
        let proxies = ranges("127.0.0.1,10.0.0.0/8");
        // The client wrote the first entry itself; the proxy appended what it saw.
        let forged = ["1.2.3.4, 198.51.100.7"];
        assert_eq!(client_address(ip("127.0.0.1"), &forged, &proxies), ip("198.51.100.7"));
        // Two trusted hops: the address the outer one saw.
        let chain = ["1.2.3.4, 198.51.100.7, 10.0.0.5"];
        assert_eq!(client_address(ip("127.0.0.1"), &chain, &proxies), ip("198.51.100.7"));
        // Header lines count in order, as one list.
        let lines = ["1.2.3.4", "198.51.100.7", " 10.0.0.5 "];
        assert_eq!(client_address(ip("127.0.0.1"), &lines, &proxies), ip("198.51.100.7"));
        assert_eq!(
            client_address(ip("::ffff:127.0.0.1"), &["::ffff:198.51.100.7"], &proxies),
            ip("198.51.100.7"),
            "IPv4 written as IPv6 is the same address"
        );
    }

    #[test]
    fn a_missing_or_unreadable_forwarded_address_falls_back_to_the_last_address_known() {
        let proxies = ranges("127.0.0.1,10.0.0.0/8");
        assert_eq!(client_address(ip("127.0.0.1"), &[], &proxies), ip("127.0.0.1"));
        assert_eq!(client_address(ip("127.0.0.1"), &["unknown"], &proxies), ip("127.0.0.1"));
        assert_eq!(
            client_address(ip("127.0.0.1"), &["198.51.100.7, garbage, 10.0.0.5"], &proxies),
            ip("10.0.0.5"),
            "nothing left of an unreadable entry is believed"
        );
        assert_eq!(
            client_address(ip("127.0.0.1"), &["10.0.0.9, 10.0.0.5"], &proxies),
            ip("10.0.0.9"),
            "only proxies: the left-most"
        );
        assert_eq!(
            client_address(ip("127.0.0.1"), &["198.51.100.7:4711"], &proxies),
            ip("127.0.0.1"),
            "an address with a port is not a plain address"
        );
    }
}
