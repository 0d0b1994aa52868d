//! Trying work again: one [`Backoff`] for every loop that retries — a push to LINE, the inbox's
//! done mark, the chatter's write. The wait before attempt *n + 1* doubles from the first, and
//! is longer when the other side asked for longer (`Retry-After`), within a bound; the caller
//! says, per error, whether to try again at all ([`Again`]).

use std::fmt::Display;
use std::time::Duration;

/// Whether a failed attempt is tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Again {
    /// No: the error is the answer.
    No,
    /// Yes, after the backoff, or after `asked` (the other side's `Retry-After`) when that is
    /// longer, up to [`Backoff::longest_asked`].
    Backoff {
        /// What the other side asked for, if it did.
        asked: Option<Duration>,
    },
    /// Yes, after exactly this wait (a reply token decides how long it can wait).
    After(Duration),
}

/// How often and how patiently a piece of work is tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// Attempts in all, the first included (at least one).
    pub attempts: u32,
    /// The wait after the first failure; it doubles after each further one.
    pub first: Duration,
    /// The longest wait a `Retry-After` can ask for.
    pub longest_asked: Duration,
}

impl Backoff {
    /// `attempts` in all, waiting `first`, then twice as long each time; a `Retry-After` is
    /// honoured up to 30 seconds.
    pub const fn doubling(attempts: u32, first: Duration) -> Self {
        Self { attempts, first, longest_asked: Duration::from_secs(30) }
    }

    /// The wait after failed attempt `attempt` (1-based), given what the other side `asked`.
    pub fn wait(&self, attempt: u32, asked: Option<Duration>) -> Duration {
        let doublings = attempt.saturating_sub(1).min(16);
        let backoff = self.first.saturating_mul(1 << doublings);
        asked.map_or(backoff, |asked| asked.min(self.longest_asked).max(backoff))
    }

    /// The attempts of one piece of work, counted from the first.
    pub fn tries(&self) -> Tries {
        Tries { policy: *self, attempt: 1 }
    }
}

/// The attempts of one piece of work under a [`Backoff`]: after each failure, [`Tries::again`]
/// says whether to try again, having waited as long as it should.
///
/// ```ignore
/// let mut tries = PUSH_RETRIES.tries();
/// loop {
///     match push().await {
///         Err(e) if tries.again("push failed", &e, classify(&e)).await => continue,
///         done => return done,
///     }
/// }
/// ```
#[derive(Debug)]
pub struct Tries {
    policy: Backoff,
    attempt: u32,
}

impl Tries {
    /// After attempt *n* failed with `error`: false when `again` says the error is final or the
    /// attempts are spent; otherwise logs that `what` failed, waits, and returns true.
    pub async fn again(&mut self, what: &str, error: &(dyn Display + Sync), again: Again) -> bool {
        let Some(wait) = self.wait(again) else { return false };
        let attempt = self.attempt;
        let wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX);
        tracing::warn!(error = %error, attempt, wait_ms, "{what}; trying again");
        tokio::time::sleep(wait).await;
        self.attempt += 1;
        true
    }

    /// The wait before the next attempt, if there is one.
    fn wait(&self, again: Again) -> Option<Duration> {
        if self.attempt >= self.policy.attempts {
            return None;
        }
        match again {
            Again::No => None,
            Again::Backoff { asked } => Some(self.policy.wait(self.attempt, asked)),
            Again::After(wait) => Some(wait),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: Backoff = Backoff::doubling(4, Duration::from_millis(500));

    #[test]
    fn the_wait_doubles_and_a_longer_retry_after_is_honoured_within_bounds() {
        let ms = Duration::from_millis;
        assert_eq!([1, 2, 3].map(|n| POLICY.wait(n, None)), [ms(500), ms(1000), ms(2000)]);
        assert_eq!(POLICY.wait(1, Some(Duration::from_secs(2))), Duration::from_secs(2));
        assert_eq!(POLICY.wait(2, Some(Duration::ZERO)), ms(1000), "never shorter than backoff");
        assert_eq!(POLICY.wait(1, Some(Duration::from_secs(3600))), Duration::from_secs(30));
        assert_eq!(POLICY.wait(u32::MAX, None), ms(500) * (1 << 16), "no overflow");
    }

    #[test]
    fn work_is_tried_again_until_its_attempts_are_spent_or_the_error_is_final() {
        let backoff = Again::Backoff { asked: None };
        let mut tries = POLICY.tries();
        let waits: Vec<Option<Duration>> = (0..4)
            .map(|_| {
                let wait = tries.wait(backoff);
                tries.attempt += 1;
                wait
            })
            .collect();
        let ms = Duration::from_millis;
        assert_eq!(waits, [Some(ms(500)), Some(ms(1000)), Some(ms(2000)), None]);
        assert_eq!(POLICY.tries().wait(Again::No), None, "a final error is not tried again");
        let exact = Again::After(Duration::ZERO);
        assert_eq!(POLICY.tries().wait(exact), Some(Duration::ZERO), "a wait decided elsewhere");
    }

    #[tokio::test]
    async fn again_waits_and_counts_the_attempt() {
        let policy = Backoff::doubling(2, Duration::from_millis(1));
        let mut tries = policy.tries();
        let started = std::time::Instant::now();
        assert!(tries.again("flaky", &"busy", Again::Backoff { asked: None }).await);
        assert!(started.elapsed() >= Duration::from_millis(1));
        assert!(!tries.again("flaky", &"busy", Again::Backoff { asked: None }).await, "spent");
    }
}
