//! The family page: its LIFF app and the proxies whose forwarded addresses it believes.

use clap::Args;

use crate::platform::ip_range::IpRanges;

/// The family page.
#[derive(Debug, Clone, Args)]
pub struct PageSettings {
    /// A LIFF app (its ID, `1234567890-AbCdEfGh`) whose endpoint is HEARTH_PUBLIC_URL/family/liff:
    /// the family page's links then open inside LINE, and LINE's ID token of whoever opens one
    /// is verified before the page counts them as that member. Empty: plain links.
    #[arg(long, env = "HEARTH_LIFF_ID", default_value = "", value_parser = liff_id, global = true)]
    pub liff_id: String,
    /// Reverse proxies whose `X-Forwarded-For` is believed: comma-separated addresses or CIDR
    /// blocks (`127.0.0.1,10.0.0.0/8`). A request from one of them is counted, by the family
    /// page's limit on requests without a session, as the right-most address of that header
    /// not itself listed; every other request as the address it came from. Empty: nobody's.
    #[arg(
        long,
        env = "HEARTH_TRUSTED_PROXIES",
        default_value = "",
        value_parser = trusted_proxies,
        hide_default_value = true,
        global = true
    )]
    pub trusted_proxies: IpRanges,
}

impl PageSettings {
    /// The LIFF app's ID, when one is set.
    pub fn liff(&self) -> Option<&str> {
        Some(self.liff_id.as_str()).filter(|id| !id.is_empty())
    }
}

/// Parses `HEARTH_LIFF_ID`: empty, or a LIFF ID (`1234567890-AbCdEfGh`).
fn liff_id(value: &str) -> Result<String, String> {
    let value = value.trim();
    let well_formed = value.split_once('-').is_some_and(|(channel, rest)| {
        !channel.is_empty()
            && channel.bytes().all(|b| b.is_ascii_digit())
            && !rest.is_empty()
            && rest.bytes().all(|b| b.is_ascii_alphanumeric())
    });
    if value.is_empty() || well_formed {
        Ok(value.to_string())
    } else {
        Err("a LIFF ID looks like 1234567890-AbCdEfGh".into())
    }
}

/// Parses `HEARTH_TRUSTED_PROXIES`: comma-separated addresses or CIDR blocks.
fn trusted_proxies(value: &str) -> Result<IpRanges, String> {
    value.parse().map_err(|e: crate::platform::ip_range::IpRangeError| e.to_string())
}

#[cfg(test)]
mod trusted_proxies_tests {
    use crate::platform::config::{Config, parse_for_test as parse};

    #[test]
    fn trusted_proxies_are_none_by_default_and_a_bad_entry_stops_the_start() {
        assert!(Config::defaults().page.trusted_proxies.is_empty());
        let two = parse(&["--trusted-proxies", "127.0.0.1,10.0.0.0/8"]).expect("two ranges");
        assert!(two.page.trusted_proxies.contains("10.9.8.7".parse().expect("ip")));
        for bad in ["10.0.0.1/8", "proxy.internal", "10.0.0.0/8,", "127.0.0.1:8080"] {
            assert!(parse(&["--trusted-proxies", bad]).is_err(), "{bad:?}");
        }
    }
}
