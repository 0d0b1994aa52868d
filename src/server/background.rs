//! The periodic work of a serving process: delivering due reminders and daily digests, pushing
//! what waits in the per-chat outbox, watching prices for alerts, reading Taiwan's official alerts,
//! asking care plans' doses and telling their caregivers,
//! taking webhook events that wait in the inbox (left there while the queue was full, or by a
//! process that died), renewing the leases of the events it holds, pruning what is kept only for
//! a while, reading LINE's message quota, and the daily backup of a SQLite database.

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;
use tracing::Instrument;

use crate::features::public_alerts::watcher;
use crate::server::app::Hearth;
use crate::server::inbox::lease;

/// How often due reminders are looked for (a new reminder due sooner wakes the loop).
const REMINDER_TICK: Duration = Duration::from_secs(1);
/// How often the outbox is looked at for chats whose window has passed (items held for quiet
/// hours, or handed over by the loops and waiting for what else is due for their chat).
const OUTBOX_TICK: Duration = Duration::from_secs(1);
/// How often digests that came due are looked for.
const DIGEST_TICK: Duration = Duration::from_secs(20);
/// How often the inbox is looked at for events nobody holds (a webhook leaving events there, or
/// a finished event freeing room, wakes the loop sooner).
const INBOX_TICK: Duration = Duration::from_secs(2);
/// How often events whose handling did not finish twice are looked for, to set them aside.
const GIVE_UP_TICK: Duration = Duration::from_secs(5);
/// How often LINE's message quota is read (also at start and after a monthly-limit refusal).
const QUOTA_TICK: Duration = Duration::from_secs(3600);
/// How often the SQLite database is backed up (`HEARTH_BACKUP_DIR`).
const BACKUP_TICK: Duration = Duration::from_secs(3600);
/// How often old data is pruned (handled webhook events, the chat log, token counts, settled
/// pushes).
const PRUNE_TICK: Duration = Duration::from_secs(3600);

/// The running loops.
pub struct Loops {
    work: Vec<JoinHandle<()>>,
    heartbeat: JoinHandle<()>,
}

impl Loops {
    /// Stops taking new work (shutdown); the heartbeat keeps renewing what is in hand.
    pub fn stop_work(&self) {
        for task in &self.work {
            task.abort();
        }
    }

    /// Stops everything, the heartbeat last.
    pub fn stop(self) {
        self.stop_work();
        self.heartbeat.abort();
    }
}

/// Starts the loops, each in a span of its own (`loop`, with its name), which every line it
/// logs carries.
pub fn start(app: Arc<Hearth>) -> Loops {
    Loops {
        work: vec![
            spawn("reminders", deliver_reminders(app.clone())),
            spawn("waiting events", take_waiting_events(app.clone())),
            spawn("prices", watch_prices(app.clone())),
            spawn("digests", deliver_digests(app.clone())),
            spawn("official alerts", watch_official_alerts(app.clone())),
            spawn("care", watch_care(app.clone())),
            spawn("outbox", deliver_outbox(app.clone())),
            spawn("prune", prune(app.clone())),
            spawn("quota", read_quota(app.clone())),
            spawn("backup", back_up_daily(app.clone())),
        ],
        heartbeat: spawn("leases", renew_leases(app)),
    }
}

fn spawn(name: &'static str, work: impl Future<Output = ()> + Send + 'static) -> JoinHandle<()> {
    tokio::spawn(work.instrument(tracing::info_span!("loop", name)))
}

async fn deliver_reminders(app: Arc<Hearth>) {
    loop {
        match app.reminders.tick().await {
            Ok(report) if report != Default::default() => {
                tracing::info!(?report, "reminders delivered")
            }
            Ok(_) => {}
            Err(e) => tracing::error!(error = %e, "reminder tick failed"),
        }
        tokio::select! {
            _ = tokio::time::sleep(REMINDER_TICK) => {}
            _ = app.reminder_nudge.notified() => {}
        }
    }
}

/// Pushes the daily digests that came due.
async fn deliver_digests(app: Arc<Hearth>) {
    let mut tick = tokio::time::interval(DIGEST_TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        match app.digests.tick().await {
            Ok(report) if report != Default::default() => tracing::info!(?report, "digests"),
            Ok(_) => {}
            Err(e) => tracing::error!(error = %e, "digest tick failed"),
        }
    }
}

/// Takes the day's backup of a SQLite database when it is missing: checked at start and then
/// hourly, so there is one copy per calendar day however often the process restarts
/// (`HEARTH_BACKUP_DIR`).
async fn back_up_daily(app: Arc<Hearth>) {
    let Some(backups) = app.backups.clone() else { return };
    if app.store.backend_name() != "sqlite" {
        tracing::warn!("HEARTH_BACKUP_DIR is set but the database is PostgreSQL: use pg_dump");
        return;
    }
    let mut tick = tokio::time::interval(BACKUP_TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        match backups.take(&app.store, app.clock.now()).await {
            Ok(Some(path)) => tracing::info!(file = %path.display(), "database backed up"),
            Ok(None) => tracing::debug!("today's backup exists"),
            Err(e) => tracing::error!(error = %e, "daily backup failed"),
        }
    }
}

/// Pushes what waits in the per-chat outbox once its chat's window has passed.
async fn deliver_outbox(app: Arc<Hearth>) {
    let mut tick = tokio::time::interval(OUTBOX_TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        match app.outbox.flush_waiting().await {
            Ok(settled) if !settled.is_empty() => {
                tracing::info!(items = settled.len(), "outbox pushed")
            }
            Ok(_) => {}
            Err(e) => tracing::error!(error = %e, "outbox tick failed"),
        }
    }
}

/// Polls watched prices and pushes the alerts that fire, every `HEARTH_ALERT_POLL_SECS` (each
/// symbol on its own cadence).
async fn watch_prices(app: Arc<Hearth>) {
    if app.alert_poll_secs == 0 {
        return;
    }
    let mut tick = tokio::time::interval(Duration::from_secs(app.alert_poll_secs));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        match app.alerts.tick().await {
            Ok(report) if report.fired + report.sent + report.failed + report.retrying > 0 => {
                tracing::info!(?report, "price alerts")
            }
            Ok(_) => {}
            Err(e) => tracing::error!(error = %e, "price-alert tick failed"),
        }
    }
}

/// Asks the doses of care plans that came due, tells the caregivers of those nobody confirmed
/// and of readings outside their limits, and sends the weekly reports, every
/// `HEARTH_CARE_TICK_SECS`.
async fn watch_care(app: Arc<Hearth>) {
    if app.care_tick_secs == 0 {
        return;
    }
    loop {
        match app.care.tick().await {
            Ok(round) if round != crate::features::care::watcher::CareRound::default() => {
                tracing::info!(?round, "care plans")
            }
            Ok(_) => {}
            Err(e) => tracing::error!(error = %e, "care tick failed"),
        }
        match app.care_menus.sync().await {
            Ok(round) if round != Default::default() => tracing::info!(?round, "care menus"),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "care menu links not checked"),
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(app.care_tick_secs)) => {}
            _ = app.care_nudge.notified() => {}
        }
    }
}

/// Reads the official alerts feed every `HEARTH_ALERTS_POLL_SECS` (the process holding its
/// lease) and tells the chats that follow the alerts.
async fn watch_official_alerts(app: Arc<Hearth>) {
    if app.official_poll_secs == 0 {
        return;
    }
    let mut tick = tokio::time::interval(Duration::from_secs(app.official_poll_secs));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        match app.official_alerts.tick().await {
            Ok(report) if report.kept + report.unreadable + report.told > 0 => {
                tracing::info!(?report, "official alerts")
            }
            Ok(_) => {}
            Err(e) => tracing::error!(error = %e, "official alerts tick failed"),
        }
    }
}

/// Reads LINE's message quota at start and hourly, and shows the month's projection (what is
/// used plus what the scheduled reminders will spend) in `/metrics`.
async fn read_quota(app: Arc<Hearth>) {
    let mut tick = tokio::time::interval(QUOTA_TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        app.read_quota().await;
    }
}

async fn take_waiting_events(app: Arc<Hearth>) {
    // Poison events are looked for at start too: a process that just came back from a crash
    // must not be the one that retries them a third time.
    let mut last_give_up: Option<tokio::time::Instant> = None;
    loop {
        match app.inbox.take_waiting_events().await {
            // The store may hold more: look again at once.
            Ok(n)
                if n > 0
                    && app.inbox.queue.has_backlog()
                    && app.inbox.queue.free_slots_available() =>
            {
                continue;
            }
            Ok(_) => {}
            Err(e) => tracing::error!(error = %e, "could not take waiting events"),
        }
        if last_give_up.is_none_or(|at| at.elapsed() >= GIVE_UP_TICK) {
            last_give_up = Some(tokio::time::Instant::now());
            if let Err(e) = app.inbox.set_aside_poison_events().await {
                tracing::error!(error = %e, "could not set failed events aside");
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(INBOX_TICK) => {}
            _ = app.inbox.queue.wake.notified() => {}
        }
    }
}

/// The heartbeat: renews the leases of the events this process holds, so none is taken from a
/// live process however long its turn.
async fn renew_leases(app: Arc<Hearth>) {
    let mut tick = tokio::time::interval(lease::renew_every(app.inbox.lease));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if let Err(e) = app.inbox.renew_leases().await {
            tracing::error!(error = %e, "could not renew inbox leases");
        }
    }
}

/// Every hour: forgets what is past its retention (handled events, the chat log, token counts,
/// counts of pairing guesses, settled pushes) and folds the metrics' histogram samples into their buckets.
async fn prune(app: Arc<Hearth>) {
    let mut tick = tokio::time::interval(PRUNE_TICK);
    loop {
        tick.tick().await;
        let now = app.clock.now();
        let before = now.saturating_sub(lease::DEDUPE_WINDOW).unwrap_or(now);
        match app.store.prune_inbox(before.as_millisecond()).await {
            Ok(n) if n > 0 => tracing::info!(pruned = n, "handled webhook events forgotten"),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "could not prune the inbox"),
        }
        if let Err(e) = app.prune_chat_log().await {
            tracing::warn!(error = %e, "could not prune the chat log");
        }
        if let Err(e) = app.turns.prune_token_counts().await {
            tracing::warn!(error = %e, "could not prune the daily token counts");
        }
        if let Err(e) = app.turns.prune_pairing_guesses().await {
            tracing::warn!(error = %e, "could not prune the counts of pairing guesses");
        }
        if let Err(e) = app.prune_settled_pushes().await {
            tracing::warn!(error = %e, "could not prune settled pushes");
        }
        let kept_since = now.saturating_sub(watcher::KEPT_FOR).unwrap_or(now);
        if let Err(e) = app.store.prune_public_alerts(kept_since.as_millisecond()).await {
            tracing::warn!(error = %e, "could not prune the official alerts");
        }
        let care_since = now.saturating_sub(app.care_retention).unwrap_or(now);
        if let Err(e) = app.store.prune_care(care_since.as_millisecond()).await {
            tracing::warn!(error = %e, "could not prune care readings");
        }
        app.metrics.upkeep();
    }
}
