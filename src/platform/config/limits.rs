//! Limits per chat, per person and for the whole service: turns per minute and LLM tokens per day.

use clap::Args;

/// How much one chat, one person or everyone may use.
#[derive(Debug, Clone, Args)]
pub struct LimitSettings {
    /// Most turns per minute in one chat (0: no limit); more get one short notice per minute.
    /// Counted per process.
    #[arg(long, env = "HEARTH_CHAT_TURNS_PER_MINUTE", default_value_t = 20, global = true)]
    pub chat_turns_per_minute: u32,
    /// Most turns per minute for one person, across chats (0: no limit); more get one short
    /// notice per minute. Counted per process.
    #[arg(long, env = "HEARTH_USER_TURNS_PER_MINUTE", default_value_t = 10, global = true)]
    pub user_turns_per_minute: u32,
    /// LLM tokens (prompt and completion) one chat may use per day, in HEARTH_TIMEZONE
    /// (0: no limit); once reached the chat gets a short notice until midnight.
    #[arg(long, env = "HEARTH_DAILY_TOKENS_PER_CHAT", default_value_t = 500_000, global = true)]
    pub daily_tokens_per_chat: u64,
    /// LLM tokens the whole service may use per day, in HEARTH_TIMEZONE, counted across
    /// replicas (0: no limit); once reached every chat gets a short notice until midnight.
    #[arg(long, env = "HEARTH_DAILY_TOKENS_TOTAL", default_value_t = 5_000_000, global = true)]
    pub daily_tokens_total: u64,
}
