//! The rules of holding inbox events, as pure functions of times: how often a live process
//! renews its leases, when it may start an event without asking the store whether the event is
//! still its own, and which events are too old to accept at all.

use std::time::Duration;

use jiff::SignedDuration;

/// Handled events' ids are kept this long: a redelivery (or a replay) within it is recognised.
pub const DEDUPE_WINDOW: SignedDuration = SignedDuration::from_hours(24);

/// Events older than this are refused: past it, their id may already be forgotten, so a
/// captured body replayed later would be handled again. An hour short of the window, for clock
/// differences between LINE and us.
pub const MAX_EVENT_AGE: SignedDuration = SignedDuration::from_hours(23);

/// True when an event that happened at `event_ms` is too old to accept at `now_ms`.
pub fn too_old(event_ms: i64, now_ms: i64) -> bool {
    now_ms.saturating_sub(event_ms) > MAX_EVENT_AGE.as_millis() as i64
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

    #[test]
    fn events_older_than_the_dedupe_window_allows_are_too_old() {
        let now = 100 * 3_600_000;
        assert!(!too_old(now, now));
        assert!(!too_old(now - 22 * 3_600_000, now));
        assert!(too_old(now - 23 * 3_600_000 - 1, now));
        assert!(too_old(i64::MIN, now), "no overflow");
        assert!(!too_old(now + 60_000, now), "a little in the future is clock skew");
        const { assert!(MAX_EVENT_AGE.as_secs() < DEDUPE_WINDOW.as_secs()) };
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
