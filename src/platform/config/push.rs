//! Pushes: their pace, where a personal one goes, and how close ones are sent together.

use clap::Args;

/// How pushes (reminders, price alerts, digests) go out.
#[derive(Debug, Clone, Args)]
pub struct PushSettings {
    /// Most pushes per second (LINE allows 2,000 per channel); bursts of reminders are paced to it.
    #[arg(long, env = "HEARTH_PUSH_RATE", default_value_t = 1900, global = true)]
    pub push_rate: u32,
    /// Push a personal reminder or price alert set in a group ("提醒我…") to that person's 1:1
    /// chat with hearth when they have added it as a friend: it costs one message of the monthly
    /// quota instead of one per group member. "提醒大家" keeps it in the group either way.
    #[arg(long, env = "HEARTH_PERSONAL_REMINDERS_1TO1", default_value_t = true, action = clap::ArgAction::Set, global = true)]
    pub personal_reminders_1to1: bool,
    /// Reminders, price-alert fires and the digest due for one chat within this many seconds of
    /// each other go out in one push (a group is charged once per push). 0 pushes each as soon as
    /// it is due.
    #[arg(long, env = "HEARTH_OUTBOX_WINDOW_SECS", default_value_t = 3, global = true)]
    pub outbox_window_secs: u64,
}
