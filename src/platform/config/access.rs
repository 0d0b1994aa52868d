//! Who is served: the chats approved from the start, an open door, and the pace of pairing codes.

use clap::Args;

/// Which chats hearth serves.
#[derive(Debug, Clone, Args)]
pub struct AccessSettings {
    /// Chats approved from the start, comma-separated LINE ids: a user id (`U…`) for a 1:1 chat,
    /// a group (`C…`) or room (`R…`) id for a group. Other chats wait for approval (see
    /// HEARTH_OPEN): they are told once, politely, and nothing of theirs reaches the LLM.
    #[arg(
        long,
        env = "HEARTH_ALLOWED_CHATS",
        default_value = "",
        value_delimiter = ',',
        hide_default_value = true,
        global = true
    )]
    pub allowed_chats: Vec<String>,
    /// Serve every chat that adds the bot, without approval (anyone who finds the bot then
    /// spends your LLM budget). Off: a new chat waits until `hearth approve`, a pairing code
    /// from `hearth pair`, HEARTH_ALLOWED_CHATS, or (for a group) an approved member.
    #[arg(long, env = "HEARTH_OPEN", default_value_t = false, action = clap::ArgAction::Set, global = true)]
    pub open: bool,
    /// Most pairing codes each source may try per minute: each chat waiting for approval, and
    /// each person sending codes (counted in the database, across replicas; 0: no limit). A
    /// code sent beyond it is not checked, and the sender is told to wait a minute and send it
    /// again; someone else's guesses never keep a family's right code from being checked.
    #[arg(long, env = "HEARTH_PAIRING_GUESSES_PER_SOURCE", default_value_t = 5, global = true)]
    pub pairing_guesses_per_source: u32,
    /// The operator's alarm: when the whole service is sent more pairing codes than this in a
    /// minute (0: never), the log says so and `hearth doctor` warns for a day (someone
    /// guessing codes). Nothing is refused for it.
    #[arg(long, env = "HEARTH_PAIRING_GUESSES_PER_MIN", default_value_t = 30, global = true)]
    pub pairing_guesses_per_min: u32,
}
