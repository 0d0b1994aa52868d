//! The periodic work of a serving process: delivering due reminders, watching prices for alerts,
//! recovering webhook events other processes left unfinished, and pruning what is kept only for
//! a while.

use std::sync::Arc;
use std::time::Duration;

use jiff::SignedDuration;
use tokio::task::JoinHandle;

use crate::app::Hearth;

/// How often due reminders are looked for (a new reminder due sooner wakes the loop).
const REMINDER_TICK: Duration = Duration::from_secs(1);
/// How often unfinished webhook events are looked for.
const RECOVERY_TICK: Duration = Duration::from_secs(2);
/// How often old data is pruned.
const PRUNE_TICK: Duration = Duration::from_secs(3600);
/// Handled webhook events are kept this long (their ids keep deduplicating redeliveries).
const KEEP_HANDLED_EVENTS: SignedDuration = SignedDuration::from_hours(24);

/// Starts the loops; the server aborts them on shutdown.
pub fn start(app: Arc<Hearth>) -> Vec<JoinHandle<()>> {
    vec![
        tokio::spawn(deliver_reminders(app.clone())),
        tokio::spawn(recover_events(app.clone())),
        tokio::spawn(watch_prices(app.clone())),
        tokio::spawn(prune(app)),
    ]
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

async fn recover_events(app: Arc<Hearth>) {
    loop {
        if let Err(e) = app.recover_events().await {
            tracing::error!(error = %e, "event recovery failed");
        }
        tokio::time::sleep(RECOVERY_TICK).await;
    }
}

async fn prune(app: Arc<Hearth>) {
    let mut tick = tokio::time::interval(PRUNE_TICK);
    loop {
        tick.tick().await;
        let now = app.clock.now();
        let before = now.saturating_sub(KEEP_HANDLED_EVENTS).unwrap_or(now);
        match app.store.prune_inbox(before.as_millisecond()).await {
            Ok(n) if n > 0 => tracing::info!(pruned = n, "handled webhook events forgotten"),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "could not prune the inbox"),
        }
        if let Err(e) = app.prune_chat_log().await {
            tracing::warn!(error = %e, "could not prune the chat log");
        }
        if let Err(e) = app.prune_token_counts().await {
            tracing::warn!(error = %e, "could not prune the daily token counts");
        }
    }
}
