//! What the family page keeps in memory, beside the application it belongs to: who connected
//! (the address the per-address limit counts), the rate limits per session and per address (keyed
//! `governor` limiters; each process counts on its own), and what the page says after a change.

use std::net::IpAddr;
use std::num::NonZeroU32;

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// The address a request came from (set by the connection, [`crate::server::listen`]).
#[derive(Debug, Clone, Copy)]
pub struct Peer(pub Option<IpAddr>);

/// The family page's rate limits: per session and per address.
pub struct PageLimits {
    per_session: DefaultKeyedRateLimiter<String>,
    per_address: DefaultKeyedRateLimiter<String>,
}

impl Default for PageLimits {
    fn default() -> Self {
        let per_minute = |n: u32| Quota::per_minute(NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN));
        Self {
            // A member taps a few times a minute; a page with its changes passes in a burst.
            per_session: RateLimiter::keyed(
                per_minute(120).allow_burst(NonZeroU32::MIN.saturating_add(59)),
            ),
            per_address: RateLimiter::keyed(
                per_minute(300).allow_burst(NonZeroU32::MIN.saturating_add(149)),
            ),
        }
    }
}

impl PageLimits {
    /// True when the address `peer` may make one more request now.
    pub fn address_allows(&self, peer: Peer) -> bool {
        let key = peer.0.map_or_else(|| "unknown".to_string(), |ip| ip.to_string());
        let allowed = self.per_address.check_key(&key).is_ok();
        if self.per_address.len() > 10_000 {
            self.per_address.retain_recent();
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
