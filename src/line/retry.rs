//! When to send again after LINE said 429 (rate limited) or did not answer: the client's two
//! [`Backoff`]s, and pure decisions over the `Retry-After` header, so the waits are tested
//! without a clock.

use std::time::Duration;

use crate::platform::retry::Backoff;

/// The wait before a reply's retry when LINE gave no `Retry-After`.
pub const REPLY_RETRY_DEFAULT_WAIT: Duration = Duration::from_secs(1);
/// A rate-limited reply is sent at most three times (its waits: [`reply_retry_wait`]).
pub const REPLY_RETRIES: Backoff = Backoff::doubling(3, REPLY_RETRY_DEFAULT_WAIT);
/// A push that failed with an unknown outcome or was rate limited is sent four times at most,
/// with the same retry key, waiting 0.5 s, 1 s, 2 s, or as long as `Retry-After` asks (≤ 30 s).
pub const PUSH_RETRIES: Backoff = Backoff::doubling(4, Duration::from_millis(500));

/// The `Retry-After` of a response in its seconds form (the HTTP-date form is ignored).
pub fn parse_retry_after(value: Option<&str>) -> Option<Duration> {
    value?.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// How long a rate-limited reply waits before it is sent again with the same token, which is
/// still good for `token_left`; `None`: LINE asked for longer than the token lives, so the
/// answer goes by push instead (a 429 delivered nothing, so nothing is sent twice).
pub fn reply_retry_wait(retry_after: Option<Duration>, token_left: Duration) -> Option<Duration> {
    let wait = retry_after.unwrap_or(REPLY_RETRY_DEFAULT_WAIT);
    (wait < token_left).then_some(wait)
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
    fn a_rate_limited_reply_waits_while_its_token_lives_or_goes_by_push() {
        let left = Duration::from_secs(40);
        let secs = Duration::from_secs;
        assert_eq!(reply_retry_wait(None, left), Some(secs(1)));
        assert_eq!(reply_retry_wait(Some(secs(3)), left), Some(secs(3)));
        assert_eq!(
            reply_retry_wait(Some(secs(6)), left),
            Some(secs(6)),
            "any wait the token outlives"
        );
        assert_eq!(reply_retry_wait(Some(Duration::ZERO), left), Some(Duration::ZERO));
        assert_eq!(reply_retry_wait(Some(secs(45)), left), None, "longer than the token lives");
        assert_eq!(reply_retry_wait(None, Duration::from_millis(500)), None);
    }
}
