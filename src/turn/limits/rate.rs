//! Turn rate limits per chat and per person (keyed GCRA limiters from `governor`), and the
//! notice limiter that tells a chat it is over the limit at most once per minute. The limiters
//! read hearth's injected clock, so tests move time by hand. They live in memory: each process
//! counts on its own.

use std::num::NonZeroU32;
use std::sync::Arc;

use governor::clock::Clock as GovernorClock;
use governor::middleware::NoOpMiddleware;
use governor::nanos::Nanos;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

use crate::platform::clock::Clock;

/// Keys kept before stale ones are dropped (bounds memory when many chats pass by).
const RETAIN_ABOVE: usize = 10_000;

/// hearth's clock as a `governor` clock: nanoseconds since the Unix epoch.
#[derive(Clone)]
struct HearthClock(Arc<dyn Clock>);

impl GovernorClock for HearthClock {
    type Instant = Nanos;

    fn now(&self) -> Nanos {
        let nanos = self.0.now().as_nanosecond();
        Nanos::from(u64::try_from(nanos).unwrap_or(0))
    }
}

type Keyed =
    RateLimiter<String, DefaultKeyedStateStore<String>, HearthClock, NoOpMiddleware<Nanos>>;

/// What the rate limits say about a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateVerdict {
    /// Within the limits.
    Go,
    /// Over a limit, and the chat has not been told this minute: send the notice.
    Notify,
    /// Over a limit, and the chat was already told: say nothing.
    Quiet,
}

/// The per-chat and per-person turn limiters.
pub struct TurnRate {
    per_chat: Option<Keyed>,
    per_user: Option<Keyed>,
    notices: Keyed,
}

impl TurnRate {
    /// Limiters allowing `per_chat` and `per_user` turns per minute (0: no limit).
    pub fn new(per_chat: u32, per_user: u32, clock: Arc<dyn Clock>) -> Self {
        let clock = HearthClock(clock);
        let keyed = |per_minute: u32| {
            NonZeroU32::new(per_minute)
                .map(|n| RateLimiter::new(Quota::per_minute(n), Default::default(), clock.clone()))
        };
        Self {
            per_chat: keyed(per_chat),
            per_user: keyed(per_user),
            notices: RateLimiter::new(
                Quota::per_minute(NonZeroU32::MIN),
                Default::default(),
                clock.clone(),
            ),
        }
    }

    /// Counts a turn in `chat` by `user` (when known) and says whether it may go ahead.
    pub fn check(&self, chat: &str, user: Option<&str>) -> RateVerdict {
        let over_user = match (&self.per_user, user) {
            (Some(limiter), Some(user)) => !allow(limiter, user),
            _ => false,
        };
        let over_chat = !over_user && self.per_chat.as_ref().is_some_and(|l| !allow(l, chat));
        if !(over_user || over_chat) {
            RateVerdict::Go
        } else if allow(&self.notices, chat) {
            RateVerdict::Notify
        } else {
            RateVerdict::Quiet
        }
    }
}

fn allow(limiter: &Keyed, key: &str) -> bool {
    let allowed = limiter.check_key(&key.to_string()).is_ok();
    if limiter.len() > RETAIN_ABOVE {
        limiter.retain_recent();
    }
    allowed
}

#[cfg(test)]
mod tests {
    use jiff::{SignedDuration, Timestamp};

    use super::*;
    use crate::platform::clock::ManualClock;

    fn clock() -> Arc<ManualClock> {
        Arc::new(ManualClock::new(Timestamp::from_second(1_764_504_000).expect("instant")))
    }

    #[test]
    fn a_person_over_the_limit_is_told_once_then_quiet() {
        let clock = clock();
        let rate = TurnRate::new(0, 3, clock.clone());
        let verdicts: Vec<_> = (0..6).map(|_| rate.check("Umom", Some("Umom"))).collect();
        use RateVerdict::*;
        assert_eq!(verdicts, [Go, Go, Go, Notify, Quiet, Quiet]);
    }

    #[test]
    fn the_limit_and_the_notice_come_back_after_the_window() {
        let clock = clock();
        let rate = TurnRate::new(0, 2, clock.clone());
        for _ in 0..4 {
            rate.check("Umom", Some("Umom"));
        }
        clock.advance(SignedDuration::from_secs(30));
        assert_eq!(rate.check("Umom", Some("Umom")), RateVerdict::Go, "one turn per 30 s back");
        assert_eq!(rate.check("Umom", Some("Umom")), RateVerdict::Quiet, "told 30 s ago");
        clock.advance(SignedDuration::from_secs(60));
        assert_eq!(rate.check("Umom", Some("Umom")), RateVerdict::Go);
        assert_eq!(rate.check("Umom", Some("Umom")), RateVerdict::Go);
        assert_eq!(rate.check("Umom", Some("Umom")), RateVerdict::Notify, "a new minute");
    }

    #[test]
    fn the_chat_limit_counts_everyone_in_it() {
        let rate = TurnRate::new(2, 10, clock());
        assert_eq!(rate.check("Cfamily", Some("Umom")), RateVerdict::Go);
        assert_eq!(rate.check("Cfamily", Some("Udad")), RateVerdict::Go);
        assert_eq!(rate.check("Cfamily", Some("Ukid")), RateVerdict::Notify);
        assert_eq!(rate.check("Cother", Some("Ukid")), RateVerdict::Go, "other chats unaffected");
    }

    #[test]
    fn the_person_limit_follows_them_across_chats() {
        let rate = TurnRate::new(10, 2, clock());
        assert_eq!(rate.check("Cfamily", Some("Umom")), RateVerdict::Go);
        assert_eq!(rate.check("Cwork", Some("Umom")), RateVerdict::Go);
        assert_eq!(rate.check("Cwork", Some("Umom")), RateVerdict::Notify);
        assert_eq!(rate.check("Cwork", None), RateVerdict::Go, "an unknown speaker: the chat's");
    }

    #[test]
    fn zero_means_no_limit() {
        let rate = TurnRate::new(0, 0, clock());
        assert!((0..1000).all(|_| rate.check("Umom", Some("Umom")) == RateVerdict::Go));
    }
}
