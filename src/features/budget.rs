//! The daily token budgets: the decisions, as pure functions (is this turn, or spoken push,
//! within the day's token budget; which day a budget belongs to), and the tokens counted per
//! chat and day ([`Spent`]), read and pruned here, never by the turn itself.

use jiff::Timestamp;
use jiff::tz::TimeZone;

use crate::features::deps::Deps;
use crate::store::{ChatUsage, Store, StoreError, TokensUsed};

/// The tokens counted per chat and day, over the store.
#[derive(Clone)]
pub struct Spent {
    store: Store,
}

impl Spent {
    /// Over `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// Over `deps`' store.
    pub fn from_deps(deps: &Deps) -> Self {
        Self::new(deps.store.clone())
    }

    /// Each chat's tokens (and the service's) in `month` (`YYYY-MM`), for `hearth usage`.
    pub async fn month(&self, month: &str) -> Result<Vec<ChatUsage>, StoreError> {
        self.store.usage().month_usage(month).await
    }

    /// The tokens `chat` and the whole service used on `day` (as [`budget_day`] names it).
    pub async fn on(&self, day: &str, chat: &str) -> Result<TokensUsed, StoreError> {
        self.store.usage().tokens_used(day, chat).await
    }

    /// Counts `tokens` against `chat` (and the service) on `day`.
    pub async fn add(&self, day: &str, chat: &str, tokens: u64) -> Result<(), StoreError> {
        self.store.usage().add_tokens(day, chat, tokens).await
    }

    /// Forgets the counts of days before `day`.
    pub async fn forget_before(&self, day: &str) -> Result<u64, StoreError> {
        self.store.usage().prune_tokens(day).await
    }
}

/// Daily token limits; 0 means none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenBudget {
    /// Per chat.
    pub per_chat: u64,
    /// For the whole service.
    pub total: u64,
}

/// Whose budget ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exhausted {
    /// The chat's own.
    Chat,
    /// The whole service's.
    Service,
}

impl TokenBudget {
    /// Whether a new turn may start given the tokens already used today by the chat and by the
    /// service. A turn is allowed while the count is below the limit; the turn that crosses it
    /// is finished, and the next one is refused.
    pub fn check(self, chat_used: u64, service_used: u64) -> Result<(), Exhausted> {
        let reached = |limit: u64, used: u64| limit > 0 && used >= limit;
        if reached(self.total, service_used) {
            Err(Exhausted::Service)
        } else if reached(self.per_chat, chat_used) {
            Err(Exhausted::Chat)
        } else {
            Ok(())
        }
    }
}

/// The day a budget count belongs to: the local date in the family's time zone (`YYYY-MM-DD`),
/// so budgets start afresh at local midnight.
pub fn budget_day(now: Timestamp, tz: &TimeZone) -> String {
    now.to_zoned_datetime(tz.clone()).strftime("%Y-%m-%d").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taipei() -> TimeZone {
        TimeZone::get("Asia/Taipei").expect("Asia/Taipei")
    }

    fn at(s: &str) -> Timestamp {
        s.parse().expect("timestamp")
    }

    #[test]
    fn a_turn_is_allowed_below_both_limits() {
        let budget = TokenBudget { per_chat: 1000, total: 5000 };
        assert_eq!(budget.check(999, 4999), Ok(()));
    }

    #[test]
    fn a_chat_at_its_limit_is_refused() {
        let budget = TokenBudget { per_chat: 1000, total: 5000 };
        assert_eq!(budget.check(1000, 1000), Err(Exhausted::Chat));
        assert_eq!(budget.check(1200, 1200), Err(Exhausted::Chat), "the crossing turn overshot");
    }

    #[test]
    fn the_service_limit_applies_to_every_chat() {
        let budget = TokenBudget { per_chat: 1000, total: 5000 };
        assert_eq!(budget.check(0, 5000), Err(Exhausted::Service));
        assert_eq!(budget.check(1000, 6000), Err(Exhausted::Service), "the service is named first");
    }

    #[test]
    fn zero_means_no_limit() {
        assert_eq!(TokenBudget::default().check(u64::MAX, u64::MAX), Ok(()));
        assert_eq!(TokenBudget { per_chat: 0, total: 10 }.check(u64::MAX, 9), Ok(()));
    }

    #[test]
    fn the_budget_day_is_the_local_date() {
        // 23:59 and 00:00 in Taipei (UTC+8).
        assert_eq!(budget_day(at("2026-11-30T15:59:59Z"), &taipei()), "2026-11-30");
        assert_eq!(budget_day(at("2026-11-30T16:00:00Z"), &taipei()), "2026-12-01");
        assert_eq!(budget_day(at("2026-11-30T16:00:00Z"), &TimeZone::UTC), "2026-11-30");
    }

    #[test]
    fn the_budget_day_follows_daylight_saving_time() {
        let ny = TimeZone::get("America/New_York").expect("New York");
        // 00:30 local on the day clocks go back (EDT, UTC-4), and 23:30 local that day (EST, UTC-5).
        assert_eq!(budget_day(at("2026-11-01T04:30:00Z"), &ny), "2026-11-01");
        assert_eq!(budget_day(at("2026-11-02T04:30:00Z"), &ny), "2026-11-01");
        assert_eq!(budget_day(at("2026-11-02T05:00:00Z"), &ny), "2026-11-02");
    }
}
