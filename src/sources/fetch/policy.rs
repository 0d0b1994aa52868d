//! The SSRF policy as pure functions: which URLs may be fetched ([`check_url`]) and which
//! addresses may be connected to ([`blocked_reason`]). No I/O here, so every rule is
//! table-tested; the fetcher applies [`check_url`] to the first URL and to every redirect hop,
//! and its resolver applies [`blocked_reason`] to every address a name resolves to.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use ipnet::{Ipv4Net, Ipv6Net};
use url::{Host, Url};

/// Who may be reached.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FetchPolicy {
    /// `HEARTH_ALLOW_PRIVATE_FETCH`: private, loopback and other blocked addresses and any port
    /// are allowed. Off in production; tests turn it on to reach their loopback fakes.
    pub allow_private: bool,
    /// Exact socket addresses reachable by IP-literal URLs although their address is blocked
    /// (a test's "public" fake page server). Empty in production. Names never use this list.
    pub exceptions: Vec<SocketAddr>,
}

/// Why a URL or an address was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// Not a URL.
    #[error("not a valid web address")]
    Invalid,
    /// Not http or https.
    #[error("only http and https links can be opened (not {0}:)")]
    Scheme(String),
    /// `user:password@` in the URL.
    #[error("links with a user name or password in them are not opened")]
    Userinfo,
    /// No host.
    #[error("the link has no host")]
    NoHost,
    /// A port other than 80 and 443.
    #[error("only the standard web ports (80, 443) are opened, not port {0}")]
    Port(u16),
    /// The address is private, local or reserved.
    #[error("{0} is a private, local or reserved address; only public web pages are opened")]
    Address(IpAddr),
    /// Every address the name resolves to is blocked.
    #[error("{0} points only to private, local or reserved addresses")]
    Resolved(String),
    /// Too many redirects.
    #[error("too many redirects")]
    TooManyRedirects,
}

/// IPv4 ranges that are never fetched.
const BLOCKED_V4: &[(Ipv4Addr, u8)] = &[
    (Ipv4Addr::new(0, 0, 0, 0), 8),       // "this network"
    (Ipv4Addr::new(10, 0, 0, 0), 8),      // private
    (Ipv4Addr::new(100, 64, 0, 0), 10),   // carrier-grade NAT
    (Ipv4Addr::new(127, 0, 0, 0), 8),     // loopback
    (Ipv4Addr::new(169, 254, 0, 0), 16),  // link-local, cloud metadata
    (Ipv4Addr::new(172, 16, 0, 0), 12),   // private
    (Ipv4Addr::new(192, 0, 0, 0), 24),    // IETF protocol assignments
    (Ipv4Addr::new(192, 0, 2, 0), 24),    // documentation
    (Ipv4Addr::new(192, 88, 99, 0), 24),  // 6to4 relay anycast
    (Ipv4Addr::new(192, 168, 0, 0), 16),  // private
    (Ipv4Addr::new(198, 18, 0, 0), 15),   // benchmarking
    (Ipv4Addr::new(198, 51, 100, 0), 24), // documentation
    (Ipv4Addr::new(203, 0, 113, 0), 24),  // documentation
    (Ipv4Addr::new(224, 0, 0, 0), 4),     // multicast
    (Ipv4Addr::new(240, 0, 0, 0), 4),     // reserved, broadcast
];

/// IPv6 ranges that are never fetched (the embedded-IPv4 forms are checked separately).
const BLOCKED_V6: &[(Ipv6Addr, u8)] = &[
    (Ipv6Addr::new(0, 0, 0, 0, 0, 0, 0, 0), 128), // unspecified
    (Ipv6Addr::new(0, 0, 0, 0, 0, 0, 0, 1), 128), // loopback
    (Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0), 64), // discard
    (Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32), // documentation
    (Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0), 7), // unique local
    (Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10), // link-local
    (Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0), 10), // site-local (deprecated)
    (Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0), 8), // multicast
];

fn in_v4(ip: Ipv4Addr) -> bool {
    BLOCKED_V4.iter().any(|&(net, len)| Ipv4Net::new(net, len).is_ok_and(|n| n.contains(&ip)))
}

/// The IPv4 addresses an IPv6 address may carry: mapped (`::ffff:a.b.c.d`), translated
/// (`::ffff:0:a.b.c.d`, RFC 2765), compatible (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`; in the
/// local-use `64:ff9b:1::/48` at the /48 position of RFC 6052, bytes 6–7 and 9–10, and at the
/// end as well when the suffix is not zero, as a longer local prefix would put it) or 6to4
/// (`2002:AABB:CCDD::`). An address is blocked when any of them is.
fn embedded_v4(ip: Ipv6Addr) -> Vec<Ipv4Addr> {
    let s = ip.segments();
    let o = ip.octets();
    let tail = Ipv4Addr::new(o[12], o[13], o[14], o[15]);
    match s {
        [0, 0, 0, 0, 0, 0xffff, _, _] => vec![tail],
        [0, 0, 0, 0, 0xffff, 0, _, _] => vec![tail],
        [0, 0, 0, 0, 0, 0, _, _] => vec![tail],
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => vec![tail],
        [0x64, 0xff9b, 1, ..] => {
            let local = Ipv4Addr::new(o[6], o[7], o[9], o[10]);
            if o[11..].iter().all(|&b| b == 0) { vec![local] } else { vec![local, tail] }
        }
        [0x2002, ..] => vec![Ipv4Addr::new(o[2], o[3], o[4], o[5])],
        _ => Vec::new(),
    }
}

/// True if `ip` must never be connected to (with the private-fetch setting off).
pub fn is_blocked(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => in_v4(v4),
        IpAddr::V6(v6) => {
            if BLOCKED_V6
                .iter()
                .any(|&(net, len)| Ipv6Net::new(net, len).is_ok_and(|n| n.contains(&v6)))
            {
                return true;
            }
            embedded_v4(v6).into_iter().any(in_v4)
        }
    }
}

/// Why `ip` may not be connected to under `policy`, or `None` if it may.
pub fn blocked_reason(ip: IpAddr, policy: &FetchPolicy) -> Option<Refusal> {
    (!policy.allow_private && is_blocked(ip)).then_some(Refusal::Address(ip))
}

/// Checks a URL before any request is sent (the first URL and every redirect hop): http(s)
/// only, no userinfo, ports 80/443, and an IP-literal host (including the decimal, octal and hex
/// forms the URL parser normalises to one) must not be blocked. Names are checked after DNS
/// resolution by the fetcher's resolver.
pub fn check_url(url: &Url, policy: &FetchPolicy) -> Result<(), Refusal> {
    let scheme = url.scheme();
    if scheme != "http" && scheme != "https" {
        return Err(Refusal::Scheme(scheme.to_string()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Refusal::Userinfo);
    }
    let port = url.port_or_known_default().ok_or(Refusal::NoHost)?;
    let ip = match url.host() {
        None => return Err(Refusal::NoHost),
        Some(Host::Domain("")) => return Err(Refusal::NoHost),
        Some(Host::Domain(_)) => None,
        Some(Host::Ipv4(v4)) => Some(IpAddr::V4(v4)),
        Some(Host::Ipv6(v6)) => Some(IpAddr::V6(v6)),
    };
    if let Some(ip) = ip {
        if policy.exceptions.contains(&SocketAddr::new(ip, port)) {
            return Ok(());
        }
        if let Some(refusal) = blocked_reason(ip, policy) {
            return Err(refusal);
        }
    }
    if !policy.allow_private && port != 80 && port != 443 {
        return Err(Refusal::Port(port));
    }
    Ok(())
}

/// Parses `raw` and checks it with [`check_url`].
pub fn parse_and_check(raw: &str, policy: &FetchPolicy) -> Result<Url, Refusal> {
    let raw = raw.trim();
    // A calendar subscription link (a school's `webcal://…`) is its https address.
    let raw = match raw.get(..9).filter(|scheme| scheme.eq_ignore_ascii_case("webcal://")) {
        Some(_) => std::borrow::Cow::Owned(format!("https://{}", &raw[9..])),
        None => std::borrow::Cow::Borrowed(raw),
    };
    let url = Url::parse(&raw).map_err(|_| Refusal::Invalid)?;
    check_url(&url, policy)?;
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(raw: &str) -> Option<Refusal> {
        parse_and_check(raw, &FetchPolicy::default()).err()
    }

    #[test]
    fn a_calendar_subscription_link_is_read_at_its_https_address() {
        let url = parse_and_check("webcal://school.example.tw/term.ics", &FetchPolicy::default());
        assert_eq!(url.map(|u| u.to_string()), Ok("https://school.example.tw/term.ics".into()));
        assert!(matches!(refused("WEBCAL://127.0.0.1/a.ics"), Some(Refusal::Address(_))));
    }

    #[test]
    fn public_pages_pass() {
        for ok in [
            "https://example.com/a?b=c",
            "http://example.com:80/",
            "https://93.184.216.34/",
            "https://[2606:2800:220:1:248:1893:25c8:1946]/",
            "https://xn--fiq228c.tw/",
            "http://8.8.8.8/",
            "http://[::ffff:8.8.8.8]/",
            "http://[64:ff9b::808:808]/",
        ] {
            assert_eq!(refused(ok), None, "{ok}");
        }
    }

    #[test]
    fn hostile_urls_are_refused_with_a_reason() {
        let table: &[(&str, &str)] = &[
            ("http://127.0.0.1/", "Address"),
            ("http://127.1/", "Address"),
            ("http://2130706433/", "Address"),
            ("http://0x7f.1/", "Address"),
            ("http://0x7f000001/", "Address"),
            ("http://017700000001/", "Address"),
            ("http://0177.0.0.1/", "Address"),
            ("http://0/", "Address"),
            ("http://0.0.0.0/", "Address"),
            ("http://10.1.2.3/", "Address"),
            ("http://172.16.0.1/", "Address"),
            ("http://172.31.255.255/", "Address"),
            ("http://192.168.1.1/", "Address"),
            ("http://100.64.0.1/", "Address"),
            ("http://169.254.169.254/latest/meta-data/", "Address"),
            ("http://224.0.0.1/", "Address"),
            ("http://255.255.255.255/", "Address"),
            ("http://192.0.2.1/", "Address"),
            ("http://198.51.100.7/", "Address"),
            ("http://203.0.113.9/", "Address"),
            ("http://198.18.0.1/", "Address"),
            ("http://[::1]/", "Address"),
            ("http://[::]/", "Address"),
            ("http://[fc00::1]/", "Address"),
            ("http://[fd12:3456::1]/", "Address"),
            ("http://[fe80::1]/", "Address"),
            ("http://[ff02::1]/", "Address"),
            ("http://[::ffff:127.0.0.1]/", "Address"),
            ("http://[::ffff:7f00:1]/", "Address"),
            ("http://[::ffff:169.254.169.254]/", "Address"),
            ("http://[::127.0.0.1]/", "Address"),
            ("http://[64:ff9b::127.0.0.1]/", "Address"),
            ("http://[64:ff9b::a00:1]/", "Address"),
            ("http://[2002:7f00:1::]/", "Address"),
            ("http://[2001:db8::1]/", "Address"),
            ("http://user:pass@example.com/", "Userinfo"),
            ("http://example.com@127.0.0.1/", "Userinfo"),
            ("http://user@example.com/", "Userinfo"),
            ("ftp://example.com/file", "Scheme"),
            ("file:///etc/passwd", "Scheme"),
            ("gopher://example.com:70/_x", "Scheme"),
            ("javascript:alert(1)", "Scheme"),
            ("data:text/html,hi", "Scheme"),
            ("http://example.com:8080/", "Port"),
            ("https://example.com:22/", "Port"),
            ("not a url", "Invalid"),
        ];
        assert!(table.len() >= 40);
        for (raw, kind) in table {
            let refusal = refused(raw).unwrap_or_else(|| panic!("{raw} was allowed"));
            assert!(format!("{refusal:?}").starts_with(kind), "{raw}: {refusal:?}");
            assert!(!refusal.to_string().is_empty());
        }
    }

    #[test]
    fn ipv4_translated_and_local_use_nat64_addresses_are_read_at_the_right_position() {
        // ::ffff:0:0/96 (RFC 2765) and 64:ff9b:1::/48 (RFC 8215, IPv4 in bytes 6-7 and 9-10).
        for blocked in [
            "http://[::ffff:0:127.0.0.1]/",
            "http://[::ffff:0:7f00:1]/",
            "http://[::ffff:0:a9fe:a9fe]/",
            "http://[::ffff:0:10.0.0.1]/",
            "http://[64:ff9b:1:7f00:0:100::]/",
            "http://[64:ff9b:1:7f00:0:100:808:808]/",
            "http://[64:ff9b:1:a9fe:a9:fe00::]/",
            "http://[64:ff9b:1:a9fe:a9:fe00:808:808]/",
            "http://[64:ff9b:1:a00:0:100:808:808]/",
            "http://[64:ff9b:1:c0a8:1:100::]/",
            // A longer local prefix puts the address at the end: checked too.
            "http://[64:ff9b:1:808:8:800:7f00:1]/",
        ] {
            let refusal = refused(blocked).unwrap_or_else(|| panic!("{blocked} was allowed"));
            assert!(matches!(refusal, Refusal::Address(_)), "{blocked}: {refusal:?}");
        }
        for public in ["http://[::ffff:0:8.8.8.8]/", "http://[64:ff9b:1:808:8:800::]/"] {
            assert_eq!(refused(public), None, "{public}");
        }
    }

    #[test]
    fn the_test_setting_opens_private_addresses_and_ports() {
        let open = FetchPolicy { allow_private: true, exceptions: Vec::new() };
        assert!(parse_and_check("http://127.0.0.1:4321/page", &open).is_ok());
        assert!(parse_and_check("ftp://127.0.0.1/", &open).is_err(), "scheme still checked");
        assert!(parse_and_check("http://u:p@127.0.0.1/", &open).is_err(), "userinfo too");
    }

    #[test]
    fn an_exception_opens_one_socket_address_only() {
        let fake: SocketAddr = "127.0.0.1:4321".parse().expect("addr");
        let policy = FetchPolicy { allow_private: false, exceptions: vec![fake] };
        assert!(parse_and_check("http://127.0.0.1:4321/page", &policy).is_ok());
        assert!(parse_and_check("http://127.0.0.1:4322/", &policy).is_err());
        assert!(parse_and_check("http://127.0.0.1/", &policy).is_err());
        assert!(parse_and_check("http://localhost:4321/", &policy).is_err(), "port of a name");
    }
}
