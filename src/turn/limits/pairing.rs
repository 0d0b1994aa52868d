//! How many pairing codes may be tried. A code has 40 random bits, so guessing one needs very
//! many tries: each chat and person may try only as often as the turn rates allow
//! ([`super::rate`]), and the whole service only `HEARTH_PAIRING_GUESSES_PER_MIN` codes a minute,
//! counted in the store per minute window across every chat and replica, so a guesser spread
//! over many chats (or replicas) is bounded too. A code tried over either limit is not checked
//! at all — a right one approves nothing then — and the person is told to wait and send it again
//! ([`super::access::PAIRING_WAIT`]), so a family pairing during an attack is told, not ignored.
//! `hearth doctor` warns when the service-wide budget was reached lately.
//!
//! The decisions are pure functions of times and counts.

use jiff::SignedDuration;

/// The length of one counting window: a minute.
pub const WINDOW: SignedDuration = SignedDuration::from_mins(1);
/// How far back `hearth doctor` looks for a minute when the budget was reached.
pub const LATELY: SignedDuration = SignedDuration::from_hours(24);
/// How long the counts are kept (longer than [`LATELY`], so the doctor sees the whole day).
pub const KEPT: SignedDuration = SignedDuration::from_hours(48);

/// The window an instant (Unix ms) falls in: the minutes since the epoch.
pub fn window(at_ms: i64) -> i64 {
    at_ms.div_euclid(WINDOW.as_millis() as i64)
}

/// The first window `hearth doctor` looks at, for a check made at `now_ms`.
pub fn lately_from(now_ms: i64) -> i64 {
    window(now_ms.saturating_sub(LATELY.as_millis() as i64))
}

/// The first window kept, at `now_ms` (older ones are pruned).
pub fn kept_from(now_ms: i64) -> i64 {
    window(now_ms.saturating_sub(KEPT.as_millis() as i64))
}

/// The service-wide budget of pairing guesses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GuessBudget {
    /// Codes the whole service checks per minute (0: no limit).
    pub per_minute: u32,
}

impl GuessBudget {
    /// True when a code that is the `nth` counted in its minute (1 for the first) may be
    /// checked.
    pub fn allows(self, nth: i64) -> bool {
        self.per_minute == 0 || nth <= i64::from(self.per_minute)
    }

    /// True when the budget is on (not 0).
    pub fn is_on(self) -> bool {
        self.per_minute > 0
    }
}

/// What becomes of a pairing code sent in a chat waiting for approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guess {
    /// Checked against the codes kept.
    Check,
    /// Over the chat's or the person's turn rate: not checked; told to wait.
    OverRate,
    /// Over the service-wide budget this minute (or it could not be counted): not checked;
    /// told to wait.
    OverBudget,
}

impl Guess {
    /// What the service-wide count says about a code within the turn rates: the `nth` code of
    /// its minute, or `None` when the store could not count it (the code is then not checked:
    /// an unbounded guess is worse than a family asked to try again).
    pub fn counted(nth: Option<i64>, budget: GuessBudget) -> Self {
        match nth {
            Some(nth) if budget.allows(nth) => Guess::Check,
            _ => Guess::OverBudget,
        }
    }

    /// The `reason` label of `hearth_turns_refused_total` for a code not checked.
    pub fn reason(self) -> &'static str {
        match self {
            Guess::Check => "pairing_checked",
            Guess::OverRate => "pairing_over_rate",
            Guess::OverBudget => "pairing_over_budget",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_counted_per_minute_window() {
        let at = 1_764_504_000_000; // 2025-11-30T12:00:00Z, on a minute
        assert_eq!(window(at), window(at + 59_999));
        assert_eq!(window(at) + 1, window(at + 60_000));
        assert_eq!(window(-1), -1, "before the epoch rounds down, never into minute 0");
        assert_eq!(lately_from(at), window(at) - 24 * 60);
        assert_eq!(kept_from(at), window(at) - 48 * 60);
        assert!(kept_from(at) < lately_from(at), "the doctor's day is kept whole");
        assert_eq!(lately_from(i64::MIN), window(i64::MIN), "no overflow");
    }

    #[test]
    fn the_service_checks_at_most_its_budget_of_codes_a_minute() {
        let budget = GuessBudget { per_minute: 30 };
        assert!(budget.allows(1) && budget.allows(30));
        assert!(!budget.allows(31));
        assert_eq!(Guess::counted(Some(30), budget), Guess::Check);
        assert_eq!(Guess::counted(Some(31), budget), Guess::OverBudget);
        assert_eq!(Guess::counted(None, budget), Guess::OverBudget, "uncounted: not checked");
        let off = GuessBudget { per_minute: 0 };
        assert!(!off.is_on() && off.allows(1_000_000), "0: no limit");
        assert_eq!(Guess::counted(None, off), Guess::OverBudget, "still not checked uncounted");
    }

    #[test]
    fn the_wait_text_asks_to_try_again_in_both_languages_and_says_nothing_of_the_code() {
        use crate::platform::i18n::Lang;
        let text = super::super::access::PAIRING_WAIT;
        let (zh, en) = text.split_once('\n').expect("zh-TW, then English");
        assert_eq!(Lang::detect(zh), Lang::ZhTw);
        assert_eq!(Lang::detect(en), Lang::En);
        assert!(zh.contains("一分鐘") && en.contains("wait a minute"), "{text}");
        assert!(!text.contains("不對") && !text.contains("wrong"), "right or wrong is not told");
        assert!(zh.chars().count() <= 60 && en.chars().count() <= 120, "short");
    }

    #[test]
    fn every_code_not_checked_is_counted_under_its_own_reason() {
        assert_eq!(Guess::OverRate.reason(), "pairing_over_rate");
        assert_eq!(Guess::OverBudget.reason(), "pairing_over_budget");
    }
}
