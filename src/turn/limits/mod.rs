//! Spending limits: who may use hearth, how often, and how many LLM tokens a day. Every check
//! runs before any LLM call, after the group gate (a group message that did not call hearth
//! costs nothing and counts against nothing):
//!
//! - who is served ([`access`]): a new chat waits for approval, is told once — durably, by any
//!   replica — how to get it, and then gets silence; nothing of it is downloaded, parsed, logged
//!   or sent to the LLM;
//! - how many pairing codes may be tried ([`pairing`]): per chat and person as often as the
//!   turn rates allow, and by the whole service a budget a minute, counted in the database;
//! - turn rates per chat and per person ([`rate`]): over them, one short notice a minute;
//! - daily token budgets per chat and for the service, counted in the database from the LLM's
//!   reported usage and starting afresh at local midnight: once reached, a short notice.
//!
//! The cap on tool calls per LLM round lives in the agent (`crate::llm::agent`). The decisions
//! are pure functions in [`crate::features::budget`] and [`rate`]; [`turns`] applies them to events.

pub mod access;
pub mod pairing;
pub mod rate;
mod turns;

use std::sync::Arc;

pub use crate::features::budget::{Exhausted, TokenBudget, budget_day};
pub use rate::{RateVerdict, TurnRate};

use crate::door::Door;
use crate::platform::clock::Clock;
use crate::platform::config::Config;
use crate::platform::i18n::Lang;

/// The limits one process applies.
pub struct Limits {
    /// Who may see and change each chat.
    pub door: Arc<Door>,
    /// Turn rates per chat and per person.
    pub rate: TurnRate,
    /// Daily token budgets.
    pub budget: TokenBudget,
    /// The service-wide budget of pairing guesses.
    pub pairing: pairing::GuessBudget,
}

impl Limits {
    /// The limits the configuration sets, with rate limiters reading `clock`, asking `door`.
    pub fn from_config(config: &Config, clock: Arc<dyn Clock>, door: Arc<Door>) -> Self {
        Self {
            door,
            rate: TurnRate::new(
                config.limits.chat_turns_per_minute,
                config.limits.user_turns_per_minute,
                clock,
            ),
            budget: TokenBudget {
                per_chat: config.limits.daily_tokens_per_chat,
                total: config.limits.daily_tokens_total,
            },
            pairing: pairing::GuessBudget {
                per_source: config.access.pairing_guesses_per_source,
                alarm_per_minute: config.access.pairing_guesses_per_min,
            },
        }
    }
}

/// Why a message got a notice instead of a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The chat waits for approval.
    NotAllowed,
    /// Too many turns this minute.
    RateLimited,
    /// A daily token budget is used up.
    Budget(Exhausted),
}

impl Refusal {
    /// The short sentence the chat sees (a pending chat is told [`access::pending_notice`]
    /// instead, which names the chat). It is sent before hearth knows the chat's language, so it
    /// says it in both.
    pub fn message(self, lang: Lang) -> &'static str {
        match self {
            Refusal::NotAllowed => {
                "抱歉，這個小幫手只為特定的家庭服務，無法在這裡使用 🙏\nSorry, this assistant is private and can't be used in this chat 🙏"
            }
            Refusal::RateLimited => lang.pick(
                "訊息有點多，我跟不上了 😅 請過一分鐘再問我。",
                "That's a lot of messages at once 😅 Please ask me again in a minute.",
            ),
            Refusal::Budget(Exhausted::Chat) => lang.pick(
                "這個聊天室今天的額度用完了，午夜過後再來找我吧 🌙",
                "This chat has used up today's allowance. Talk to me again after midnight 🌙",
            ),
            Refusal::Budget(Exhausted::Service) => lang.pick(
                "我今天的額度用完了，午夜過後再來找我吧 🌙",
                "I've used up today's allowance. Talk to me again after midnight 🌙",
            ),
        }
    }

    /// The `reason` label of the metric.
    pub fn reason(self) -> &'static str {
        match self {
            Refusal::NotAllowed => "pending",
            Refusal::RateLimited => "rate_limited",
            Refusal::Budget(_) => "budget_exhausted",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_default_strangers_wait_for_approval_and_turns_have_rates_and_budgets() {
        let config = Config::defaults();
        assert!(config.access.allowed_chats.iter().all(|c| c.trim().is_empty()));
        assert!(!config.access.open, "a stranger is not served until approved");
        assert_eq!(
            (config.limits.chat_turns_per_minute, config.limits.user_turns_per_minute),
            (20, 10)
        );
        assert_eq!(
            (config.limits.daily_tokens_per_chat, config.limits.daily_tokens_total),
            (500_000, 5_000_000)
        );
        assert_eq!(config.llm.max_tool_calls_per_round, 8);
    }

    #[test]
    fn every_notice_is_short_and_speaks_the_family_s_language() {
        let all = [
            Refusal::NotAllowed,
            Refusal::RateLimited,
            Refusal::Budget(Exhausted::Chat),
            Refusal::Budget(Exhausted::Service),
        ];
        for refusal in all {
            let (zh, en) = (refusal.message(Lang::ZhTw), refusal.message(Lang::En));
            assert!(zh.chars().count() <= 120 && en.chars().count() <= 120, "{refusal:?}");
            assert_eq!(Lang::detect(zh), Lang::ZhTw, "{refusal:?}");
            if refusal != Refusal::NotAllowed {
                assert_eq!(Lang::detect(en), Lang::En, "{refusal:?}");
            }
        }
    }
}
