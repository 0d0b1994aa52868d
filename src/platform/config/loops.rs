//! The background loops: the reminder scheduler's lease, the price-alert poller, the official
//! alerts feed and the care loop.

use clap::Args;

/// The background loops' pace.
#[derive(Debug, Clone, Args)]
pub struct LoopSettings {
    /// Seconds a process holds a due reminder it claimed.
    #[arg(long, env = "HEARTH_REMINDER_LEASE_SECS", default_value_t = 120, global = true)]
    pub reminder_lease_secs: u64,
    /// Seconds between price-alert polls (each watched symbol is fetched on its own cadence:
    /// 30 s near a level, up to 10 min far from one); 0 turns the poller off. Its former name,
    /// `HEARTH_ALERT_POLL_SECS` (`--alert-poll-secs`), is still read when this is not set.
    #[arg(
        long,
        alias = "alert-poll-secs",
        env = "HEARTH_PRICE_POLL_SECS",
        default_value_t = price_poll_default(std::env::var(FORMER_PRICE_POLL).ok()),
        global = true
    )]
    pub price_poll_secs: u64,
    /// `HEARTH_PRICE_POLL_SECS`'s former name, read only as its default (and checked here).
    #[arg(long = "former-alert-poll-secs", env = FORMER_PRICE_POLL, hide = true, global = true)]
    pub former_alert_poll_secs: Option<u64>,
    /// The feed of Taiwan's official alerts: an Atom feed of CAP 1.2 documents (NCDR's public
    /// alert platform); work/school suspensions, typhoon, heavy-rain and earthquake alerts for
    /// the chats that follow them. Empty turns the alerts off.
    #[arg(
        long,
        alias = "alerts-feed-url",
        env = "HEARTH_OFFICIAL_ALERTS_FEED_URL",
        default_value = "https://alerts.ncdr.nat.gov.tw/RssAtomFeed.ashx",
        global = true
    )]
    pub official_alerts_feed_url: String,
    /// Seconds between reads of the official alerts feed (one replica reads it, with
    /// conditional requests); 0 turns the reading off.
    #[arg(
        long,
        alias = "alerts-poll-secs",
        env = "HEARTH_OFFICIAL_ALERTS_POLL_SECS",
        default_value_t = 60,
        global = true
    )]
    pub official_alerts_poll_secs: u64,
    /// Milliseconds between two requests to the alerts feed's host (NCDR refuses requests
    /// less than 3 s apart).
    #[arg(
        long,
        alias = "alerts-request-gap-ms",
        env = "HEARTH_OFFICIAL_ALERTS_REQUEST_GAP_MS",
        default_value_t = 3000,
        global = true
    )]
    pub official_alerts_request_gap_ms: u64,
    /// Hosts besides the feed's own that alert documents may come from (and redirect to),
    /// comma-separated: `cdn.example` (the feed's scheme, its default port), `cdn.example:8443`
    /// or `https://cdn.example`. Any other host is refused and logged.
    #[arg(
        long,
        alias = "alerts-extra-hosts",
        env = "HEARTH_OFFICIAL_ALERTS_EXTRA_HOSTS",
        value_delimiter = ',',
        global = true
    )]
    pub official_alerts_extra_hosts: Vec<String>,
    /// Seconds between rounds of the care loop (doses asked, caregivers told, weekly reports);
    /// 0 turns it off.
    #[arg(long, env = "HEARTH_CARE_TICK_SECS", default_value_t = 15, global = true)]
    pub care_tick_secs: u64,
    /// Days care plans' readings and doses are kept (then deleted).
    #[arg(
        long,
        env = "HEARTH_CARE_RETENTION_DAYS",
        default_value_t = 365,
        value_parser = clap::value_parser!(u32).range(7..=3650),
        global = true
    )]
    pub care_retention_days: u32,
}

/// The former name of `HEARTH_PRICE_POLL_SECS`, from when the official alerts'
/// `HEARTH_OFFICIAL_ALERTS_POLL_SECS` was one letter away.
const FORMER_PRICE_POLL: &str = "HEARTH_ALERT_POLL_SECS";

/// `HEARTH_PRICE_POLL_SECS`'s default: the value of its former name when that is set (one that
/// is not a number is refused by its own argument), else 5 s.
fn price_poll_default(former: Option<String>) -> u64 {
    former.and_then(|v| v.trim().parse().ok()).unwrap_or(5)
}

#[cfg(test)]
mod price_poll_tests {
    use crate::platform::config::parse_for_test as parse;

    #[test]
    fn the_price_poll_keeps_its_former_name_as_an_alias() {
        assert_eq!(super::price_poll_default(None), 5);
        assert_eq!(super::price_poll_default(Some("12".into())), 12);
        let flag = parse(&["--alert-poll-secs", "9"]);
        assert_eq!(flag.expect("the former flag").loops.price_poll_secs, 9);
        assert!(parse(&["--former-alert-poll-secs", "often"]).is_err());
    }
}
