//! Turns: how many run at once, how webhook events are held and claimed, what wakes hearth in a
//! group and how much history the LLM sees.

use clap::Args;

/// How webhook events become turns.
#[derive(Debug, Clone, Args)]
pub struct TurnSettings {
    /// Most turns worked on at once; further events wait their turn (bounds memory and the load
    /// on the LLM provider during a burst).
    #[arg(long, env = "HEARTH_MAX_CONCURRENT_TURNS", default_value_t = 32, global = true)]
    pub max_concurrent_turns: usize,
    /// Seconds a claim on a webhook event lasts unless renewed. A live process renews its claims
    /// three times per lease, however long a turn takes; a dead process's events are taken over
    /// by another process (or this one, restarted) within about this long.
    #[arg(
        long,
        env = "HEARTH_INBOX_LEASE_SECS",
        default_value_t = 15,
        value_parser = clap::value_parser!(u64).range(1..=3600),
        global = true
    )]
    pub inbox_lease_secs: u64,
    /// Most webhook events held in memory (waiting for their conversation or a turn, or being
    /// handled); more wait in the database and are taken as room frees, so a flood does not
    /// grow memory.
    #[arg(long, env = "HEARTH_MAX_QUEUED_EVENTS", default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=100_000), global = true)]
    pub max_queued_events: u64,
    /// Seconds a webhook event's time stamp may run ahead of hearth's clock; an event stamped
    /// further in the future is refused like one older than a day (logged, counted as `ahead`).
    #[arg(long, env = "HEARTH_EVENT_MAX_SKEW_SECS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(0..=1800), global = true)]
    pub event_max_skew_secs: u64,
    /// Seconds shutdown waits for turns in hand before handing them back.
    #[arg(long, env = "HEARTH_SHUTDOWN_GRACE_SECS", default_value_t = 20, global = true)]
    pub shutdown_grace_secs: u64,
    /// Words that wake the bot in groups, comma-separated (e.g. 小幫手,hearth); stripped before the LLM sees the text.
    #[arg(
        long,
        env = "HEARTH_TRIGGER_KEYWORDS",
        default_value = "小幫手,hearth",
        value_delimiter = ',',
        global = true
    )]
    pub trigger_keywords: Vec<String>,
    /// Earlier messages of the conversation given to the LLM as context.
    #[arg(long, env = "HEARTH_HISTORY_MESSAGES", default_value_t = 20, global = true)]
    pub history_messages: usize,
    /// Most characters of history given to the LLM.
    #[arg(long, env = "HEARTH_HISTORY_CHARS", default_value_t = 6000, global = true)]
    pub history_chars: usize,
}

impl TurnSettings {
    /// The trigger keywords, trimmed, empty ones dropped.
    pub fn keywords(&self) -> Vec<String> {
        self.trigger_keywords
            .iter()
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty())
            .collect()
    }
}
