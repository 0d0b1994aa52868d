//! What the background loops drive ([`crate::server::background`] runs them): the reminder
//! scheduler, the price-alert poller, the digests, the official alerts watcher, the care loop
//! and its menus, the outbox's pusher, how often the switchable loops tick (what wakes one early
//! is the operations' own: `Deps`' nudges), how long what they prune is kept, and the daily backup.

use std::time::Duration;

use jiff::SignedDuration;

use crate::contract::chart::publish::Charts;
use crate::features::calendar::ops::caldav::CalendarSync;
use crate::features::care::ops::watcher::CareWatcher;
use crate::features::deps::Deps;
use crate::features::digest::ops::sender::{DigestSender, DigestSources};
use crate::features::official_alerts::ops::watcher::AlertWatcher;
use crate::features::price_alerts::ops::poller::{AlertPoller, PollerSettings};
use crate::features::reminders::ops::scheduler::{ReminderScheduler, SchedulerSettings};
use crate::features::richmenu::ops::care_links::CareMenuLinks;
use crate::features::speech::Speech;
use crate::platform::config::Config;
use crate::push::delivery::Pusher;
use crate::server::backups::Backups;
use crate::sources::cap::CapFeed;

/// The parts the loops drive, with their paces and what wakes them: built once by
/// [`Loops::assemble`], ticked by [`crate::server::background::start`] (tests tick
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
    /// Keeps the chats' calendars in step with the family's calendar server; `None` without
    /// `HEARTH_CALDAV_URL`.
    pub calendar_sync: Option<CalendarSync>,
    /// The per-chat outbox's sender: pushes together what the loops above handed to it.
    pub outbox: Pusher,
    /// How often each switchable loop ticks.
    pub(crate) paces: Paces,
    /// How long what the prune loop forgets is kept.
    pub(crate) retention: Retention,
    /// The daily backup of a SQLite database; `None` without `HEARTH_BACKUP_DIR`.
    pub backups: Option<Backups>,
}

impl Loops {
    /// Builds every loop once, over what `deps` shares (each its own store handle, all pushing
    /// through the one pusher): a new loop is built here and joins
    /// [`crate::server::background`]'s list.
    pub(crate) fn assemble(
        config: &Config,
        deps: &Deps,
        charts: Option<Charts>,
        speech: Option<Speech>,
        care_menus: CareMenuLinks,
        official_alerts_feed: Option<CapFeed>,
    ) -> Self {
        let (pusher, store) = (&deps.pusher, &deps.store);
        let digests = DigestSender::new(
            pusher.clone(),
            store.clone(),
            DigestSources {
                weather: deps.sources.weather.clone(),
                quotes: deps.sources.quotes.clone(),
                securities: deps.sources.securities.clone(),
                work_calendar: deps.work_calendar.clone(),
                home: deps.home.clone(),
            },
        )
        .with_open_page(
            config
                .server
                .public_url
                .is_some()
                .then_some(crate::features::family_page::open_button as _),
        );
        let price_alerts = AlertPoller::new(
            pusher.clone(),
            store.clone(),
            deps.sources.quotes.clone(),
            PollerSettings::default(),
            deps.work_calendar.clone(),
        )
        .with_securities(deps.sources.securities.clone())
        .with_charts(charts.clone());
        let reminders = ReminderScheduler::new(
            pusher.clone(),
            store.clone(),
            SchedulerSettings {
                lease: SignedDuration::from_secs(config.loops.reminder_lease_secs.max(1) as i64),
                ..SchedulerSettings::default()
            },
            deps.work_calendar.clone(),
        );
        let official_alerts = AlertWatcher::new(
            pusher.clone(),
            store.clone(),
            official_alerts_feed,
            deps.home.clone(),
        )
        .with_request_gap(Duration::from_millis(config.loops.official_alerts_request_gap_ms));
        let care = CareWatcher::new(
            pusher.clone(),
            store.clone(),
            deps.work_calendar.clone(),
            deps.door.clone(),
        )
        .with_charts(charts)
        .with_speech(speech);
        let calendar = &config.calendar;
        let calendar_sync = calendar.server().and_then(|home| {
            let server = crate::sources::caldav::CalDav::new(
                home,
                &calendar.caldav_user,
                calendar.caldav_password.clone(),
            );
            match server {
                Ok(server) => Some(CalendarSync::new(server, deps)),
                Err(e) => {
                    tracing::error!(error = %e, "the calendar server is not synced");
                    None
                }
            }
        });
        let backups = config.store.backup_dir.clone().map(|dir| Backups {
            dir,
            keep: config.store.backup_keep,
            tz: pusher.tz().clone(),
        });
        Self {
            reminders,
            price_alerts,
            digests,
            official_alerts,
            care,
            care_menus,
            calendar_sync,
            outbox: pusher.clone(),
            paces: Paces::new(config),
            retention: Retention::new(config),
            backups,
        }
    }
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
    /// Between syncs with the family's calendar server (`HEARTH_CALDAV_SYNC_SECS`).
    pub(crate) caldav_sync_secs: u64,
}

impl Paces {
    /// The paces `settings` set.
    pub(crate) fn new(config: &Config) -> Self {
        let settings = &config.loops;
        Self {
            caldav_sync_secs: config.calendar.caldav_sync_secs,
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
