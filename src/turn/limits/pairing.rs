//! How many pairing codes may be tried. A code has 40 random bits and lives ten minutes, so
//! guessing one needs very many tries; what is bounded is guessing, per source: each chat
//! waiting for approval, and each person sending codes (LINE for PC/Mac may not say who sent a
//! message: then the chat alone counts), may try `HEARTH_PAIRING_GUESSES_PER_SOURCE` codes a
//! minute, within the turn rates ([`super::rate`]), counted in the store per minute window across
//! replicas. A code over its source's limit is not checked — a right one approves nothing then —
//! and the sender is told to wait and send it again ([`super::access::PAIRING_WAIT`]). Someone
//! else's guesses, however many, never keep a family's right code from being checked. The whole
//! service's count stays as the operator's alarm: past `HEARTH_PAIRING_GUESSES_PER_MIN` in a
//! minute the log says so, and `hearth doctor` warns for a day.
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

/// The budgets of pairing guesses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GuessBudget {
    /// Codes each source (a chat, a person) may try per minute (0: no limit).
    pub per_source: u32,
    /// Codes the whole service may be sent per minute before the operator is alarmed (0:
    /// never alarmed). Nothing is refused for it.
    pub alarm_per_minute: u32,
}

impl GuessBudget {
    /// True when a code that is its source's `nth` in its minute (1 for the first) may be
    /// checked.
    pub fn allows(self, nth: i64) -> bool {
        self.per_source == 0 || nth <= i64::from(self.per_source)
    }

    /// True when the service's `nth` code of a minute is the one that passes the alarm's
    /// line (the alarm is raised once a minute).
    pub fn alarms(self, nth: i64) -> bool {
        self.alarm_per_minute > 0 && nth == i64::from(self.alarm_per_minute) + 1
    }
}

/// The sources a code sent in `chat` by `sender` counts against — the chat, and the person
/// when LINE said who it was — as the store counts them: a hash, so the counts hold no chat's
/// or person's id.
pub fn sources(chat: &str, sender: Option<&str>) -> Vec<String> {
    let mut sources = vec![format!("chat:{chat}")];
    sources.extend(sender.map(|s| format!("member:{s}")));
    sources.iter().map(|s| super::access::code_hash(s)).collect()
}

/// What becomes of a pairing code sent in a chat waiting for approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guess {
    /// Checked against the codes kept.
    Check,
    /// Over the chat's or the person's turn rate: not checked; told to wait.
    OverRate,
    /// Over its chat's or its sender's budget of guesses this minute (or it could not be
    /// counted): not checked; told to wait.
    OverBudget,
}

impl Guess {
    /// What its sources' counts say about a code within the turn rates: `nth`, the highest of
    /// its places in its sources' minutes, or `None` when the store could not count it (the
    /// code is then not checked: an unbounded guess is worse than a family asked to try again).
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
    fn each_source_checks_at_most_its_budget_of_codes_a_minute() {
        let budget = GuessBudget { per_source: 5, alarm_per_minute: 30 };
        assert!(budget.allows(1) && budget.allows(5));
        assert!(!budget.allows(6));
        assert_eq!(Guess::counted(Some(5), budget), Guess::Check);
        assert_eq!(Guess::counted(Some(6), budget), Guess::OverBudget);
        assert_eq!(Guess::counted(None, budget), Guess::OverBudget, "uncounted: not checked");
        let off = GuessBudget { per_source: 0, alarm_per_minute: 0 };
        assert!(off.allows(1_000_000), "0: no limit");
        assert_eq!(Guess::counted(None, off), Guess::OverBudget, "still not checked uncounted");
    }

    #[test]
    fn the_alarm_is_raised_once_a_minute_and_only_when_set() {
        let budget = GuessBudget { per_source: 5, alarm_per_minute: 30 };
        assert!(!budget.alarms(30) && budget.alarms(31) && !budget.alarms(32));
        assert!(!GuessBudget { per_source: 5, alarm_per_minute: 0 }.alarms(1));
    }

    #[test]
    fn a_code_counts_against_its_chat_and_its_sender_or_the_chat_alone() {
        let both = sources("Cgroup", Some("Uann"));
        assert_eq!(both.len(), 2);
        assert_eq!(sources("Cgroup", None), both[..1], "LINE for PC/Mac: the chat alone");
        assert_ne!(sources("Uann", None)[0], both[1], "a person is not their 1:1 chat's count");
        assert!(both.iter().all(|s| s.len() == 64 && !s.contains("Cgroup")), "hashed: {both:?}");
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
