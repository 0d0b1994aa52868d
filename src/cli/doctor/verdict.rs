//! The decisions of the doctor, as pure functions of what it read: which webhook URL is
//! expected and whether LINE's matches it, what the quota reading means, whether the database
//! is migrated. No I/O here, so each is tested on its own.

use super::Finding;
use crate::line::channel::{WebhookEndpoint, WebhookTest};
use crate::line::client::Quota;
use crate::store::{GuessesOver, Migrations};

/// Share of the month's quota from which the doctor warns.
pub const QUOTA_WARN_PERCENT: i64 = 80;

/// Where the console's webhook settings are, for the fixes.
const CONSOLE: &str = "the LINE Developers console (Messaging API tab → Webhook settings)";

/// The webhook URL LINE should call: the one given on the command line, else
/// `HEARTH_PUBLIC_URL` + `/callback`, else none known.
pub fn expected_webhook(flag: Option<&str>, public_url: Option<&str>) -> Option<String> {
    match flag.map(str::trim).filter(|f| !f.is_empty()) {
        Some(flag) => Some(flag.to_string()),
        None => public_url.map(|base| format!("{}/callback", base.trim_end_matches('/'))),
    }
}

/// True when two webhook URLs name the same place: scheme and host compared without case, a
/// default port as none, a trailing slash ignored.
pub fn same_url(a: &str, b: &str) -> bool {
    let normal = |s: &str| {
        url::Url::parse(s.trim()).ok().map(|u| {
            let path = u.path().trim_end_matches('/').to_string();
            (
                u.scheme().to_string(),
                u.host_str().map(str::to_lowercase),
                u.port(),
                path,
                u.query().map(String::from),
            )
        })
    };
    match (normal(a), normal(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a.trim() == b.trim(),
    }
}

/// What LINE's webhook settings mean, next to the URL expected (if known).
pub fn webhook(expected: Option<&str>, at_line: &WebhookEndpoint) -> Finding {
    let target = expected.unwrap_or("https://<your host>/callback");
    if at_line.endpoint.trim().is_empty() {
        return Finding::fail(
            "no webhook URL is registered at LINE",
            format!("set the webhook URL to {target} in {CONSOLE} and turn on Use webhook"),
        );
    }
    if let Some(expected) = expected
        && !same_url(expected, &at_line.endpoint)
    {
        return Finding::fail(
            format!("LINE calls {}, not {expected}", at_line.endpoint),
            format!(
                "set the webhook URL to {expected} in {CONSOLE} (or pass the right --webhook-url)"
            ),
        );
    }
    if !at_line.active {
        return Finding::fail(
            format!(
                "{} is registered but Use webhook is off: LINE sends hearth nothing",
                at_line.endpoint
            ),
            format!("turn on Use webhook in {CONSOLE}"),
        );
    }
    match expected {
        Some(_) => Finding::pass(format!("{} is registered and in use", at_line.endpoint)),
        None => Finding::warn(
            format!("{} is registered and in use; no URL to compare it with", at_line.endpoint),
            "set HEARTH_PUBLIC_URL or pass --webhook-url so the doctor can check it is hearth's",
        ),
    }
}

/// What LINE's own test request to the webhook URL found.
pub fn webhook_test(endpoint: &str, test: &WebhookTest) -> Finding {
    if test.success {
        return Finding::pass(format!(
            "LINE's test request to {endpoint} was answered {}",
            test.status_code
        ));
    }
    let answered = if test.status_code > 0 {
        format!("answered {} ({} {})", test.status_code, test.reason, test.detail)
    } else {
        format!("got no answer ({} {})", test.reason, test.detail)
    };
    let fix = if test.status_code == 400 || test.status_code == 401 {
        "hearth refused LINE's signature: LINE_CHANNEL_SECRET must be the secret of this channel"
    } else {
        "start hearth serve behind HTTPS with a publicly trusted certificate at that address, and check the proxy or tunnel forwards /callback to it"
    };
    Finding::fail(format!("LINE's test request to {endpoint} {}", answered.trim_end()), fix)
}

/// What the month's quota reading means: a warning from [`QUOTA_WARN_PERCENT`], a failure
/// when it is used up (pushes are refused until the month ends).
pub fn quota(q: Quota) -> Finding {
    let Some(limit) = q.limit else {
        return Finding::pass(format!("no monthly limit; {} messages sent this month", q.used));
    };
    let upgrade =
        "raise the plan in LINE Official Account Manager, or expect pushes to wait until the 1st";
    if q.used >= limit {
        return Finding::fail(
            format!(
                "{} of {limit} messages used: reminders and alerts are not delivered until next month",
                q.used
            ),
            upgrade,
        );
    }
    let percent = if limit > 0 { q.used * 100 / limit } else { 100 };
    if percent >= QUOTA_WARN_PERCENT {
        return Finding::warn(
            format!("{} of {limit} messages used ({percent} %)", q.used),
            upgrade,
        );
    }
    Finding::pass(format!("{} of {limit} messages used ({percent} %)", q.used))
}

/// Whether the database has every migration of this build, and none it does not know.
pub fn migrations(backend: &str, m: &Migrations) -> Finding {
    let newer: Vec<i64> = m.applied.iter().copied().filter(|v| !m.known.contains(v)).collect();
    if let Some(newest) = newer.iter().max() {
        return Finding::fail(
            format!(
                "{backend}: the database has migration {newest}, which this build does not know (a newer hearth migrated it)"
            ),
            "run the newer hearth, or a database that matches this one",
        );
    }
    let pending: Vec<i64> = m.known.iter().copied().filter(|v| !m.applied.contains(v)).collect();
    match pending.first() {
        Some(first) => Finding::fail(
            format!(
                "{backend}: {} of {} migrations not applied (from {first})",
                pending.len(),
                m.known.len()
            ),
            "run `hearth migrate` with this DATABASE_URL (hearth serve also applies them at start)",
        ),
        None => {
            Finding::pass(format!("{backend}: reachable, all {} migrations applied", m.known.len()))
        }
    }
}

/// Events set aside because their handling did not finish twice (a crash or a hang each time).
pub fn set_aside(count: i64) -> Finding {
    if count == 0 {
        return Finding::pass("no webhook event set aside");
    }
    Finding::warn(
        format!(
            "{count} webhook event(s) set aside in the last day: handling them crashed or hung hearth twice (each chat was told once)"
        ),
        "look for \"setting it aside\" in the logs for their event ids and what they held; hearth goes on without them",
    )
}

/// The HTTPS certificate of `domain` (`HEARTH_TLS_DOMAIN`), ending at `not_after` (Unix ms;
/// `None`: none obtained yet), at `now` (Unix ms). hearth renews with a third of its life left
/// (30 days for Let's Encrypt's 90): one ending within 10 days was not renewed in time.
pub fn certificate(domain: &str, not_after: Option<i64>, now: i64) -> Finding {
    const DAY: i64 = 86_400_000;
    let place = "the domain's A record must be this server and outside port 443 must reach HEARTH_TLS_LISTEN; `hearth serve` logs the CA's reason (\"no HTTPS certificate obtained\")";
    let Some(not_after) = not_after else {
        return Finding::warn(
            format!("no HTTPS certificate for {domain} yet"),
            format!("start `hearth serve`, which obtains it at once: {place}"),
        );
    };
    let until = jiff::Timestamp::from_millisecond(not_after)
        .map(|t| t.strftime("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_default();
    if not_after <= now {
        return Finding::fail(
            format!("the HTTPS certificate for {domain} expired {until}: LINE refuses the webhook"),
            format!("keep `hearth serve` running to renew it: {place}"),
        );
    }
    if not_after - now < 10 * DAY {
        return Finding::warn(
            format!("the HTTPS certificate for {domain} ends {until} and was not renewed in time"),
            format!("keep `hearth serve` running to renew it: {place}"),
        );
    }
    Finding::pass(format!("HTTPS certificate for {domain} valid until {until}"))
}

/// Whether the whole service was sent more pairing codes than the alarm's `per_minute` in a
/// minute of the last day: someone may be guessing codes (each chat and person is still held
/// to its own budget, so a family's code was checked all the same).
pub fn pairing_guesses(over: GuessesOver, per_minute: u32) -> Finding {
    let Some(last) = over.last.filter(|_| over.minutes > 0) else {
        return Finding::pass(format!(
            "pairing codes: the service was sent at most {per_minute} a minute in the last day"
        ));
    };
    let at = jiff::Timestamp::from_second(last.saturating_mul(60))
        .map(|t| t.strftime("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_default();
    Finding::warn(
        format!(
            "pairing codes: the service was sent more than {per_minute} a minute in {} minute(s) of the last day, last at {at}: someone may be guessing codes",
            over.minutes
        ),
        "each chat and person may try only HEARTH_PAIRING_GUESSES_PER_SOURCE codes a minute, so guessing one is hopeless and a family's right code is still checked; look for \"pairing codes than\" in the logs and `hearth chats` for strangers waiting, and `hearth revoke` them. A family whose code expired meanwhile runs `hearth pair` for a new one; raise HEARTH_PAIRING_GUESSES_PER_MIN if many families pair at once",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::doctor::Status;

    #[test]
    fn the_certificate_is_missing_expired_late_or_fine() {
        const DAY: i64 = 86_400_000;
        let now = 1_800_000_000_000;
        let none = certificate("h.example", None, now);
        assert_eq!(none.status, Status::Warn);
        assert!(none.fix.as_deref().unwrap_or("").contains("port 443"), "{none:?}");
        assert_eq!(certificate("h.example", Some(now - 1), now).status, Status::Fail);
        assert_eq!(certificate("h.example", Some(now + 9 * DAY), now).status, Status::Warn);
        let fine = certificate("h.example", Some(now + 60 * DAY), now);
        assert_eq!(fine.status, Status::Pass);
        assert!(fine.message.contains("valid until 2027-03-16"), "{fine:?}");
    }

    fn hook(endpoint: &str, active: bool) -> WebhookEndpoint {
        WebhookEndpoint { endpoint: endpoint.into(), active }
    }

    #[test]
    fn the_expected_webhook_is_the_flag_else_the_public_url_with_callback() {
        assert_eq!(
            expected_webhook(Some("https://a.example/cb"), Some("https://b.example")).as_deref(),
            Some("https://a.example/cb")
        );
        assert_eq!(
            expected_webhook(None, Some("https://b.example")).as_deref(),
            Some("https://b.example/callback")
        );
        assert_eq!(expected_webhook(Some(" "), None), None);
    }

    #[test]
    fn webhook_urls_match_without_case_default_port_or_trailing_slash() {
        assert!(same_url(
            "https://Hearth.Example.com/callback/",
            "https://hearth.example.com:443/callback"
        ));
        assert!(!same_url(
            "https://hearth.example.com/callback",
            "http://hearth.example.com/callback"
        ));
        assert!(!same_url(
            "https://hearth.example.com/callback",
            "https://hearth.example.com/hook"
        ));
        assert!(!same_url("https://a.example/callback", "https://b.example/callback"));
    }

    #[test]
    fn a_missing_different_or_inactive_webhook_fails_with_the_url_to_set() {
        let expected = Some("https://h.example/callback");
        let none = webhook(expected, &hook("", false));
        assert_eq!(none.status, Status::Fail);
        assert!(none.fix.as_deref().unwrap_or_default().contains("https://h.example/callback"));
        let other = webhook(expected, &hook("https://old.example/callback", true));
        assert_eq!(other.status, Status::Fail);
        assert!(other.message.contains("https://old.example/callback"));
        let off = webhook(expected, &hook("https://h.example/callback", false));
        assert_eq!(off.status, Status::Fail);
        assert!(off.fix.as_deref().unwrap_or_default().contains("Use webhook"));
        assert_eq!(
            webhook(expected, &hook("https://h.example/callback/", true)).status,
            Status::Pass
        );
        assert_eq!(webhook(None, &hook("https://h.example/callback", true)).status, Status::Warn);
    }

    #[test]
    fn a_failed_webhook_test_names_the_secret_for_a_refused_signature() {
        let test = |success, status_code| WebhookTest {
            success,
            status_code,
            reason: "x".into(),
            detail: "y".into(),
        };
        assert_eq!(webhook_test("https://h/cb", &test(true, 200)).status, Status::Pass);
        let refused = webhook_test("https://h/cb", &test(false, 401));
        assert!(refused.fix.as_deref().unwrap_or_default().contains("LINE_CHANNEL_SECRET"));
        let silent = webhook_test("https://h/cb", &test(false, 0));
        assert!(silent.message.contains("no answer"), "{}", silent.message);
    }

    #[test]
    fn the_quota_warns_from_eighty_percent_and_fails_when_used_up() {
        let q = |limit, used| quota(Quota { limit, used });
        assert_eq!(q(Some(200), 159).status, Status::Pass);
        assert_eq!(q(Some(200), 160).status, Status::Warn);
        assert_eq!(q(Some(200), 200).status, Status::Fail);
        assert_eq!(q(None, 90_000).status, Status::Pass);
        assert_eq!(q(Some(0), 0).status, Status::Fail, "a zero quota sends nothing");
    }

    #[test]
    fn pending_or_unknown_migrations_fail() {
        let m = |applied: &[i64], known: &[i64]| Migrations {
            applied: applied.to_vec(),
            known: known.to_vec(),
        };
        assert_eq!(migrations("sqlite", &m(&[1, 2], &[1, 2])).status, Status::Pass);
        let pending = migrations("sqlite", &m(&[1], &[1, 2, 3]));
        assert_eq!(pending.status, Status::Fail);
        assert!(pending.message.contains("2 of 3"), "{}", pending.message);
        assert!(pending.fix.as_deref().unwrap_or_default().contains("hearth migrate"));
        let newer = migrations("postgres", &m(&[1, 2, 9], &[1, 2]));
        assert!(newer.message.contains("migration 9"), "{}", newer.message);
    }

    #[test]
    fn a_pairing_budget_reached_in_the_last_day_warns_with_when_and_the_fix() {
        let calm = pairing_guesses(GuessesOver::default(), 30);
        assert_eq!(calm.status, Status::Pass);
        assert!(calm.message.contains("30 a minute"), "{}", calm.message);
        // 2026-11-30 12:05 UTC, in minutes since the epoch.
        let last = 1_796_040_300 / 60;
        let hit = pairing_guesses(GuessesOver { minutes: 3, last: Some(last) }, 30);
        assert_eq!(hit.status, Status::Warn);
        assert!(hit.message.contains("3 minute(s)"), "{}", hit.message);
        assert!(hit.message.contains("2026-11-30 12:05 UTC"), "{}", hit.message);
        let fix = hit.fix.as_deref().unwrap_or_default();
        assert!(fix.contains("HEARTH_PAIRING_GUESSES_PER_SOURCE") && fix.contains("hearth pair"));
    }
}
