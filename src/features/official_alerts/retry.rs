//! Which alert documents are fetched, in what order, and what becomes of one that fails — as
//! pure functions. Urgent kinds (a suspension, an earthquake) come first, then the newest: an
//! old entry whose document fails never holds back a new suspension. Each failing document has
//! its own backoff (30 s, doubling, at most 10 minutes between tries) and a budget: after
//! [`GIVE_UP_AFTER`] of failures it is given up (kept as unreadable and counted), so a document
//! that never answers costs a few requests an hour, then none.
//!
//! The backoff is kept in the memory of the process reading the feed: it only paces retries. A
//! process that takes the feed over starts each failing document afresh, which costs one more
//! request each; what is given up is kept in the store, and never fetched again by any process.

use jiff::{SignedDuration, Timestamp};

use crate::sources::cap::FeedEntry;

/// The first wait after a failure.
const FIRST_WAIT: SignedDuration = SignedDuration::from_secs(30);
/// The longest wait between two tries.
const LONGEST_WAIT: SignedDuration = SignedDuration::from_mins(10);
/// A document failing for this long is given up.
pub const GIVE_UP_AFTER: SignedDuration = SignedDuration::from_hours(1);

/// The feed titles of the kinds that cannot wait.
const URGENT: &[&str] = &["停班停課", "地震"];

/// A document that failed, as long as it is tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Failing {
    /// When it first failed.
    pub first: Timestamp,
    /// How many times it failed.
    pub failures: u32,
    /// Not asked again before this.
    pub next: Timestamp,
}

/// What happens to a document after a failure that may pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterFailure {
    /// Asked again later.
    Retry(Failing),
    /// Failing for too long: given up.
    GiveUp,
}

/// After a failure at `now` of a document that was `before` (none: its first failure).
pub fn after_failure(before: Option<Failing>, now: Timestamp) -> AfterFailure {
    let first = before.map_or(now, |b| b.first);
    let failures = before.map_or(1, |b| b.failures.saturating_add(1));
    if now.duration_since(first) >= GIVE_UP_AFTER {
        return AfterFailure::GiveUp;
    }
    let doubled = 1i64 << failures.saturating_sub(1).min(16);
    let wait = FIRST_WAIT.checked_mul(doubled as i32).unwrap_or(LONGEST_WAIT).min(LONGEST_WAIT);
    AfterFailure::Retry(Failing { first, failures, next: now.saturating_add(wait).unwrap_or(now) })
}

/// True when a document may be asked for at `now`.
pub fn may_ask(failing: Option<&Failing>, now: Timestamp) -> bool {
    failing.is_none_or(|f| f.next <= now)
}

/// `entries` in the order they are fetched: urgent kinds first, then the newest (an entry
/// without a time counts as newest).
pub fn order<'a>(entries: impl IntoIterator<Item = &'a FeedEntry>) -> Vec<&'a FeedEntry> {
    let mut ordered: Vec<&FeedEntry> = entries.into_iter().collect();
    ordered.sort_by_key(|e| {
        (std::cmp::Reverse(urgent(e)), std::cmp::Reverse(e.updated.unwrap_or(Timestamp::MAX)))
    });
    ordered
}

/// Whether the feed says `entry` is of a kind that cannot wait (a suspension, an earthquake).
pub fn urgent(entry: &FeedEntry) -> bool {
    entry.title.as_deref().is_some_and(|t| URGENT.contains(&t))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        s.parse().expect("instant")
    }

    fn entry(id: &str, title: &str, updated: &str) -> FeedEntry {
        FeedEntry {
            id: id.into(),
            link: format!("/Capstorage/{id}"),
            title: Some(title.into()),
            updated: Some(at(updated)),
        }
    }

    #[test]
    fn urgent_kinds_come_first_then_the_newest() {
        let entries = [
            entry("rain-new", "降雨", "2026-11-30T12:30:00Z"),
            entry("dgpa-old", "停班停課", "2026-11-30T10:00:00Z"),
            entry("typhoon", "颱風", "2026-11-30T12:00:00Z"),
            entry("dgpa-new", "停班停課", "2026-11-30T12:10:00Z"),
            entry("quake", "地震", "2026-11-30T11:00:00Z"),
        ];
        let ids: Vec<&str> = order(&entries).iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["dgpa-new", "quake", "dgpa-old", "rain-new", "typhoon"]);
    }

    #[test]
    fn a_failing_document_waits_longer_each_time_and_is_given_up_after_an_hour() {
        let start = at("2026-11-30T12:00:00Z");
        let AfterFailure::Retry(first) = after_failure(None, start) else { panic!("retried") };
        assert_eq!(first.next, at("2026-11-30T12:00:30Z"));
        assert!(!may_ask(Some(&first), at("2026-11-30T12:00:25Z")), "not again within 25 s");
        assert!(may_ask(Some(&first), first.next));
        assert!(may_ask(None, start));
        let mut failing = first;
        let mut asked = 1;
        let mut now = first.next;
        let waits: Vec<i64> = std::iter::from_fn(|| match after_failure(Some(failing), now) {
            AfterFailure::Retry(f) => {
                let wait = f.next.duration_since(now).as_secs();
                (failing, now, asked) = (f, f.next, asked + 1);
                Some(wait)
            }
            AfterFailure::GiveUp => None,
        })
        .collect();
        assert_eq!(&waits[..6], [60, 120, 240, 480, 600, 600]);
        assert!(asked <= 12, "{asked} tries in an hour");
        assert!(now.duration_since(start) >= GIVE_UP_AFTER);
    }
}
