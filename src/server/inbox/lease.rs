//! The rules of holding inbox events, as pure functions of times: how often a live process
//! renews its leases, when it may start an event without asking the store whether the event is
//! still its own, and which events are too old (or stamped too far ahead) to accept at all.

use std::time::Duration;

use jiff::SignedDuration;

/// Handled events' ids are kept this long: a redelivery (or a replay) within it is recognised.
pub const DEDUPE_WINDOW: SignedDuration = SignedDuration::from_hours(24);

/// Events older than this are refused: past it, their id may already be forgotten, so a
/// captured body replayed later would be handled again. An hour short of the window, for clock
/// differences between LINE and us.
pub const MAX_EVENT_AGE: SignedDuration = SignedDuration::from_hours(23);

/// The most future skew [`timeliness`] allows, whatever `HEARTH_EVENT_MAX_SKEW_SECS` says: an
/// event accepted as stamped ahead by less than this is already too old by the time its id is
/// forgotten (`MAX_EVENT_AGE + MAX_SKEW_LIMIT < DEDUPE_WINDOW`), so its body cannot be replayed.
pub const MAX_SKEW_LIMIT: SignedDuration = SignedDuration::from_mins(30);

/// Whether an event's own time stamp lets it in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timeliness {
    /// Within [`MAX_EVENT_AGE`] behind and the allowed skew ahead: accepted.
    OnTime,
    /// Older than [`MAX_EVENT_AGE`]: refused (a replay?).
    TooOld,
    /// Stamped further in the future than the allowed skew: refused (a forged or mis-stamped
    /// body would otherwise stay "fresh" after its id is forgotten).
    Ahead,
}

impl Timeliness {
    /// The `outcome` label of `hearth_webhook_events_total` for a refused event.
    pub fn outcome(self) -> &'static str {
        match self {
            Self::OnTime => "accepted",
            Self::TooOld => "too_old",
            Self::Ahead => "ahead",
        }
    }
}

/// Whether an event stamped `event_ms` is accepted at `now_ms`, allowing its stamp to run
/// `max_skew` ahead of our clock (capped at [`MAX_SKEW_LIMIT`]).
pub fn timeliness(event_ms: i64, now_ms: i64, max_skew: SignedDuration) -> Timeliness {
    let skew = max_skew.clamp(SignedDuration::ZERO, MAX_SKEW_LIMIT).as_millis() as i64;
    if now_ms.saturating_sub(event_ms) > MAX_EVENT_AGE.as_millis() as i64 {
        Timeliness::TooOld
    } else if event_ms.saturating_sub(now_ms) > skew {
        Timeliness::Ahead
    } else {
        Timeliness::OnTime
    }
}

/// How often a live process renews the leases of what it holds: three times per lease, so two
/// missed renewals in a row still leave it holding.
pub fn renew_every(lease: SignedDuration) -> Duration {
    let third = lease.as_millis().max(0) as u64 / 3;
    Duration::from_millis(third.max(100))
}

/// True when a lease that ends at `until_ms` is sure to outlast the start of handling at
/// `now_ms`; otherwise the claim is confirmed in the store first (the process may have stalled
/// past its lease, and another taken the event over).
pub fn held_without_asking(until_ms: i64, now_ms: i64, lease: SignedDuration) -> bool {
    let margin = renew_every(lease).as_millis() as i64;
    until_ms.saturating_sub(now_ms) > margin
}

/// The lease end a job taken from the store starts with, for an event whose claim is the
/// `attempts`-th and whose lease now runs to `until_ms`. A first claim starts without asking. An
/// event claimed before (its lease lapsed, perhaps while this very process held it) is confirmed
/// in the store first (`0` makes [`held_without_asking`] false): if this process's earlier job
/// adopted the new claim and finished the event meanwhile, the store says so, and the event is
/// not handled twice.
pub fn taken_lease_end(attempts: i64, until_ms: i64) -> i64 {
    if attempts > 1 { 0 } else { until_ms }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEASE: SignedDuration = SignedDuration::from_secs(15);

    const SKEW: SignedDuration = SignedDuration::from_mins(5);

    #[test]
    fn events_older_than_the_dedupe_window_allows_are_too_old() {
        let now = 100 * 3_600_000;
        assert_eq!(timeliness(now, now, SKEW), Timeliness::OnTime);
        assert_eq!(timeliness(now - 22 * 3_600_000, now, SKEW), Timeliness::OnTime);
        assert_eq!(timeliness(now - 23 * 3_600_000 - 1, now, SKEW), Timeliness::TooOld);
        assert_eq!(timeliness(i64::MIN, now, SKEW), Timeliness::TooOld, "no overflow");
        const { assert!(MAX_EVENT_AGE.as_secs() < DEDUPE_WINDOW.as_secs()) };
    }

    #[test]
    fn events_stamped_further_ahead_than_the_allowed_skew_are_refused() {
        let now = 100 * 3_600_000;
        assert_eq!(timeliness(now + 60_000, now, SKEW), Timeliness::OnTime, "clock skew");
        assert_eq!(timeliness(now + 300_000, now, SKEW), Timeliness::OnTime, "exactly the skew");
        assert_eq!(timeliness(now + 300_001, now, SKEW), Timeliness::Ahead);
        assert_eq!(timeliness(now + 48 * 3_600_000, now, SKEW), Timeliness::Ahead);
        let ten_years = 10 * 365 * 24 * 3_600_000;
        assert_eq!(timeliness(now + ten_years, now, SKEW), Timeliness::Ahead);
        assert_eq!(timeliness(i64::MAX, now, SKEW), Timeliness::Ahead, "no overflow");
        let none = SignedDuration::ZERO;
        assert_eq!(timeliness(now + 1, now, none), Timeliness::Ahead, "no skew allowed");
        assert_eq!(timeliness(now + 1, now, -SKEW), Timeliness::Ahead, "a negative skew is none");
    }

    #[test]
    fn a_large_skew_setting_is_capped_so_a_body_stamped_ahead_cannot_outlive_its_id() {
        let now = 100 * 3_600_000;
        let huge = SignedDuration::from_hours(48);
        let ahead = now + 2 * 3_600_000;
        assert_eq!(timeliness(ahead, now, huge), Timeliness::Ahead);
        let at_limit = now + MAX_SKEW_LIMIT.as_millis() as i64;
        assert_eq!(timeliness(at_limit, now, huge), Timeliness::OnTime);
        // Accepted at the limit, then replayed once its id is forgotten: too old by then.
        let forgotten = now + DEDUPE_WINDOW.as_millis() as i64;
        assert_eq!(timeliness(at_limit, forgotten, huge), Timeliness::TooOld);
        const { assert!(MAX_EVENT_AGE.as_secs() + MAX_SKEW_LIMIT.as_secs() < DEDUPE_WINDOW.as_secs()) };
    }

    #[test]
    fn leases_are_renewed_three_times_per_lease() {
        assert_eq!(renew_every(LEASE), Duration::from_secs(5));
        assert_eq!(renew_every(SignedDuration::from_secs(0)), Duration::from_millis(100));
    }

    #[test]
    fn a_fresh_lease_is_used_without_asking_but_one_about_to_lapse_is_confirmed() {
        let now = 1_000_000;
        assert!(held_without_asking(now + 15_000, now, LEASE));
        assert!(held_without_asking(now + 5_001, now, LEASE));
        assert!(!held_without_asking(now + 5_000, now, LEASE));
        assert!(!held_without_asking(now - 1, now, LEASE), "lapsed");
        assert!(!held_without_asking(0, now, LEASE), "lost to another process");
    }

    #[test]
    fn an_event_claimed_before_is_confirmed_in_the_store_before_it_starts() {
        let now = 1_000_000;
        let until = now + 15_000;
        assert!(held_without_asking(taken_lease_end(1, until), now, LEASE), "a first claim");
        for attempts in [2, 3, 5] {
            assert!(!held_without_asking(taken_lease_end(attempts, until), now, LEASE));
        }
    }
}
