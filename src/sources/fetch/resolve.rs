//! DNS for the page fetcher: a `reqwest` resolver that drops every blocked address, so the
//! client connects only to addresses that were checked (no DNS rebinding, no check-then-connect
//! race). The lookup itself is behind [`Lookup`] so tests can map names to chosen addresses.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use futures::future::BoxFuture;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::policy::{FetchPolicy, Refusal, blocked_reason};

/// Turns a host name into addresses.
pub trait Lookup: Send + Sync + 'static {
    /// The addresses of `host`.
    fn lookup(&self, host: String) -> BoxFuture<'static, std::io::Result<Vec<IpAddr>>>;
}

/// The system resolver (`getaddrinfo` through tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemLookup;

impl Lookup for SystemLookup {
    fn lookup(&self, host: String) -> BoxFuture<'static, std::io::Result<Vec<IpAddr>>> {
        Box::pin(async move {
            let addrs = tokio::net::lookup_host((host.as_str(), 0)).await?;
            Ok(addrs.map(|a| a.ip()).collect())
        })
    }
}

/// Fixed answers, for tests: a name maps to the listed addresses; unknown names fail.
#[derive(Debug, Clone, Default)]
pub struct StaticLookup(pub Vec<(String, Vec<IpAddr>)>);

impl Lookup for StaticLookup {
    fn lookup(&self, host: String) -> BoxFuture<'static, std::io::Result<Vec<IpAddr>>> {
        let found = self.0.iter().find(|(name, _)| name.eq_ignore_ascii_case(&host));
        let result = found.map(|(_, ips)| ips.clone()).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::NotFound, format!("no such host {host}"))
        });
        Box::pin(async move { result })
    }
}

/// The resolver given to the fetcher's `reqwest` client.
#[derive(Clone)]
pub struct GuardedResolver {
    lookup: Arc<dyn Lookup>,
    policy: FetchPolicy,
}

impl GuardedResolver {
    /// A resolver applying `policy` to what `lookup` returns.
    pub fn new(lookup: Arc<dyn Lookup>, policy: FetchPolicy) -> Self {
        Self { lookup, policy }
    }

    /// The allowed addresses of `host`; an error when none remain.
    pub async fn allowed(&self, host: &str) -> Result<Vec<IpAddr>, ResolveError> {
        let all = self.lookup.lookup(host.to_string()).await.map_err(ResolveError::Lookup)?;
        let allowed: Vec<IpAddr> =
            all.iter().copied().filter(|ip| blocked_reason(*ip, &self.policy).is_none()).collect();
        if allowed.is_empty() {
            if all.is_empty() {
                return Err(ResolveError::Lookup(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!("{host} has no addresses"),
                )));
            }
            tracing::warn!(host, addresses = ?all, "fetch refused: name resolves to blocked addresses");
            return Err(ResolveError::Blocked(Refusal::Resolved(host.to_string())));
        }
        Ok(allowed)
    }
}

/// Why a name could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// Every address was blocked.
    #[error(transparent)]
    Blocked(Refusal),
    /// The lookup failed.
    #[error("name lookup failed")]
    Lookup(#[source] std::io::Error),
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let this = self.clone();
        let host = name.as_str().to_string();
        Box::pin(async move {
            let ips = this.allowed(&host).await?;
            let addrs: Addrs = Box::new(ips.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolver(policy: FetchPolicy) -> GuardedResolver {
        let table = StaticLookup(vec![
            (
                "mixed.example".into(),
                vec!["127.0.0.1".parse().expect("ip"), "93.184.216.34".parse().expect("ip")],
            ),
            (
                "intranet.example".into(),
                vec!["10.0.0.5".parse().expect("ip"), "::1".parse().expect("ip")],
            ),
        ]);
        GuardedResolver::new(Arc::new(table), policy)
    }

    #[tokio::test]
    async fn blocked_addresses_are_dropped_and_a_private_only_name_is_refused() {
        let r = resolver(FetchPolicy::default());
        let mixed = r.allowed("mixed.example").await.expect("public address kept");
        assert_eq!(mixed, vec!["93.184.216.34".parse::<IpAddr>().expect("ip")]);
        let err = r.allowed("intranet.example").await.expect_err("refused");
        assert!(matches!(err, ResolveError::Blocked(Refusal::Resolved(_))), "{err:?}");
        assert!(matches!(r.allowed("nowhere.example").await, Err(ResolveError::Lookup(_))));
    }

    #[tokio::test]
    async fn the_test_setting_keeps_private_addresses() {
        let r = resolver(FetchPolicy { allow_private: true, exceptions: Vec::new() });
        assert_eq!(r.allowed("intranet.example").await.expect("allowed").len(), 2);
    }
}
