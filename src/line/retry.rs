//! When to send again after LINE said 429 (rate limited): pure decisions over the
//! `Retry-After` header, so the client's waits are tested without a clock.

use std::time::Duration;

/// A reply waits at most this long before its one retry: LINE's reply token lives a minute and
/// is used only in its first 50 seconds, so a short wait keeps it valid.
pub const REPLY_RETRY_MAX_WAIT: Duration = Duration::from_secs(5);
/// The wait before a reply's retry when LINE gave no `Retry-After`.
pub const REPLY_RETRY_DEFAULT_WAIT: Duration = Duration::from_secs(1);
/// A push never waits longer than this for one `Retry-After`, whatever LINE asks.
pub const PUSH_RETRY_MAX_WAIT: Duration = Duration::from_secs(30);

/// The `Retry-After` of a response in its seconds form (the HTTP-date form is ignored).
pub fn parse_retry_after(value: Option<&str>) -> Option<Duration> {
    value?.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// How long a rate-limited reply waits before its single retry; `None`: LINE asked for longer
/// than the reply token can wait, so it is not retried.
pub fn reply_retry_wait(retry_after: Option<Duration>) -> Option<Duration> {
    match retry_after {
        None => Some(REPLY_RETRY_DEFAULT_WAIT),
        Some(wait) if wait <= REPLY_RETRY_MAX_WAIT => Some(wait),
        Some(_) => None,
    }
}

/// How long a push waits before its next attempt: its own backoff, or LINE's `Retry-After`
/// when that is longer (bounded by [`PUSH_RETRY_MAX_WAIT`]).
pub fn push_retry_wait(backoff: Duration, retry_after: Option<Duration>) -> Duration {
    retry_after.map_or(backoff, |wait| wait.min(PUSH_RETRY_MAX_WAIT).max(backoff))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_read_in_seconds_only() {
        assert_eq!(parse_retry_after(Some(" 2 ")), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after(Some("Wed, 21 Oct 2026 07:28:00 GMT")), None);
        assert_eq!(parse_retry_after(Some("-1")), None);
        assert_eq!(parse_retry_after(None), None);
    }

    #[test]
    fn a_rate_limited_reply_retries_once_soon_or_not_at_all() {
        assert_eq!(reply_retry_wait(None), Some(Duration::from_secs(1)));
        assert_eq!(reply_retry_wait(Some(Duration::from_secs(3))), Some(Duration::from_secs(3)));
        assert_eq!(reply_retry_wait(Some(Duration::ZERO)), Some(Duration::ZERO));
        assert_eq!(reply_retry_wait(Some(Duration::from_secs(30))), None);
    }

    #[test]
    fn a_rate_limited_push_waits_for_retry_after_within_bounds() {
        let backoff = Duration::from_millis(500);
        assert_eq!(push_retry_wait(backoff, None), backoff);
        assert_eq!(push_retry_wait(backoff, Some(Duration::from_secs(2))), Duration::from_secs(2));
        assert_eq!(push_retry_wait(backoff, Some(Duration::ZERO)), backoff);
        assert_eq!(push_retry_wait(backoff, Some(Duration::from_secs(3600))), PUSH_RETRY_MAX_WAIT);
    }
}
