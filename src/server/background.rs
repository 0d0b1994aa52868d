//! The periodic work of a serving process: delivering due reminders and daily digests, pushing
//! what waits in the per-chat outbox, watching prices for alerts, reading Taiwan's official alerts,
//! asking care plans' doses and telling their caregivers, syncing the family's calendar server,
//! keeping the HTTPS certificate obtained and renewed, taking webhook events that wait in the inbox (left there while the queue was full, or by a
//! process that died), renewing the leases of the events it holds, pruning what is kept only for
//! a while, reading LINE's message quota, the daily backup of a SQLite database, and copying
//! its write-ahead log back into the file four times a second.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tracing::Instrument;

use crate::features::care::ops::CareOps;
use crate::features::official_alerts::ops::OfficialAlertOps;
use crate::features::official_alerts::ops::watcher;
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
/// How often SQLite's write-ahead log is copied back into the database file: often, so each copy
/// is small (at 500 DMs/s on a disk, every 250 ms gave an ack p99 of 2.1–2.4 ms, every second
/// 5–12 ms; BENCHMARKS.md). With nothing new in the log a checkpoint reads one header.
const CHECKPOINT_TICK: Duration = Duration::from_millis(250);
/// How often old data is pruned (handled webhook events, the chat log, token counts, settled
/// pushes, calendar events cancelled over a month ago, spoken answers' expired audio).
const PRUNE_TICK: Duration = Duration::from_secs(3600);

/// What a loop does once a tick is over.
enum After {
    /// Waits for its interval, or for whatever wakes it sooner.
    Wait,
    /// Ticks again at once (there is more to take).
    AtOnce,
}

/// A tick in progress.
type Tick = Pin<Box<dyn Future<Output = After> + Send>>;

/// A background loop: its name (its span's, which every line it logs carries), how long it
/// waits between ticks (`None`: switched off by its setting), what wakes it sooner, and its
/// tick. A loop ticks once as it starts.
struct Loop {
    name: &'static str,
    every: fn(&Hearth) -> Option<Duration>,
    wake: fn(&Hearth) -> Option<&Notify>,
    tick: fn(Arc<Hearth>) -> Tick,
}

/// Every loop that takes work, once: a new loop joins this list (the leased tables it claims
/// join [`crate::store::LEASED`]).
const LOOPS: &[Loop] = &[
    Loop {
        name: "reminders",
        every: |_| Some(REMINDER_TICK),
        wake: |app| Some(app.turns.deps.reminder_nudge.as_ref()),
        tick: |app| Box::pin(deliver_reminders(app)),
    },
    Loop {
        name: "waiting events",
        every: |_| Some(INBOX_TICK),
        wake: |app| Some(&app.webhook.inbox.queue.wake),
        tick: |app| Box::pin(take_waiting_events(app)),
    },
    Loop {
        name: "poison events",
        every: |_| Some(GIVE_UP_TICK),
        wake: |_| None,
        tick: |app| Box::pin(set_aside_poison_events(app)),
    },
    Loop {
        name: "prices",
        every: |app| every(app.loops.paces.price_poll_secs),
        wake: |_| None,
        tick: |app| Box::pin(watch_prices(app)),
    },
    Loop {
        name: "digests",
        every: |_| Some(DIGEST_TICK),
        wake: |_| None,
        tick: |app| Box::pin(deliver_digests(app)),
    },
    Loop {
        name: "official alerts",
        every: |app| every(app.loops.paces.official_poll_secs),
        wake: |_| None,
        tick: |app| Box::pin(watch_official_alerts(app)),
    },
    Loop {
        name: "care",
        every: |app| every(app.loops.paces.care_tick_secs),
        wake: |app| Some(app.turns.deps.care_nudge.as_ref()),
        tick: |app| Box::pin(watch_care(app)),
    },
    Loop {
        name: "calendar server",
        every: |app| app.loops.calendar_sync.as_ref().and(every(app.loops.paces.caldav_sync_secs)),
        wake: |_| None,
        tick: |app| Box::pin(sync_calendars(app)),
    },
    Loop {
        name: "certificate",
        every: |app| app.serving.https.as_ref().map(|https| https.every()),
        wake: |_| None,
        tick: |app| Box::pin(look_at_certificate(app)),
    },
    Loop {
        name: "outbox",
        every: |_| Some(OUTBOX_TICK),
        wake: |_| None,
        tick: |app| Box::pin(deliver_outbox(app)),
    },
    Loop {
        name: "prune",
        every: |_| Some(PRUNE_TICK),
        wake: |_| None,
        tick: |app| Box::pin(prune(app)),
    },
    Loop {
        name: "quota",
        every: |_| Some(QUOTA_TICK),
        wake: |_| None,
        tick: |app| Box::pin(read_quota(app)),
    },
    Loop {
        name: "backup",
        every: backup_every,
        wake: |_| None,
        tick: |app| Box::pin(back_up(app)),
    },
    Loop {
        name: "checkpoints",
        every: |app| app.store.has_write_ahead_log().then_some(CHECKPOINT_TICK),
        wake: |_| None,
        tick: |app| Box::pin(checkpoint(app)),
    },
];

/// A pace in seconds as a loop's interval: `None` (off) for 0.
fn every(secs: u64) -> Option<Duration> {
    (secs > 0).then(|| Duration::from_secs(secs))
}

/// The heartbeat: renews the leases of the events this process holds, so none is taken from a
/// live process however long its turn. It keeps going while the others stop.
const HEARTBEAT: Loop = Loop {
    name: "leases",
    every: |app| Some(lease::renew_every(app.webhook.inbox.lease)),
    wake: |_| None,
    tick: |app| Box::pin(renew_leases(app)),
};

/// The running loops.
pub struct Running {
    work: Vec<JoinHandle<()>>,
    heartbeat: JoinHandle<()>,
}

impl Running {
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

/// Starts the loops, each in a span of its own (`loop`, with its name).
pub fn start(app: Arc<Hearth>) -> Running {
    Running {
        work: LOOPS.iter().map(|part| spawn(&app, part)).collect(),
        heartbeat: spawn(&app, &HEARTBEAT),
    }
}

fn spawn(app: &Arc<Hearth>, part: &'static Loop) -> JoinHandle<()> {
    let app = app.clone();
    let run = async move {
        let Some(every) = (part.every)(&app) else { return };
        loop {
            if let After::AtOnce = (part.tick)(app.clone()).await {
                continue;
            }
            match (part.wake)(&app) {
                Some(wake) => tokio::select! {
                    _ = tokio::time::sleep(every) => {}
                    _ = wake.notified() => {}
                },
                None => tokio::time::sleep(every).await,
            }
        }
    };
    tokio::spawn(run.instrument(tracing::info_span!("loop", name = part.name)))
}

/// Logs a tick's outcome: its report when `worth_telling`, its failure always.
fn report<R: std::fmt::Debug, E: std::fmt::Display>(
    outcome: Result<R, E>,
    worth_telling: impl FnOnce(&R) -> bool,
    done: &str,
    failed: &str,
) -> After {
    match outcome {
        Ok(report) if worth_telling(&report) => tracing::info!(?report, "{done}"),
        Ok(_) => {}
        Err(e) => tracing::error!(error = %e, "{failed}"),
    }
    After::Wait
}

/// Pushes the reminders that came due (a new reminder due sooner wakes the loop).
async fn deliver_reminders(app: Arc<Hearth>) -> After {
    let outcome = app.loops.reminders.tick().await;
    report(outcome, |r| *r != Default::default(), "reminders delivered", "reminder tick failed")
}

/// Pushes the daily digests that came due.
async fn deliver_digests(app: Arc<Hearth>) -> After {
    let outcome = app.loops.digests.tick().await;
    report(outcome, |r| *r != Default::default(), "digests", "digest tick failed")
}

/// Backs a SQLite database up hourly when `HEARTH_BACKUP_DIR` is set; never on PostgreSQL.
fn backup_every(app: &Hearth) -> Option<Duration> {
    app.loops.backups.as_ref()?;
    if app.store.backend_name() != "sqlite" {
        tracing::warn!("HEARTH_BACKUP_DIR is set but the database is PostgreSQL: use pg_dump");
        return None;
    }
    Some(BACKUP_TICK)
}

/// Takes the day's backup of a SQLite database when it is missing: checked at start and then
/// hourly, so there is one copy per calendar day however often the process restarts
/// (`HEARTH_BACKUP_DIR`).
async fn back_up(app: Arc<Hearth>) -> After {
    let Some(backups) = &app.loops.backups else { return After::Wait };
    match backups.take(&app.store, app.clock.now()).await {
        Ok(Some(path)) => tracing::info!(file = %path.display(), "database backed up"),
        Ok(None) => tracing::debug!("today's backup exists"),
        Err(e) => tracing::error!(error = %e, "daily backup failed"),
    }
    After::Wait
}

/// Copies SQLite's write-ahead log back into the database file, on a connection of its own
/// (`store/checkpoint.rs`).
async fn checkpoint(app: Arc<Hearth>) -> After {
    match app.store.checkpoint().await {
        Ok(Some(done)) if done.copied < done.logged => {
            tracing::debug!(logged = done.logged, copied = done.copied, "log partly copied back")
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "could not copy the write-ahead log back"),
    }
    After::Wait
}

/// Pushes what waits in the per-chat outbox once its chat's window has passed.
async fn deliver_outbox(app: Arc<Hearth>) -> After {
    match app.loops.outbox.flush_waiting().await {
        Ok(settled) if !settled.is_empty() => {
            tracing::info!(items = settled.len(), "outbox pushed")
        }
        Ok(_) => {}
        Err(e) => tracing::error!(error = %e, "outbox tick failed"),
    }
    After::Wait
}

/// Polls watched prices and pushes the alerts that fire, every `HEARTH_PRICE_POLL_SECS` (each
/// symbol on its own cadence).
async fn watch_prices(app: Arc<Hearth>) -> After {
    let outcome = app.loops.price_alerts.tick().await;
    let telling = |r: &crate::features::price_alerts::ops::poller::TickReport| {
        r.fired + r.sent + r.failed + r.retrying > 0
    };
    report(outcome, telling, "price alerts", "price-alert tick failed")
}

/// Asks the doses of care plans that came due, tells the caregivers of those nobody confirmed
/// and of readings outside their limits, and sends the weekly reports, every
/// `HEARTH_CARE_TICK_SECS`.
async fn watch_care(app: Arc<Hearth>) -> After {
    let outcome = app.loops.care.tick().await;
    let after = report(outcome, |r| *r != Default::default(), "care plans", "care tick failed");
    match app.loops.care_menus.sync().await {
        Ok(round) if round != Default::default() => tracing::info!(?round, "care menus"),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "care menu links not checked"),
    }
    after
}

/// Reads the official alerts feed every `HEARTH_OFFICIAL_ALERTS_POLL_SECS` (the process holding its
/// lease) and tells the chats that follow the alerts.
async fn watch_official_alerts(app: Arc<Hearth>) -> After {
    let outcome = app.loops.official_alerts.tick().await;
    let telling = |r: &watcher::WatchReport| r.kept + r.unreadable + r.told > 0;
    report(outcome, telling, "official alerts", "official alerts tick failed")
}

/// Keeps the chats' calendars in step with the family's calendar server, every
/// `HEARTH_CALDAV_SYNC_SECS` (`HEARTH_CALDAV_URL`).
async fn sync_calendars(app: Arc<Hearth>) -> After {
    let Some(sync) = &app.loops.calendar_sync else { return After::Wait };
    let outcome = sync.tick().await;
    let telling = |r: &crate::features::calendar::ops::caldav::SyncReport| {
        r.taken + r.written + r.conflicts + r.failed > 0
    };
    report(outcome, telling, "calendar server synced", "calendar server sync failed")
}

/// Serves the HTTPS certificate kept, and obtains or renews it when it is due, every
/// `HEARTH_TLS_CHECK_SECS` (`HEARTH_TLS_DOMAIN`).
async fn look_at_certificate(app: Arc<Hearth>) -> After {
    let Some(https) = &app.serving.https else { return After::Wait };
    let outcome = https.tick().await;
    report(
        outcome,
        |r| *r != Default::default(),
        "HTTPS certificate",
        "HTTPS certificate look failed",
    )
}

/// Reads LINE's message quota at start and hourly, and shows the month's projection (what is
/// used plus what the scheduled reminders will spend) in `/metrics`.
async fn read_quota(app: Arc<Hearth>) -> After {
    app.read_quota().await;
    After::Wait
}

/// Takes the events that wait in the inbox, and looks again at once while it may hold more
/// and this process has room.
async fn take_waiting_events(app: Arc<Hearth>) -> After {
    match app.webhook.inbox.take_waiting_events().await {
        Ok(n)
            if n > 0
                && app.webhook.inbox.queue.has_backlog()
                && app.webhook.inbox.queue.free_slots_available() =>
        {
            After::AtOnce
        }
        Ok(_) => After::Wait,
        Err(e) => {
            tracing::error!(error = %e, "could not take waiting events");
            After::Wait
        }
    }
}

/// Sets aside the events whose handling did not finish twice. Looked for at start too: a
/// process that just came back from a crash must not be the one that retries them a third
/// time.
async fn set_aside_poison_events(app: Arc<Hearth>) -> After {
    if let Err(e) = app.webhook.inbox.set_aside_poison_events().await {
        tracing::error!(error = %e, "could not set failed events aside");
    }
    After::Wait
}

/// Renews the leases of the events this process holds.
async fn renew_leases(app: Arc<Hearth>) -> After {
    if let Err(e) = app.webhook.inbox.renew_leases().await {
        tracing::error!(error = %e, "could not renew inbox leases");
    }
    After::Wait
}

/// Every hour: forgets what is past its retention (handled events, the chat log, token counts,
/// counts of pairing guesses, settled pushes) and folds the metrics' histogram samples into their buckets.
async fn prune(app: Arc<Hearth>) -> After {
    {
        let now = app.clock.now();
        let before = now.saturating_sub(lease::DEDUPE_WINDOW).unwrap_or(now);
        match crate::server::inbox::forget_handled(&app.store, before.as_millisecond()).await {
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
        let alerts = OfficialAlertOps::from_deps(&app.turns.deps);
        if let Err(e) = alerts.forget_before(kept_since.as_millisecond()).await {
            tracing::warn!(error = %e, "could not prune the official alerts");
        }
        let care_since = now.saturating_sub(app.loops.retention.care).unwrap_or(now);
        let care = CareOps::from_deps(&app.turns.deps);
        if let Err(e) = care.forget_before(care_since.as_millisecond()).await {
            tracing::warn!(error = %e, "could not prune care readings");
        }
        let feeds = crate::features::calendar::ops::feed::Feeds::from_deps(&app.turns.deps);
        if let Err(e) = feeds.forget_cancelled(now).await {
            tracing::warn!(error = %e, "could not prune cancelled calendar events");
        }
        if let Err(e) = crate::features::speech::ops::forget_expired(&app.store, now).await {
            tracing::warn!(error = %e, "could not prune spoken answers' audio");
        }
        app.serving.metrics.upkeep();
    }
    After::Wait
}

#[cfg(test)]
mod tests {
    use super::{HEARTBEAT, LOOPS};

    #[test]
    fn each_loop_is_listed_once_under_its_own_name_and_the_heartbeat_apart() {
        let mut names: Vec<&str> = LOOPS.iter().map(|l| l.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), LOOPS.len());
        assert!(!names.contains(&HEARTBEAT.name), "the heartbeat outlives the others");
    }
}
