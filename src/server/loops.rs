//! What the background loops drive ([`crate::server::background`] runs them): the reminder
//! scheduler, the price-alert poller, the digests, the official alerts watcher, the care loop
//! and its menus, the outbox's pusher, how often the switchable loops tick (what wakes one early
//! is the operations' own: `Deps`' nudges), how long what they prune is kept, and the daily backup.

use crate::features::care::ops::watcher::CareWatcher;
use crate::features::digest::ops::sender::DigestSender;
use crate::features::official_alerts::ops::watcher::AlertWatcher;
use crate::features::price_alerts::ops::poller::AlertPoller;
use crate::features::reminders::ops::scheduler::ReminderScheduler;
use crate::features::richmenu::ops::care_links::CareMenuLinks;
use crate::push::delivery::Pusher;
use crate::server::backups::Backups;

/// The parts the loops drive, with their paces and what wakes them: built once by
/// [`crate::server::app::Hearth`], ticked by [`crate::server::background::start`] (tests tick
/// them by hand).
pub struct Loops {
    /// Delivers due reminders.
    pub reminders: ReminderScheduler,
    /// Watches prices and pushes the price alerts that fire.
    pub price_alerts: AlertPoller,
    /// Pushes the daily digests.
    pub digests: DigestSender,
    /// Reads Taiwan's official alerts and tells the chats that follow them.
    pub official_alerts: AlertWatcher,
    /// Asks care plans' doses and tells their caregivers.
    pub care: CareWatcher,
    /// Links the care menu to whoever a care plan asks, and takes it away after.
    pub care_menus: CareMenuLinks,
    /// The per-chat outbox's sender: pushes together what the loops above handed to it.
    pub outbox: Pusher,
    /// How often each switchable loop ticks.
    pub(crate) paces: Paces,
    /// How long what the prune loop forgets is kept.
    pub(crate) retention: Retention,
    /// The daily backup of a SQLite database; `None` without `HEARTH_BACKUP_DIR`.
    pub backups: Option<Backups>,
}

/// Seconds between the ticks of the loops a setting paces (0: that loop is off).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Paces {
    /// Between price-alert polls (`HEARTH_PRICE_POLL_SECS`).
    pub(crate) price_poll_secs: u64,
    /// Between reads of the official alerts feed (`HEARTH_OFFICIAL_ALERTS_POLL_SECS`).
    pub(crate) official_poll_secs: u64,
    /// Between rounds of the care loop (`HEARTH_CARE_TICK_SECS`).
    pub(crate) care_tick_secs: u64,
}

impl Paces {
    /// The paces `settings` set.
    pub(crate) fn new(settings: &crate::platform::config::LoopSettings) -> Self {
        Self {
            price_poll_secs: settings.price_poll_secs,
            official_poll_secs: settings.official_alerts_poll_secs,
            care_tick_secs: settings.care_tick_secs,
        }
    }
}

/// How long what is kept only for a while is kept.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Retention {
    /// The chat log (`HEARTH_LOG_RETENTION_DAYS`).
    pub(crate) chat_log: jiff::SignedDuration,
    /// Settled pushes (`HEARTH_DELIVERY_RETENTION_DAYS`).
    pub(crate) settled_pushes: jiff::SignedDuration,
    /// Care readings and doses (`HEARTH_CARE_RETENTION_DAYS`).
    pub(crate) care: jiff::SignedDuration,
}

impl Retention {
    /// The retention `config` sets (a day at least).
    pub(crate) fn new(config: &crate::platform::config::Config) -> Self {
        Self {
            chat_log: days(config.store.log_retention_days),
            settled_pushes: days(config.store.delivery_retention_days),
            care: days(config.loops.care_retention_days),
        }
    }
}

/// `n` days (at least one).
fn days(n: u32) -> jiff::SignedDuration {
    jiff::SignedDuration::from_hours(24 * i64::from(n.max(1)))
}
